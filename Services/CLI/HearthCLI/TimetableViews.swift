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
        var arguments = member.arguments
        arguments["from"] = .string(from.description)
        arguments["to"] = .string(to.description)
        let reply = try await ServiceCall.run(options, .store, "timetable.days", arguments)
        if options.json { return Output.json(reply) }
        Output.line(Output.visible(reply["member"]?.stringValue ?? "?"))
        for day in reply["days"]?.arrayValue ?? [] {
            Output.line(heading(day))
            let lessons = day["lessons"]?.arrayValue ?? []
            if day["status"] == "school" && lessons.isEmpty { Output.line("  no lessons") }
            for lesson in lessons { Output.line("  " + describe(lesson, slot: false)) }
        }
    }

    /// `Monday 2026-11-23 · Week 1`, with the holiday or weekend said.
    static func heading(_ day: JSONValue) -> String {
        let weekday = (day["weekday"]?.intValue).map { Int($0) } ?? 1
        let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        var text =
            "\(names[max(0, min(6, weekday - 1))]) \(day["date"]?.stringValue ?? "") · Week \(day["week"]?.intValue ?? 0)"
        switch day["status"]?.stringValue {
        case "holiday": text += " · holiday" + (day["holiday"]?.stringValue.map { " (\(Output.visible($0)))" } ?? "")
        case "weekend": text += " · weekend"
        default: break
        }
        return text
    }

    struct Fortnight: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A member's two weeks as grids: periods down, Monday to Friday across.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var member: MemberOption
        @OptionGroup var when: When

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "timetable.entries", member.arguments)
            let day = try when.day(options)
            var current: Int64?
            if reply["settings"]?["week1_start"]?.stringValue != nil {
                var arguments = member.arguments
                arguments["from"] = .string(day.description)
                arguments["to"] = .string(day.description)
                let days = try await ServiceCall.run(options, .store, "timetable.days", arguments)["days"]?.arrayValue
                current = days?.first?["week"]?.intValue
            }
            if options.json {
                var json = reply.objectValue ?? [:]
                json["current_week"] = current.map(JSONValue.int) ?? .null
                return Output.json(.object(json))
            }
            let lessons = reply["entries"]?.arrayValue ?? []
            Output.line(Output.visible(reply["member"]?.stringValue ?? "?"))
            // The periods the school rings a bell for, and any a lesson sits in: a period with
            // neither is no row.
            let rung = Set((reply["settings"]?["bells"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue })
            let taught = Set(lessons.compactMap { $0["period_code"]?.stringValue })
            let periods = Period.allCases.filter { rung.contains($0.code) || taught.contains($0.code) }
            let width = 18
            for week in 1...2 {
                Output.line("")
                Output.line("Week \(week)" + (current == Int64(week) ? " (this week)" : ""))
                Output.line(
                    pad("", 16) + ["Mon", "Tue", "Wed", "Thu", "Fri"].map { pad($0, width) }.joined())
                for period in periods {
                    let row = SchoolDay.allCases.map { day -> String in
                        let lesson = lessons.first {
                            $0["week"]?.intValue == Int64(week) && $0["day"]?.stringValue == day.name
                                && $0["period_code"]?.stringValue == period.code
                        }
                        guard let lesson else { return pad("·", width) }
                        let cell = "\(lesson["subject"]?.stringValue ?? "") \(lesson["room"]?.stringValue ?? "")"
                        return pad(String(Output.visible(cell).prefix(width - 1)), width)
                    }
                    Output.line(pad(period.name, 16) + row.joined())
                }
            }
        }
    }

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The lesson on now and the next one (after school: the next school day's first).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var member: MemberOption
        @OptionGroup var when: When

        func run() async throws {
            let (today, moment) = try when.now(options)
            var arguments = member.arguments
            arguments["from"] = .string(today.description)
            arguments["to"] = .string(today.adding(days: 20).description)
            let reply = try await ServiceCall.run(options, .store, "timetable.days", arguments)
            let days = reply["days"]?.arrayValue ?? []
            let todays = days.first?["lessons"]?.arrayValue ?? []
            func time(_ value: JSONValue?) -> LocalTime? {
                value?.stringValue.flatMap { try? LocalTime(parsing: $0, field: "time") }
            }
            let (nowIndex, nextIndex) = SchoolCalendar.nowAndNext(
                todays.map { (time($0["start"]), time($0["end"])) },
                at: moment)
            let now = nowIndex.map { todays[$0] }
            var next: (lesson: JSONValue, date: String)?
            if let nextIndex {
                next = (todays[nextIndex], today.description)
            } else if let day = days.dropFirst().first(where: {
                $0["lessons"]?.arrayValue?.contains { $0["start"] != .null } == true
            }) {
                next = (
                    day["lessons"]?.arrayValue?.first { $0["start"] != .null } ?? .null, day["date"]?.stringValue ?? ""
                )
            }
            if options.json {
                var nextJSON = next?.lesson.objectValue
                nextJSON?["date"] = next.map { .string($0.date) }
                return Output.json([
                    "member": reply["member"] ?? .null, "today": days.first ?? .null, "now": now ?? .null,
                    "next": nextJSON.map(JSONValue.object) ?? .null,
                ])
            }
            Output.line("\(Output.visible(reply["member"]?.stringValue ?? "?")) · " + heading(days.first ?? .null))
            if let now {
                Output.line("Now:  " + lessonLine(now))
            } else if days.first?["status"] == "school" {
                Output.line("Now:  no lesson")
            }
            if let next {
                let on =
                    next.date == today.description
                    ? "" : "\(heading(days.first { $0["date"]?.stringValue == next.date } ?? .null)): "
                Output.line("Next: " + on + lessonLine(next.lesson))
            } else {
                Output.line("Next: nothing in the next three weeks")
            }
        }

        private func lessonLine(_ lesson: JSONValue) -> String {
            let period = lesson["period"]?.stringValue ?? ""
            return Output.visible(
                "\(lesson["subject"]?.stringValue ?? "?") in \(lesson["room"]?.stringValue ?? "?")"
                    + (lesson["teacher"]?.stringValue.map { " with \($0)" } ?? "")
                    + " · \(Int(period) != nil ? "period \(period)" : period), \(lesson["start"]?.stringValue ?? "")–\(lesson["end"]?.stringValue ?? "")"
            )
        }
    }

    struct Clashes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The same teacher or room in two places at one time, across all members.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "timetable.clashes")
            if options.json { return Output.json(reply) }
            let clashes = reply["clashes"]?.arrayValue ?? []
            Timetable.printClashes(clashes, warning: false)
            if let total = reply["total"]?.intValue, total > clashes.count {
                Output.line("… and \(total - Int64(clashes.count)) more (\(total) clashes in all)")
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
            let reply = try await ServiceCall.run(options, .store, "timetable.reference", ["what": .string(what)])
            if options.json { return Output.json(reply) }
            let items = reply[what]?.arrayValue ?? []
            if items.isEmpty { Output.line("no \(what) yet") }
            for item in items {
                Output.line(
                    "\(pad(item["name"]?.stringValue ?? "", 24)) \(Output.count(Int(item["lessons"]?.intValue ?? 0), "lesson")) · \(Output.count(Int(item["members"]?.intValue ?? 0), "member"))"
                )
            }
        }
    }
}
