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
    @Argument(help: "A day in it: YYYY-MM-DD, today, tomorrow or yesterday; a month also YYYY-MM (default today).")
    var date = "today"
    @Option(help: "Only this priority: high, medium, low or none.") var priority: String?
    @Option(help: "Only open or done todos.") var status: String?
    @Option(help: "Only collections of this kind: habit, plan or list.") var kind: String?
    @Option(help: "Only this collection.") var collection: String?
    @Option(
        help: ArgumentHelp(
            "The day taken as today (YYYY-MM-DD), as ncal's -H: marked in the month grid, and what "
                + "today, tomorrow and yesterday count from (default: today on the household's clock).",
            valueName: "date"))
    var today: String?

    func run() async throws {
        let configuration = try options.loadConfiguration()
        let today = try self.today.map { try parseDay($0, field: "today") } ?? Dates.today(options)
        let dayText =
            try span == .month ? Dates.month(date, options, today: today) : Dates.day(date, options, today: today)
        let day = try parseDay(dayText, field: "date")
        let (from, to) = Self.range(span, around: day, weekStart: configuration.household.weekStart)
        let reply = try await ServiceCall.send(
            options, .store,
            TodoCommands.Calendar(
                from: from.description, to: to.description, priority: priority, status: status, kind: kind,
                collection: collection))
        if options.json { return try Output.reply(reply) }
        if span == .month {
            for line in Self.monthGrid(reply, month: day, today: today, weekStart: configuration.household.weekStart) {
                Output.line(line)
            }
            return
        }
        let colour = ProcessInfo.processInfo.environment["NO_COLOR"] == nil && isatty(STDOUT_FILENO) == 1
        for day in reply.days {
            let weekday = Self.weekdays[max(0, min(6, day.weekday - 1))]
            if span == .month && day.todos.isEmpty { continue }
            Output.line("\(weekday) \(day.date)  \(day.counts.open) open, \(day.counts.done) done")
            for todo in day.todos {
                let mark = todo.done ? "[x]" : "[ ]"
                let time = todo.time ?? "     "
                let priority = todo.priority
                let tag = priority == "none" ? "" : " !" + priority
                let text = "  \(mark) \(time)  \(Output.visible(todo.title))\(tag)  (\(todo.id.prefix(8)))"
                Output.write((colour ? Self.paint(text, priority) : text) + "\n")
            }
        }
    }

    /// A day typed on the command line, or the refusal naming the field, as the store would say it.
    private func parseDay(_ text: String, field: String) throws -> LocalDate {
        do {
            return try LocalDate(parsing: text, field: field)
        } catch {
            throw ServiceCall.failure(
                CommandClientError.refused(CommandError.invalidArgument(error.field, error.rule)), .store, options)
        }
    }

    static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// A month as a grid, as `cal` draws it: a column per weekday (from `weekStart`, ISO 1–7),
    /// each day with the number of its todos (open and done), today in brackets, then the month's
    /// totals.
    static func monthGrid(_ reply: TodoCalendar, month: LocalDate, today: LocalDate, weekStart: Int) -> [String] {
        var counts: [String: (open: Int, done: Int)] = [:]
        for day in reply.days { counts[day.date] = (day.counts.open, day.counts.done) }
        let (first, last) = month.wholeMonth
        let names = (0..<7).map { weekdays[(weekStart - 1 + $0) % 7] }
        var lines = ["\(YearPlanner.monthName(first.month)) \(first.year)", names.map { " \($0)    " }.joined()]
        // Blank cells before the first day, in its week's columns.
        var row = String(repeating: " ", count: 8 * ((first.weekday - weekStart + 7) % 7))
        var day = first
        while day <= last {
            let number = String(day.day)
            let mark = day == today ? "[\(number)]" : " \(number) "
            let total = (counts[day.description]?.open ?? 0) + (counts[day.description]?.done ?? 0)
            let cell = String(repeating: " ", count: 4 - mark.count) + mark + (total > 0 ? String(total) : "")
            row += cell.padding(toLength: 8, withPad: " ", startingAt: 0)
            if (day.weekday - weekStart + 7) % 7 == 6 {
                lines.append(String(row.reversed().drop { $0 == " " }.reversed()))
                row = ""
            }
            day = day.adding(days: 1)
        }
        if !row.isEmpty { lines.append(String(row.reversed().drop { $0 == " " }.reversed())) }
        let open = counts.values.reduce(0) { $0 + $1.open }
        let done = counts.values.reduce(0) { $0 + $1.done }
        lines.append("")
        lines.append("\(open) open, \(done) done this month; each day's number of todos beside it, today in [ ]")
        return lines
    }

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
