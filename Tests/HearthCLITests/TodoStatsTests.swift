import HearthCore
import Testing

@testable import HearthCLI

@Suite(
    "hearth todo stats: the heatmap in block characters, the bars, and colour only when asked", .timeLimit(.minutes(1)))
struct TodoStatsTests {
    /// Stretch over two weeks from Monday 2 March 2026 to Wednesday the 11th.
    static func statistics() throws -> TodoStatistics {
        let from = try LocalDate(parsing: "2026-03-02", field: "from")
        let today = try LocalDate(parsing: "2026-03-11", field: "today")
        var marks = HabitMarks()
        for offset in [0, 1, 2, 4, 7, 8] { marks[from.adding(days: offset)] = .done }
        marks[from.adding(days: 3)] = .skipped
        let habit = HabitStatistics(
            id: "h", title: "Stretch", collection: "Habits",
            progress: HabitProgress(current: 2, best: 4, strength: 0.31, unit: "day"),
            dates: (0...9).map { from.adding(days: $0) }, marks: marks, from: from, today: today)
        let home = CollectionStatistics(
            id: "c", name: "Home", kind: "list", open: 1, done: 1,
            weeks: [
                PeriodRate(start: "2026-03-02", due: 1, done: 0), PeriodRate(start: "2026-03-09", due: 1, done: 1),
            ],
            months: [PeriodRate(start: "2026-03-01", due: 2, done: 1)])
        return TodoStatistics(from: "2026-03-02", to: "2026-03-11", weeks: 2, habits: [habit], collections: [home])
    }

    @Test("without colour: a row per weekday, a column per week, the week's bar, done of due, months, weekdays, runs")
    func plain() throws {
        let lines = StatsText(colour: false).lines(try Self.statistics())
        #expect(
            Array(lines.prefix(14)) == [
                "Habits, 2026-03-02 to 2026-03-11 (2 weeks)",
                "",
                "Stretch · Habits · 2-day streak · best 4 · strength 31%",
                "  Mon  █ █",
                "  Tue  █ █",
                "  Wed  █ □",
                "  Thu  ▒",
                "  Fri  █",
                "  Sat  ░",
                "  Sun  ░",
                "  week ▆ █",
                "  6 done of 8 due (75%) · best Monday, worst Saturday",
                "  by month: Mar 2026 75%",
                "  streaks: 4 (2026-03-02 – 2026-03-06), 2 (2026-03-09 – 2026-03-10)",
            ])
        #expect(lines.contains("  Home                1     1  ▁█       50%"))
        #expect(!lines.joined().contains("\u{1B}"))
    }

    @Test("with colour: each mark in its colour, the text around it plain")
    func coloured() throws {
        let lines = StatsText(colour: true).lines(try Self.statistics())
        #expect(lines[3] == "  Mon  \u{1B}[32m█\u{1B}[0m \u{1B}[32m█\u{1B}[0m")
        #expect(lines[8].contains("\u{1B}[31m░\u{1B}[0m"))
        #expect(lines[6].contains("\u{1B}[33m▒\u{1B}[0m") && lines[5].contains("\u{1B}[36m□\u{1B}[0m"))
        #expect(lines[0] == "Habits, 2026-03-02 to 2026-03-11 (2 weeks)")
    }
}

@Suite("hearth todo show: the skipped days line says how many it leaves out", .timeLimit(.minutes(1)))
struct SkippedLineTests {
    @Test("six skipped days: the latest five and '… and 1 more'; five or fewer: all of them")
    func skippedLine() {
        let days = (3...8).map { "2026-03-0\($0)" }
        #expect(
            Todo.skippedLine(days)
                == "  skipped on 6 days: 2026-03-04, 2026-03-05, 2026-03-06, 2026-03-07, 2026-03-08 and 1 more")
        #expect(Todo.skippedLine(Array(days.prefix(2))) == "  skipped on 2 days: 2026-03-03, 2026-03-04")
        #expect(Todo.skippedLine(["2026-03-03"]) == "  skipped on 1 day: 2026-03-03")
    }
}
