import ArgumentParser
import HearthBus
import HearthCore

/// Editing a member's lessons.
extension Timetable {
    /// A lesson's fields as options.
    struct LessonOptions: ParsableArguments {
        @Option(help: "Week 1 or 2.") var week: String?
        @Option(help: "Monday–Friday (Mon, tue…).") var day: String?
        @Option(help: "AM Registration, 1–5 or PM Registration (AM Reg, Period 3…).") var period: String?
        @Option(help: "The subject.") var subject: String?
        @Option(help: "The teacher's code (\"\" clears it).") var teacher: String?
        @Option(help: "The room.") var room: String?
        @Option(help: "Its own start time HH:MM, instead of the bell's (\"\" clears it).") var start: String?
        @Option(help: "Its own end time HH:MM (\"\" clears it).") var end: String?

        var fields: TimetableCommands.LessonFields {
            TimetableCommands.LessonFields(
                week: week.map { SlotText($0) }, day: day.map { SlotText($0) }, period: period.map { SlotText($0) },
                subject: subject, room: room, teacher: teacher, start: start, end: end)
        }

        /// A new lesson: its slot, subject and room are required (refused as the store refuses).
        func lesson(member: String?) throws -> TimetableCommands.Add {
            func required(_ name: String, _ value: String?) throws -> String {
                guard let value else { throw CommandClientError.refused(.invalidArgument(name, "is required")) }
                return value
            }
            return TimetableCommands.Add(
                week: SlotText(try required("week", week)), day: SlotText(try required("day", day)),
                period: SlotText(try required("period", period)), subject: try required("subject", subject),
                room: try required("room", room), member: member, teacher: teacher, start: start, end: end)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a lesson: --week --day --period --subject --room [--teacher] [--start --end].")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var member: MemberOption
        @OptionGroup var lesson: LessonOptions

        func run() async throws {
            try await Timetable.change(options, try lesson.lesson(member: member.member), verb: "added")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Change a lesson (its id, or its slot: \"1 Mon 3\").")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The lesson's id (or first characters) or slot, \"1 Mon 3\".") var entry: String
        @OptionGroup var member: MemberOption
        @OptionGroup var lesson: LessonOptions

        func run() async throws {
            try await Timetable.change(
                options, TimetableCommands.Edit(entry: entry, member: member.member, lesson: lesson.fields),
                verb: "changed")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a lesson (its id, or its slot: \"1 Mon 3\").")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The lesson's id (or first characters) or slot, \"1 Mon 3\".") var entry: String
        @OptionGroup var member: MemberOption

        func run() async throws {
            let reply = try await ServiceCall.reply(
                options, .store, TimetableCommands.Remove(entry: entry, member: member.member))
            if options.json { return Output.json(reply) }
            Output.line("removed lesson \(entry)")
        }
    }

    struct Duplicate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "duplicate",
            abstract: "Copy a lesson into another slot: ENTRY --week W --day D --period P.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The lesson's id (or first characters) or slot, \"1 Mon 3\".") var entry: String
        @OptionGroup var member: MemberOption
        @Option(help: "The new slot's week.") var week: String
        @Option(help: "The new slot's day.") var day: String
        @Option(help: "The new slot's period.") var period: String

        func run() async throws {
            let slot = TimetableCommands.LessonFields(
                week: SlotText(week), day: SlotText(day), period: SlotText(period))
            try await Timetable.change(
                options, TimetableCommands.Duplicate(entry: entry, member: member.member, lesson: slot), verb: "added")
        }
    }

    struct CopyDay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy-day", abstract: "Copy a day onto another, replacing it: \"1 Mon\" \"2 Tue\".")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The day to copy, \"1 Mon\".") var from: String
        @Argument(help: "The day to replace, \"2 Tue\".") var to: String
        @OptionGroup var member: MemberOption

        func run() async throws {
            try await Timetable.change(
                options, TimetableCommands.CopyDay(from: from, to: to, member: member.member), verb: "copied")
        }
    }

    struct CopyWeek: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy-week", abstract: "Copy a week onto the other, replacing it: 1 2.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The week to copy.") var from: String
        @Argument(help: "The week to replace.") var to: String
        @OptionGroup var member: MemberOption

        func run() async throws {
            try await Timetable.change(
                options, TimetableCommands.CopyWeek(from: SlotText(from), to: SlotText(to), member: member.member),
                verb: "copied")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List a member's lessons with their ids.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var member: MemberOption

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, TimetableCommands.Entries(member: member.member))
            if options.json { return try Output.reply(reply) }
            Output.line("\(Output.visible(reply.member)): \(Output.count(reply.entries.count, "lesson"))")
            for lesson in reply.entries { Output.line("  " + Timetable.describe(lesson, slot: true)) }
        }
    }

    /// Sends an editing command and prints the lessons it wrote and any clash it made.
    static func change<C: HearthCommand>(_ options: GlobalOptions, _ command: C, verb: String) async throws
    where C.Reply == LessonsChanged {
        let reply = try await ServiceCall.send(options, .store, command)
        if options.json { return try Output.reply(reply) }
        if let replaced = reply.replaced {
            Output.line("\(verb) \(Output.count(reply.entries.count, "lesson")) (replacing \(replaced))")
        }
        for lesson in reply.entries {
            Output.line((reply.replaced == nil ? "\(verb): " : "  ") + describe(lesson, slot: true))
        }
        printClashes(reply.clashes, warning: true)
    }

    /// One lesson: `W1 Mon P3  09:00–10:00  Maths · R12 · MrS  (id)`.
    static func describe(_ lesson: LessonView, slot: Bool) -> String {
        var parts: [String] = []
        if slot {
            let period = lesson.period
            parts.append(
                "W\(lesson.week) \(lesson.day.prefix(3)) " + pad(Int(period) != nil ? "P\(period)" : period, 15))
        } else {
            parts.append(pad(lesson.period, 15))
        }
        parts.append(lesson.start.map { "\($0)–\(lesson.end ?? "")" } ?? "--:-----:--")
        let what = [lesson.subject, lesson.room] + (lesson.teacher.map { [$0] } ?? [])
        parts.append(Output.visible(what.joined(separator: " · ")))
        return parts.joined(separator: "  ") + "  (\(lesson.id.prefix(8)))"
    }

    static func printClashes(_ clashes: [ClashView], warning: Bool) {
        if clashes.isEmpty && !warning { return Output.line("no clashes") }
        for clash in clashes {
            func side(_ lesson: LessonView) -> String {
                "\(lesson.member ?? "?") \(lesson.subject) in \(lesson.room)"
                    + (lesson.teacher.map { " with \($0)" } ?? "") + " (period \(lesson.period)"
                    + (lesson.start.map { ", \($0)–\(lesson.end ?? "")" } ?? "") + ")"
            }
            let what =
                clash.kind == "teacher" ? "teacher \(clash.value) in two places" : "room \(clash.value) booked twice"
            Output.line(
                Output.visible(
                    "\(warning ? "clash: " : "")\(what), week \(clash.week) \(clash.day): \(side(clash.first)) and \(side(clash.second))"
                ))
        }
    }
}
