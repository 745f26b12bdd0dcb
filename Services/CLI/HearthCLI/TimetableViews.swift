import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// A member's timetable as the rotation and holidays make it: a day, a week, the fortnight's
/// grid, and what is on now and next.
extension Timetable {
    /// The date a view shows and the instant `now` reads (`--at`, for tests and demos).
    struct When: ParsableArguments {
        @Option(help: "The day to show, YYYY-MM-DD, today or tomorrow (default today).") var date: String?
        @Option(help: .hidden) var at: String?

        /// The household's wall clock now (or at `--at`).
        func now(_ options: GlobalOptions) throws -> (date: LocalDate, time: LocalTime) {
            let zone = try options.loadConfiguration().household.timeZone
            var instant = Date()
            if let at {
                guard let parsed = Timestamp.parse(at) else {
                    throw ValidationError("--at must be an ISO 8601 instant")
                }
                instant = parsed
            }
            return (LocalDate(instant, in: zone), LocalTime(instant, in: zone))
        }

        func day(_ options: GlobalOptions) throws -> LocalDate {
            guard let date else { return try now(options).date }
            do {
                return try LocalDate(parsing: try Dates.day(date, options), field: "date")
            } catch let error as RuleError {
                throw ValidationError(error.description)
            }
        }
    }

    struct TimetableDay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "day", abstract: "A member's day.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var member: MemberOption
        @OptionGroup var when: When

