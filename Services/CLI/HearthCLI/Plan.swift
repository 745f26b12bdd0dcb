import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth plan`: check-ins with the people who matter — plan the week, what's next, and what
/// to do with each.
struct Plan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Check-ins with people: plan the week, what's next, done, snooze, reschedule, calendars.",
        discussion: """
            `hearth plan week` places everyone due within the horizon at their best free slot \
            (inside their windows, outside quiet hours, busy times and other check-ins, within \
            the weekly capacity), highest score first. Reminders come from hearth-scheduler \
            `lead` minutes before each check-in, with Done, Snooze and Reschedule.
            """,
        subcommands: [
            Week.self, Next.self, List.self, Add.self, Done.self, Snooze.self, Reschedule.self, Cancel.self,
            SnoozeTonight.self, Prefs.self, Busy.self, Export.self,
        ]
    )

    struct Week: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "week",
            abstract: "Plan my week: fill the horizon and say what was placed and what did not fit.")

        @OptionGroup var options: GlobalOptions
        @Option(help: .hidden) var now: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, PlanCommands.Week(now: try Plan.nowMilliseconds(now)))
            if options.json { return try Output.reply(reply) }
            let zone = try options.loadConfiguration().household.timeZone
            let (placed, unplaced) = (reply.placed, reply.unplaced)
            Output.line(
                "planned \(placed.count) check-in\(placed.count == 1 ? "" : "s") over the next \(reply.horizon) days"
                    + (unplaced.isEmpty ? "" : "; \(unplaced.count) did not fit"))
            for item in placed { Output.line("  " + Plan.itemLine(item, zone)) }
            for miss in unplaced { Output.line("  ✗ \(Output.visible(miss.name)): \(miss.reason)") }
            if reply.missed > 0 {
                let missed = reply.missed
                Output.line(
                    "  \(missed) past check-in\(missed == 1 ? " was" : "s were") not marked and count as missed")
            }
        }
    }

    struct Next: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "next", abstract: "What's next: the next three check-ins.")

        @OptionGroup var options: GlobalOptions
        @Option(help: "How many (default 3).") var count = 3
        @Option(help: .hidden) var now: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, PlanCommands.Next(count: count, now: try Plan.nowMilliseconds(now)))
            if options.json { return try Output.reply(reply) }
            let items = reply.items
            if items.isEmpty { return Output.line("nothing planned: hearth plan week") }
            let zone = try options.loadConfiguration().household.timeZone
            for item in items { Output.line(Plan.itemLine(item, zone)) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every check-in of a week (default this one).")

        @OptionGroup var options: GlobalOptions
        @Option(help: "From this day, YYYY-MM-DD (default this Monday).") var from: String?
        @Option(help: "To this day (default six days after --from).") var to: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                PlanCommands.List(
                    from: try from.map { try Dates.day($0, options) }, to: try to.map { try Dates.day($0, options) }))
            if options.json { return try Output.reply(reply) }
            let zone = try options.loadConfiguration().household.timeZone
            Output.line("\(reply.from ?? "") to \(reply.to ?? "")")
            for item in reply.items { Output.line("  " + Plan.itemLine(item, zone)) }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Plan a check-in yourself at a time you choose.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their name (any case) or id.", completion: Completions.person) var person: String
        @Option(help: "When, 'YYYY-MM-DD HH:MM' (today/tomorrow allowed).") var at: String
        @Option(help: "How long (default their goal's).") var duration: String?
        @Option(help: .hidden) var now: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                PlanCommands.Add(
                    person: person, at: .text(try Plan.resolveTime(at, options)), duration: duration,
                    now: try Plan.nowMilliseconds(now)))
            try Plan.showItem(reply.item, options, verb: "planned")
        }
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "done",
            abstract: "Mark a check-in done (logs it; restarts the cadence).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The check-in's id (or its first characters).") var item: String
        @Option(help: "met, call, text or other (default met).") var outcome: String?

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, PlanCommands.Done(item: item, outcome: outcome))
            try Plan.showItem(reply.item, options, verb: "done")
        }
    }

    struct Snooze: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snooze",
            abstract: "Snooze a check-in by 1h, 1d or 3d (moved on if that time clashes).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The check-in's id (or its first characters).") var item: String
        @Option(name: .customLong("by"), help: "1h, 1d, 3d, or minutes such as 90m (default 1h).") var by = "1h"

        func run() async throws {
            let units: [Character: Int] = ["m": 1, "h": 60, "d": 1440]
            guard let unit = by.last, let scale = units[unit], let count = Int(by.dropLast()), count > 0 else {
                throw ValidationError("--by must be such as 1h, 1d, 3d or 90m, got '\(by)'")
            }
            let reply = try await ServiceCall.send(
                options, .store, PlanCommands.Snooze(item: item, minutes: count * scale))
            try Plan.showItem(reply, options, verb: "snoozed to")
        }
    }

    struct Reschedule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reschedule",
            abstract: "List the times a check-in can move to, or move it with --to.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The check-in's id (or its first characters).") var item: String
        @Option(help: "The new time, 'YYYY-MM-DD HH:MM' (one of those listed, or any free time).") var to: String?
        @Option(help: .hidden) var now: String?

        func run() async throws {
            let zone = try options.loadConfiguration().household.timeZone
            guard let to else {
                let reply = try await ServiceCall.send(
                    options, .store, PlanCommands.Slots(item: item, now: try Plan.nowMilliseconds(now)))
                if options.json { return try Output.reply(reply) }
                if reply.slots.isEmpty {
                    return Output.line("no free slot in their windows: try hearth plan add at another time")
                }
                Output.line("free times for \(Output.visible(reply.item?.title ?? "it")):")
                for slot in reply.slots { Output.line("  \(Plan.local(slot, zone))   --to '\(Plan.wall(slot, zone))'") }
                return
            }
            let reply = try await ServiceCall.send(
                options, .store,
                PlanCommands.Reschedule(
                    item: item, to: .text(try Plan.resolveTime(to, options)), now: try Plan.nowMilliseconds(now)))
            try Plan.showItem(reply, options, verb: "moved to")
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a check-in.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The check-in's id (or its first characters).") var item: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, PlanCommands.Cancel(item: item))
            try Plan.showItem(reply.item, options, verb: "cancelled")
        }
    }

    struct SnoozeTonight: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snooze-tonight", abstract: "Move today's pending check-ins to tomorrow morning.")

        @OptionGroup var options: GlobalOptions
        @Option(help: .hidden) var now: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, PlanCommands.SnoozeTonight(now: try Plan.nowMilliseconds(now)))
            if options.json { return try Output.reply(reply) }
            let moved = reply.moved
            if moved.isEmpty { return Output.line("nothing left today") }
            let zone = try options.loadConfiguration().household.timeZone
            Output.line("moved \(moved.count) check-in\(moved.count == 1 ? "" : "s") to tomorrow:")
            for item in moved { Output.line("  " + Plan.itemLine(item, zone)) }
        }
    }

    // MARK: - Showing

    /// `Tue 24 Nov 18:00–18:30  Catch up with Sam  pending  (1a2b3c4d)`.
    static func itemLine(_ item: PlanItemView, _ zone: TimeZone) -> String {
        "\(local(item.start, zone))–\(local(item.end, zone).suffix(5))  \(Output.visible(item.title))  \(item.status)"
            + "  (\(item.id.prefix(8)))"
    }

    static func showItem(_ item: PlanItemView, _ options: GlobalOptions, verb: String) throws {
        if options.json { return try Output.reply(item) }
        if let from = item.movedFrom {
            Output.line("check-in \(from.prefix(8)) had moved: this is the one it moved to (\(item.id.prefix(8)))")
        }
        Output.line("\(verb): " + itemLine(item, try options.loadConfiguration().household.timeZone))
    }

    /// A timestamp on the household's wall clock: `Tue 24 Nov 18:00`.
    static func local(_ timestamp: String, _ zone: TimeZone) -> String {
        guard let instant = Timestamp.parse(timestamp) else { return timestamp }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = zone
        formatter.dateFormat = "EEE d MMM HH:mm"
        return formatter.string(from: instant)
    }

    /// A timestamp as `--to` takes it: `2026-11-24 18:00`.
    static func wall(_ timestamp: String, _ zone: TimeZone) -> String {
        guard let instant = Timestamp.parse(timestamp) else { return timestamp }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: instant)
    }

    /// A time as `--when` and `--to` take it (`Dates.instant`: `today 18:00`, a day alone at
    /// its midday); anything else passed on for the store.
    static func resolveTime(_ text: String, _ options: GlobalOptions) throws -> String {
        try Dates.instant(text, options, dayMeans: .midday)
    }

    /// `--now` as milliseconds since 1970, for a typed command's `now`.
    static func nowMilliseconds(_ now: String?) throws -> Int64? {
        guard let now else { return nil }
        guard let instant = Timestamp.parse(now) else { throw ValidationError("--now must be an ISO 8601 instant") }
        return Int64((instant.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
