import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth plan prefs`, `hearth plan busy` and `hearth plan export`: how the planner plans, the
/// busy times it avoids, and the plan out to other calendar apps.
extension Plan {
    struct Prefs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prefs",
            abstract: "Show or set the planning preferences (capacity, quiet hours, horizon, lead, times).")

        @OptionGroup var options: GlobalOptions
        @Option(help: "Most check-ins in a week (Monday to Sunday).") var capacity: Int?
        @Option(help: "Quiet hours start, HH:MM (no check-ins, no popups).") var quietStart: String?
        @Option(help: "Quiet hours end, HH:MM.") var quietEnd: String?
        @Option(help: "Days ahead the planner fills (1–90).") var horizon: Int?
        @Option(help: "Minutes before a check-in its reminder comes.") var lead: Int?
        @Option(help: "When the daily refresh runs, HH:MM.") var refresh: String?
        @Option(help: "Where snooze-tonight moves check-ins, HH:MM tomorrow.") var morning: String?

        func run() async throws {
            let change = PlanCommands.SetPreferences(
                capacity: capacity, horizon: horizon, lead: lead, quietStart: quietStart, quietEnd: quietEnd,
                refresh: refresh, morning: morning)
            let reply =
                try await change == PlanCommands.SetPreferences()
                ? ServiceCall.send(options, .store, PlanCommands.Preferences())
                : ServiceCall.send(options, .store, change)
            if options.json { return try Output.reply(reply) }
            Output.line(
                "capacity \(reply.capacity) a week · quiet \(reply.quietStart)–\(reply.quietEnd) · "
                    + "horizon \(reply.horizon) days · reminders \(reply.lead) min ahead · refresh at \(reply.refresh) · "
                    + "snooze-tonight to \(reply.morning)")
        }
    }

    struct Busy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "busy",
            abstract: "Busy times the planner avoids, from iCalendar (.ics) files and subscribed calendars.",
            subcommands: [
                Import.self, Remove.self, Subscribe.self, Refresh.self, Unsubscribe.self, List.self, Clear.self,
            ])

        struct Import: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "import",
                abstract: "Import busy times from an .ics file (a re-import replaces its events).")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The .ics file.") var file: String
            @Option(help: .hidden) var now: String?

            func run() async throws {
                let path = URL(fileURLWithPath: file).standardizedFileURL.path
                let command = BusyCommands.Import(path: path, now: try Plan.nowMilliseconds(now))
                let reply = try await ServiceCall.sendShowingProgress(options, .store, command)
                if options.json { return try Output.reply(reply) }
                Output.line(
                    "\(reply.file): \(reply.events) events, \(reply.busy) busy times, \(reply.free) free or cancelled")
                for error in reply.errors {
                    Output.line("  ✗ \(Output.visible(error.event)): \(Output.visible(error.reason))")
                }
                if reply.omittedErrors > 0 { Output.line("  … and \(reply.omittedErrors) more") }
                for warning in reply.warnings ?? [] {
                    Output.line("  ! \(Output.visible(warning.event)): \(Output.visible(warning.reason))")
                }
                let zone = try options.loadConfiguration().household.timeZone
                for item in reply.rescheduled ?? [] {
                    Output.line(
                        "  moved: check-in with \(Output.visible(item.name)) to \(Dates.wall(item.start, zone))")
                }
                for item in reply.unplaced ?? [] {
                    Output.line("  ! \(Output.visible(item.event)): \(Output.visible(item.reason))")
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List the busy times still to come.")

            @OptionGroup var options: GlobalOptions

            func run() async throws {
                let reply = try await ServiceCall.send(options, .store, BusyCommands.List())
                if options.json { return try Output.reply(reply) }
                let zone = try options.loadConfiguration().household.timeZone
                for source in reply.sources ?? [] { Output.line(Busy.describe(source, zone)) }
                for file in reply.files ?? [] {
                    Output.line("\(Output.visible(file.file)) · imported: \(Output.count(file.busy, "busy time"))")
                }
                if reply.busy.isEmpty {
                    return Output.line("no busy times: hearth plan busy import FILE.ics, or subscribe URL")
                }
                for time in reply.busy {
                    let summary = Output.visible(time.summary)
                    let (start, end) = (time.start, time.end)
                    guard time.allDay else {
                        Output.line("\(Plan.local(start, zone))–\(Plan.local(end, zone).suffix(5))  \(summary)")
                        continue
                    }
                    // An all-day event ends at the midnight after its last day.
                    let first = String(Plan.local(start, zone).dropLast(6))
                    let last = Timestamp.parse(end).map {
                        String(Plan.local(Timestamp.format($0.addingTimeInterval(-1)), zone).dropLast(6))
                    }
                    let days = last.map { $0 == first ? first : "\(first) – \($0)" } ?? first
                    Output.line("\(days) all day  \(summary)")
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove",
                abstract: "Forget the busy times one imported file left (its name as busy list shows it).")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The file's name, as busy list shows it (work.ics).") var file: String

            func run() async throws {
                let reply = try await ServiceCall.send(options, .store, BusyCommands.Remove(file: file))
                if options.json { return try Output.reply(reply) }
                Output.line("removed \(Output.visible(reply.file)): \(Output.count(reply.removed, "busy time"))")
            }
        }

        struct Clear: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "clear", abstract: "Forget every imported busy time.")

            @OptionGroup var options: GlobalOptions

            func run() async throws {
                let reply = try await ServiceCall.send(options, .store, BusyCommands.Clear())
                if options.json { return try Output.reply(reply) }
                Output.line("cleared \(reply.cleared) busy times")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the check-ins to an .ics file other calendar apps import (re-exports update).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The .ics file to write.") var file: String
        @Option(help: .hidden) var now: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, PlanCommands.Export(now: try Plan.nowMilliseconds(now)))
            do {
                try Data(reply.ics.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
            } catch {
                Output.error("hearth: cannot write \(file): \(error.localizedDescription)")
                throw ExitCode(1)
            }
            if options.json { return Output.json(["file": .string(file), "events": .int(Int64(reply.events))]) }
            Output.line("wrote \(reply.events) check-ins to \(file)")
        }
    }
}
