import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth todo stats`: how the habits and collections went, as a heatmap per habit drawn with
/// block characters, a bar per week, and the figures behind them.
extension Todo {
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "How habits and collections went: a heatmap per habit, rates per week and month, streaks.",
            discussion: """
                Weeks run Monday to Sunday; the last is this week. A heatmap has a row per weekday \
                and a column per week: █ done, ░ missed, ▒ skipped, □ today (or this week) not done \
                yet, · not due. Below it, the week's rate as a bar (▁ to █). Rates count the due dates \
                that are over; skipped days are not due. Coloured on a terminal unless NO_COLOR is set.
                """)

        @OptionGroup var options: GlobalOptions
        @Option(help: "Only this collection (name or id).") var collection: String?
        @Option(help: "How many weeks back, 1 to 53.") var weeks = 12

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, TodoCommands.Stats(collection: collection, weeks: weeks))
            if options.json { return try Output.reply(reply) }
            let colour = ProcessInfo.processInfo.environment["NO_COLOR"] == nil && isatty(STDOUT_FILENO) == 1
            for line in StatsText(colour: colour).lines(reply) { Output.line(line) }
        }
    }
}

/// The statistics as terminal lines (pure, for tests): each habit's heatmap and figures, then
/// the collections.
struct StatsText {
    /// ANSI colours on the marks (done green, missed red, skipped yellow, pending cyan, off dim).
    let colour: Bool

    static let glyphs: [DayMark: String] = [.done: "█", .missed: "░", .skipped: "▒", .pending: "□", .off: "·"]
    private static let codes: [DayMark: String] = [
        .done: "32", .missed: "31", .skipped: "33", .pending: "36", .off: "2",
    ]
    static let bars = Array("▁▂▃▄▅▆▇█")

    func lines(_ stats: TodoStatistics) -> [String] {
        var lines = ["Habits, \(stats.from) to \(stats.to) (\(stats.weeks) week\(stats.weeks == 1 ? "" : "s"))"]
        if stats.habits.isEmpty { lines.append("  no habits in these weeks") }
        for habit in stats.habits {
            lines.append("")
            lines += self.habit(habit, weeks: stats.weeks)
        }
        lines.append("")
        lines.append(
            "Collections        open  done  by week" + String(repeating: " ", count: max(0, stats.weeks - 7)) + "  rate"
        )
        for collection in stats.collections {
            let due = collection.weeks.reduce(0) { $0 + $1.due }
            let done = collection.weeks.reduce(0) { $0 + $1.done }
            let name = Output.visible(collection.name)
            let padded =
                name.count < 17
                ? name.padding(toLength: 17, withPad: " ", startingAt: 0) : String(name.prefix(16)) + "…"
            lines.append(
                "  \(padded)\(Self.right(collection.open, 4))  \(Self.right(collection.done, 4))  "
                    + Self.sparkline(collection.weeks).padding(
                        toLength: max(7, stats.weeks), withPad: " ", startingAt: 0)
                    + "  " + PeriodRate.percent(done, due))
        }
        return lines
    }

    /// A habit: its title and streak, the heatmap (a row per weekday, a column per week), the
    /// week's rate as a bar, then done of due, the months, the weekdays and the streak runs.
    func habit(_ habit: HabitStatistics, weeks: Int) -> [String] {
        var lines = ["\(Output.visible(habit.title)) · \(Output.visible(habit.collection)) · \(habit.progress.summary)"]
        let marks = habit.marks
        for weekday in 0..<7 {
            var row = "  " + CalendarView.weekdays[weekday] + " "
            for week in 0..<weeks {
                let index = week * 7 + weekday
                row += " " + (index < habit.days.count ? cell(marks[index]) : " ")
            }
            lines.append(String(row.reversed().drop { $0 == " " }.reversed()))  // days after today
        }
        lines.append("  week" + habit.weeks.map { " " + Self.bar($0.rate) }.joined())
        var figures = "  \(habit.done) done of \(habit.due) due (\(PeriodRate.percent(habit.done, habit.due)))"
        if let best = habit.bestWeekday, let worst = habit.worstWeekday, best != worst {
            figures += " · best \(Self.weekdayName(best)), worst \(Self.weekdayName(worst))"
        }
        lines.append(figures)
        let months = habit.months.map { "\($0.monthLabel) \(PeriodRate.percent($0.done, $0.due))" }
        if !months.isEmpty { lines.append("  by month: " + months.joined(separator: " · ")) }
        if !habit.streaks.isEmpty {
            let runs = habit.streaks.suffix(5).map { "\($0.length) (\($0.start) – \($0.end))" }
            lines.append("  streaks: " + runs.joined(separator: ", "))
        }
        return lines
    }

    func cell(_ mark: DayMark) -> String {
        let glyph = Self.glyphs[mark] ?? "?"
        guard colour, let code = Self.codes[mark] else { return glyph }
        return "\u{1B}[\(code)m\(glyph)\u{1B}[0m"
    }

    /// ▁ for 0 up to █ for 1; a space when nothing was due.
    static func bar(_ rate: Double?) -> String {
        guard let rate else { return " " }
        return String(bars[min(bars.count - 1, Int((rate * Double(bars.count - 1)).rounded()))])
    }

    static func sparkline(_ rates: [PeriodRate]) -> String { rates.map { bar($0.rate) }.joined() }

    static func right(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    static func weekdayName(_ weekday: Int) -> String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][max(0, min(6, weekday - 1))]
    }

}