        func run() async throws {
            let day = try when.day(options)
            try await Timetable.showDays(options, member, from: day, to: day)
        }
    }

    struct TimetableWeek: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "week", abstract: "A member's week, Monday to Friday.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var member: MemberOption
        @OptionGroup var when: When

        func run() async throws {
            let monday = SchoolCalendar.monday(of: try when.day(options))
            try await Timetable.showDays(options, member, from: monday, to: monday.adding(days: 4))
        }
    }

    static func showDays(_ options: GlobalOptions, _ member: MemberOption, from: LocalDate, to: LocalDate) async throws
    {
        let reply = try await ServiceCall.send(
            options, .store,
            TimetableCommands.Days(from: from.description, to: to.description, member: member.member))
        if options.json { return try Output.reply(reply) }
        Output.line(Output.visible(reply.member))
        for day in reply.days {
            Output.line(heading(day))
            if day.isSchoolDay && day.lessons.isEmpty { Output.line("  no lessons") }
            for lesson in day.lessons { Output.line("  " + describe(lesson, slot: false)) }
        }
    }

    /// `Monday 2026-11-23 · Week 1`, with the holiday or weekend said.
    static func heading(_ day: TimetableDayView) -> String {
        let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        var text = "\(names[max(0, min(6, day.weekday - 1))]) \(day.date) · Week \(day.week)"
        switch day.status {
        case .holiday(let name): text += " · holiday" + (name.map { " (\(Output.visible($0)))" } ?? "")
        case .weekend: text += " · weekend"
        case .school: break
        }
        return text
    }

    struct Fortnight: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fortnight",
            abstract: "A member's two weeks as grids: periods down, Monday to Friday across.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var member: MemberOption
        @OptionGroup var when: When

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, TimetableCommands.Entries(member: member.member))
            let day = try when.day(options)
            var current: Int?
            if reply.settings.week1Start != nil {
                let days = try await ServiceCall.send(
                    options, .store,
                    TimetableCommands.Days(from: day.description, to: day.description, member: member.member))
                current = days.days.first?.week
            }
            if options.json {
                var json = try JSONValue(reply: reply).objectValue ?? [:]
                json["current_week"] = current.map { .int(Int64($0)) } ?? .null
                return Output.json(.object(json))
            }
            let lessons = reply.entries
            Output.line(Output.visible(reply.member))
            // The periods the school rings a bell for, and any a lesson sits in: a period with
            // neither is no row.
            let rung = Set(reply.settings.bells.map(\.code))
            let taught = Set(lessons.map(\.periodCode))
            let periods = Period.allCases.filter { rung.contains($0.code) || taught.contains($0.code) }
            let width = 18
            for week in 1...2 {
                Output.line("")
                Output.line("Week \(week)" + (current == week ? " (this week)" : ""))
                Output.line(
                    pad("", 16) + ["Mon", "Tue", "Wed", "Thu", "Fri"].map { pad($0, width) }.joined())
                for period in periods {
                    let row = SchoolDay.allCases.map { day -> String in
                        let lesson = lessons.first {
                            $0.week == week && $0.day == day.name && $0.periodCode == period.code
                        }
                        guard let lesson else { return pad("·", width) }
                        let cell = "\(lesson.subject) \(lesson.room)"
                        return pad(String(Output.visible(cell).prefix(width - 1)), width)
                    }
                    Output.line(pad(period.name, 16) + row.joined())
                }
            }
        }
    }

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "now",
            abstract: "The lesson on now and the next one (after school: the next school day's first).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var member: MemberOption
        @OptionGroup var when: When

        func run() async throws {
            let (today, moment) = try when.now(options)
            let days = try await ServiceCall.send(
                options, .store,
                TimetableCommands.Days(
                    from: today.description, to: today.adding(days: 20).description, member: member.member))
            guard let first = days.days.first else { return Output.line(Output.visible(days.member)) }
            let (nowIndex, nextIndex) = SchoolCalendar.nowAndNext(first.lessons.map(\.times), at: moment)
            let now = nowIndex.map { first.lessons[$0] }
            var next: (lesson: LessonView, day: TimetableDayView)?
            if let nextIndex {
                next = (first.lessons[nextIndex], first)
            } else if let day = days.days.dropFirst().first(where: { $0.lessons.contains { $0.start != nil } }),
                let lesson = day.lessons.first(where: { $0.start != nil })
            {
                next = (lesson, day)
            }
            if options.json {
                var nextJSON = try next.map { try JSONValue(reply: $0.lesson).objectValue ?? [:] }
                nextJSON?["date"] = next.map { .string($0.day.date) }
                return Output.json([
                    "member": .string(days.member), "today": try JSONValue(reply: first),
                    "now": try now.map { try JSONValue(reply: $0) } ?? .null,
                    "next": nextJSON.map(JSONValue.object) ?? .null,
                ])
            }
            Output.line("\(Output.visible(days.member)) · " + heading(first))
            if let now {
                Output.line("Now:  " + lessonLine(now))
            } else if first.isSchoolDay {
                Output.line("Now:  no lesson")
            }
            if let next {
                Output.line(
                    "Next: " + (next.day.date == today.description ? "" : "\(heading(next.day)): ")
                        + lessonLine(next.lesson))
            } else {
                Output.line("Next: nothing in the next three weeks")
            }
        }

        private func lessonLine(_ lesson: LessonView) -> String {
            let period = lesson.period
            return Output.visible(
                "\(lesson.subject) in \(lesson.room)" + (lesson.teacher.map { " with \($0)" } ?? "")
                    + " · \(Int(period) != nil ? "period \(period)" : period), \(lesson.start ?? "")–\(lesson.end ?? "")"
            )
        }
    }

    struct Clashes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clashes",
            abstract: "The same teacher or room in two places at one time, across all members.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, TimetableCommands.Clashes())
            if options.json { return try Output.reply(reply) }
            Timetable.printClashes(reply.clashes, warning: false)
            if reply.total > reply.clashes.count {
                Output.line("… and \(reply.total - reply.clashes.count) more (\(reply.total) clashes in all)")
            }
        }
    }

    struct Reference: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reference",
            abstract: "The subjects, teachers or rooms the timetables use (also: subjects, teachers, rooms).",
            aliases: ["subjects", "teachers", "rooms"])

        @OptionGroup var options: GlobalOptions
        @Argument(help: "subjects, teachers or rooms (default: the name the command was called by).") var what: String?

        func run() async throws {
            let called = CommandLine.arguments.first { ["subjects", "teachers", "rooms"].contains($0) }
            let what = what ?? called ?? "subjects"
            let reply = try await ServiceCall.send(options, .store, TimetableCommands.Reference(what: what))
            if options.json { return try Output.reply(reply) }
            if reply.items.isEmpty { Output.line("no \(what) yet") }
            for item in reply.items {
                Output.line(
                    "\(pad(item.name, 24)) \(Output.count(item.lessons, "lesson")) · \(Output.count(item.members, "member"))"
                )
            }
        }
    }
}
