import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth plan busy subscribe|refresh|unsubscribe`: busy times from a calendar on the LAN (a
/// NAS, Nextcloud), read by `hearth-scheduler` daily with its ETag.
extension Plan.Busy {
    /// How long the command line waits for `busy.read`: the scheduler's 30 s deadline per
    /// calendar, and some.
    static let readPatience = Duration.seconds(45)

    struct Subscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscribe",
            abstract: "Subscribe to a calendar by URL (http, https, webcal); read now, then daily.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The calendar's URL, e.g. https://nas.local/remote.php/dav/calendars/ann/work?export")
        var url: String
        @Option(help: .hidden) var now: String?

        func run() async throws {
            let source = try await ServiceCall.send(
                options, .store, BusyCommands.Subscribe(url: url, now: try Plan.nowMilliseconds(now)))
            let reads = try await Plan.Busy.read(options, url: source.url)
            if options.json { return try Output.reply(reads ?? BusyReads(reads: [])) }
            Output.line("subscribed to \(BusySubscription.shown(source.url))")
            try await Plan.Busy.report(reads, options)
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Read subscribed calendars now (one URL, or every one).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The calendar's URL (default: every subscribed calendar).") var url: String?

        func run() async throws {
            let reads = try await Plan.Busy.read(options, url: url)
            if options.json { return try Output.reply(reads ?? BusyReads(reads: [])) }
            if reads?.reads.isEmpty == true {
                return Output.line("no calendars subscribed: hearth plan busy subscribe URL")
            }
            try await Plan.Busy.report(reads, options)
            // A calendar that could not be read is a failure to say so to a script too.
            if reads?.reads.contains(where: { $0.error != nil }) == true { throw ExitCode(1) }
        }
    }

    struct Unsubscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unsubscribe",
            abstract: "Stop reading a calendar and forget its busy times.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The calendar's URL, as busy list shows it.") var url: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, BusyCommands.Unsubscribe(url: url))
            if options.json { return try Output.reply(reply) }
            Output.line("unsubscribed from \(reply.url); removed \(reply.removed) busy times")
        }
    }

    /// Asks the scheduler to read `url` (or every source) now; `nil` when it is not running (a
    /// refusal is reported and exits, as every command's does).
    static func read(_ options: GlobalOptions, url: String?) async throws -> BusyReads? {
        let command = SchedulerQueries.ReadBusy(url: url)
        switch try await ServiceCall.attempt(
            options, .scheduler, SchedulerQueries.ReadBusy.name, try command.arguments(), patience: readPatience)
        {
        case .success(let data): return try data.decode(BusyReads.self)
        case .failure(let error):
            if case .refused = error { throw ServiceCall.failure(error, .scheduler, options) }
            return nil
        }
    }

    /// What each read gave, one line each; or, with no answer, whether the scheduler is still
    /// reading (a slow server: it said "not running", which was false) or not running.
    static func report(_ reads: BusyReads?, _ options: GlobalOptions) async throws {
        guard let reads else {
            if case .success = try await ServiceCall.attempt(options, .scheduler, ServiceCommands.Ping.name) {
                return Output.line(
                    "hearth-scheduler is still reading (a calendar server is slow to answer); it records what it reads: hearth plan busy list shows it"
                )
            }
            return Output.line("hearth-scheduler is not running: it reads the calendar when it starts")
        }
        for read in reads.reads {
            let url = BusySubscription.shown(read.url)
            if let imported = read.imported {
                let unchanged = read.unchanged ? " (unchanged since the last read)" : ""
                Output.line("\(url): \(imported.events) events, \(imported.busy) busy times\(unchanged)")
                for error in imported.errors.prefix(10) {
                    Output.line("  ✗ \(Output.visible(error.event)): \(Output.visible(error.reason))")
                }
            } else {
                Output.line("✗ \(url): \(Output.visible(read.error ?? "not read")) (tried again within the hour)")
            }
        }
    }

    /// One subscribed calendar for `busy list`: its last read, what it gave, any error, and when
    /// it is read next.
    static func describe(_ source: BusySource, _ zone: TimeZone) -> String {
        var parts = [BusySubscription.shown(source.url)]
        if let read = source.read {
            parts.append("read \(Plan.local(read, zone)): \(source.events) events, \(source.busy) busy times")
        } else {
            parts.append("not read yet")
        }
        if let error = source.error, let tried = source.tried {
            parts.append("✗ \(Plan.local(tried, zone)): \(Output.visible(error))")
        }
        if let next = source.next { parts.append("next \(Plan.local(next, zone))") }
        return parts.joined(separator: " · ")
    }
}
