import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth timetable`: the members' two-week school timetables, the school's calendar, and
/// their views.
struct Timetable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timetable",
        abstract: "Two-week school timetables: settings, bells, holidays, lessons, import, clashes and views.",
        discussion: """
            Weeks alternate Week 1 / Week 2 from the Monday of the Week-1 start date (holidays do not \
            shift them; an override does). Slots are a week, a day and a period: `1 Mon 3`, \
            `2 Fri "AM Reg"`. --member defaults to this device's profile (`hearth member use`).
            """,
        subcommands: [
            Settings.self, Bells.self, Override.self, Holiday.self, Add.self, Edit.self, Remove.self, Duplicate.self,
            CopyDay.self, CopyWeek.self, TimetableImport.self, List.self, TimetableDay.self, TimetableWeek.self,
            Fortnight.self, Now.self, Clashes.self, Reference.self,
        ]
    )

    struct Settings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show the school's settings, or set the Week-1 start date.")

        @OptionGroup var options: GlobalOptions
        @Option(name: .customLong("week1-start"), help: "The Week-1 start date, YYYY-MM-DD.") var week1Start: String?

        func run() async throws {
            let reply =
                if let week1Start {
                    try await ServiceCall.send(
                        options, .store, SchoolCommands.Configure(week1Start: try Dates.day(week1Start, options)))
                } else {
                    try await ServiceCall.send(options, .store, SchoolCommands.Settings())
                }
            try Timetable.printSettings(reply, options)
        }
    }

    struct Bells: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bells",
            abstract: "Set bell times: \"AM Registration=08:40-09:00\" \"1=09:00-10:00\" …; none: show them.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "PERIOD=HH:MM-HH:MM, one per period to set.") var bells: [String] = []

        func run() async throws {
            let reply =
                bells.isEmpty
                ? try await ServiceCall.send(options, .store, SchoolCommands.Settings())
                : try await ServiceCall.send(options, .store, SchoolCommands.Bells(bells: bells))
            try Timetable.printSettings(reply, options)
        }
    }

    struct Override: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "override",
            abstract: "Make dates a given rotation week (--week 1|2 --from D --to D), or --clear overrides.")

        @OptionGroup var options: GlobalOptions
        @Option(help: "The week the range starts in: 1 or 2.") var week: Int?
        @Option(help: "First date, YYYY-MM-DD.") var from: String?
        @Option(help: "Last date, YYYY-MM-DD.") var to: String?
        @Flag(help: "Remove the overrides touching --from..--to (all, without them).") var clear = false

        func validate() throws {
            guard clear || (week != nil && from != nil && to != nil) else {
                throw ValidationError("give --week, --from and --to, or --clear")
            }
            guard !(clear && week != nil) else { throw ValidationError("--clear takes no --week") }
        }

        func run() async throws {
            let (first, last) = (try from.map { try Dates.day($0, options) }, try to.map { try Dates.day($0, options) })
            let reply =
                if let week, let first, let last, !clear {
                    try await ServiceCall.send(
                        options, .store, SchoolCommands.Override(week: week, from: first, to: last))
                } else {
                    try await ServiceCall.send(options, .store, SchoolCommands.ClearOverrides(from: first, to: last))
                }
            try Timetable.printSettings(reply, options)
        }
    }

    static func printSettings(_ reply: SchoolSettings, _ options: GlobalOptions) throws {
        if options.json { return try Output.reply(reply) }
        Output.line("Week 1 starts: \(reply.week1Start ?? "not set (hearth timetable settings --week1-start D)")")
        Output.line(reply.bells.isEmpty ? "Bells: none set" : "Bells:")
        for bell in reply.bells { Output.line("  \(pad(bell.period, 16)) \(bell.start)–\(bell.end)") }
        for override in reply.overrides {
            Output.line("Override: week \(override.week) from \(override.from) to \(override.to)")
        }
        for holiday in reply.holidays { Output.line("Holiday: " + Holiday.describe(holiday)) }
        if let cleared = reply.cleared { Output.line("cleared \(cleared) override\(cleared == 1 ? "" : "s")") }
    }

    /// `text` padded with spaces to `width` characters.
    static func pad(_ text: String, _ width: Int) -> String {
        let visible = Output.visible(text)
        return visible.count >= width ? visible : visible + String(repeating: " ", count: width - visible.count)
    }

    /// The `--member` option every member's command takes.
    struct MemberOption: ParsableArguments {
        @Option(help: "The member (default: this device's profile).", completion: Completions.member)
        var member: String?
    }
}

extension Timetable {
    struct Holiday: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "holiday",
            abstract: "School holidays: no lessons and no notifications on their days.",
            subcommands: [Add.self, List.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add", abstract: "Add a holiday FROM TO (dates included).")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "First day, YYYY-MM-DD (or today, tomorrow).") var from: String
            @Argument(help: "Last day, YYYY-MM-DD.") var to: String
            @Option(help: "Its name (Half term).") var name: String?

            func run() async throws {
                let reply = try await ServiceCall.send(
                    options, .store,
                    SchoolCommands.AddHoliday(
                        from: try Dates.day(from, options), to: try Dates.day(to, options), name: name))
                if options.json { return try Output.reply(reply) }
                Output.line("added holiday: " + (reply.holiday.map(Holiday.describe) ?? "?"))
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List the holidays.")

            @OptionGroup var options: GlobalOptions

            func run() async throws {
                let reply = try await ServiceCall.send(options, .store, SchoolCommands.Holidays())
                if options.json { return try Output.reply(reply) }
                if reply.holidays.isEmpty { Output.line("no holidays") }
                for holiday in reply.holidays { Output.line(Holiday.describe(holiday)) }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove", abstract: "Remove a holiday (its name or id).")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The holiday's name or id (or its first characters).") var holiday: String

            func run() async throws {
                let reply = try await ServiceCall.reply(
                    options, .store, SchoolCommands.RemoveHoliday(holiday: holiday))
                if options.json { return Output.json(reply) }
                Output.line("removed holiday \(holiday)")
            }
        }

        static func describe(_ holiday: HolidayView) -> String {
            let name = holiday.name.map { Output.visible($0) + " · " } ?? ""
            return "\(name)\(holiday.from) to \(holiday.to)  (\(holiday.id.prefix(8)))"
        }
    }
}
