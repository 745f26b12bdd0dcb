import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth calendar`: the todos of a day, a week or a month, with counts per day.
struct CalendarView: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "The todos of a day, week or month (collections shown in the calendar), with counts per day.",
        discussion: """
            Repeating todos appear on each day they fall on, marked [x] where that day is done. \
            Weeks start on [household] week_start (Monday by default). Priorities are coloured \
            on a terminal (high red, medium yellow, low blue) unless NO_COLOR is set.
            """)

    enum Span: String, ExpressibleByArgument, CaseIterable {
        case day, week, month
    }

    @OptionGroup var options: GlobalOptions
    @Argument(help: "day, week or month.") var span: Span
    @Argument(help: "A day in it: YYYY-MM-DD, today, tomorrow or yesterday (default today).") var date = "today"
    @Option(help: "Only this priority: high, medium, low or none.") var priority: String?
    @Option(help: "Only open or done todos.") var status: String?
    @Option(help: "Only collections of this kind: habit, plan or list.") var kind: String?
    @Option(help: "Only this collection.") var collection: String?

    func run() async throws {
        let configuration = try options.loadConfiguration()
        let dayText = try Todo.resolve(date, options)
        let day: LocalDate
        do {
            day = try LocalDate(parsing: dayText, field: "date")
        } catch {
            throw ServiceCall.failure(
                CommandClientError.refused(CommandError.invalidArgument(error.field, error.rule)), .store, options)
        }
        let (from, to) = Self.range(span, around: day, weekStart: configuration.household.weekStart)
        var arguments: [String: JSONValue] = ["from": .string(from.description), "to": .string(to.description)]
        for (name, value) in [("priority", priority), ("status", status), ("kind", kind), ("collection", collection)] {
            if let value { arguments[name] = .string(value) }
        }
        let reply = try await ServiceCall.run(options, .store, "todo.calendar", arguments)
        if options.json { return Output.json(reply) }
        let colour = ProcessInfo.processInfo.environment["NO_COLOR"] == nil && isatty(STDOUT_FILENO) == 1
        for day in reply["days"]?.arrayValue ?? [] {
            let counts = day["counts"] ?? [:]
            let open = counts["open"]?.intValue ?? 0
            let done = counts["done"]?.intValue ?? 0
            let weekday = Self.weekdays[Int(day["weekday"]?.intValue ?? 1) - 1]
            let todos = day["todos"]?.arrayValue ?? []
            if span == .month && todos.isEmpty { continue }
            Output.line("\(weekday) \(day["date"]?.stringValue ?? "")  \(open) open, \(done) done")
            for todo in todos {
                let mark = todo["done"] == true ? "[x]" : "[ ]"
                let time = todo["time"]?.stringValue ?? "     "
                let title = Output.visible(todo["title"]?.stringValue ?? "")
                let priority = todo["priority"]?.stringValue ?? "none"
                let tag = priority == "none" ? "" : " !" + priority
                let text = "  \(mark) \(time)  \(title)\(tag)  (\(todo["id"]?.stringValue?.prefix(8) ?? ""))"
                Output.write((colour ? Self.paint(text, priority) : text) + "\n")
            }
        }
    }

    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// The days a view shows: one; the week holding the day (from `weekStart`, ISO 1–7); its month.
    static func range(_ span: Span, around day: LocalDate, weekStart: Int) -> (LocalDate, LocalDate) {
        switch span {
        case .day: return (day, day)
        case .week: return day.week(startingOn: weekStart)
        case .month: return day.wholeMonth
        }
    }

    /// `text` in the priority's colour (ANSI: high red, medium yellow, low blue).
    static func paint(_ text: String, _ priority: String) -> String {
        let codes = ["high": "31", "medium": "33", "low": "34"]
        guard let code = codes[priority] else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
