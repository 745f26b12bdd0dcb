import Foundation
import HearthCore
import Testing

/// A habit's statistics as pure logic, against hand counts.
@Suite("Todo statistics: heatmap days, rates per week and month, weekdays, streak runs")
struct TodoStatisticsTests {
    static func date(_ text: String) throws -> LocalDate { try LocalDate(parsing: text, field: "date") }

    @Test("the first day is the Monday weeks - 1 weeks before today's week")
    func firstDay() throws {
        // 2026-11-26 is a Thursday; its week's Monday is the 23rd.
        #expect(TodoStatistics.firstDay(weeks: 1, today: try Self.date("2026-11-26")).description == "2026-11-23")
        #expect(TodoStatistics.firstDay(weeks: 12, today: try Self.date("2026-11-26")).description == "2026-09-07")
        #expect(TodoStatistics.firstDay(weeks: 1, today: try Self.date("2026-11-23")).description == "2026-11-23")
    }

    @Test("a daily habit over two weeks: each day marked, rates by week and month, best and worst weekday, runs")
    func dailyHabit() throws {
        let from = try Self.date("2026-10-19")  // a Monday
        let today = try Self.date("2026-11-01")  // the Sunday after next
        let dates = (0...13).map { from.adding(days: $0) }
        var marks = HabitMarks()
        // Done Mon–Wed of both weeks and Fri 23rd; skipped Thu 22nd; the rest missed; today pending.
        for offset in [0, 1, 2, 4, 7, 8, 9] { marks[from.adding(days: offset)] = .done }
        marks[from.adding(days: 3)] = .skipped
        let progress = HabitProgress(current: 0, best: 3, strength: 0.4, unit: "day")
        let habit = HabitStatistics(
            id: "h", title: "Stretch", collection: "Habits", progress: progress, dates: dates, marks: marks,
            from: from, today: today)
        #expect(habit.days.count == 14)
        #expect(habit.marks[0] == .done && habit.marks[3] == .skipped && habit.marks[5] == .missed)
        #expect(habit.marks[13] == .pending)
        // Week 1: 6 due (Thu skipped), 4 done; week 2: 6 due (today pending), 3 done.
        #expect(habit.weeks.map(\.start) == ["2026-10-19", "2026-10-26"])
        #expect(habit.weeks.map(\.due) == [6, 6] && habit.weeks.map(\.done) == [4, 3])
        #expect(habit.due == 12 && habit.done == 7)
        // October 19th–31st: 13 days less the skipped Thursday; Sunday 1 November is pending.
        #expect(habit.months.map(\.start) == ["2026-10-01"])
        #expect(habit.months.first?.due == 12 && habit.months.first?.done == 7)
        // Mondays to Wednesdays all done (Monday first on a tie); Thursday (its one due date
        // missed, the other skipped), Saturday and Sunday never: Thursday first on that tie.
        #expect(habit.bestWeekday == 1)
        #expect(habit.worstWeekday == 4)
        // Runs: Mon 19–Fri 23 over the skipped Thursday (4), then Mon 26–Wed 28 (3).
        #expect(
            habit.streaks == [
                StreakRun(start: "2026-10-19", end: "2026-10-23", length: 4),
                StreakRun(start: "2026-10-26", end: "2026-10-28", length: 3),
            ])
    }

    @Test("a weekly habit: days it does not fall on are off, and this week's undone date is pending, not missed")
    func weeklyHabit() throws {
        let from = try Self.date("2026-11-02")
        let today = try Self.date("2026-11-18")  // a Wednesday
        let dates = [from, from.adding(days: 7), from.adding(days: 14)]
        let habit = HabitStatistics(
            id: "w", title: "Plants", collection: "Home",
            progress: HabitProgress(current: 1, best: 1, strength: 0.1, unit: "week"),
            dates: dates, marks: [from.adding(days: 7): .done], from: from, today: today)
        #expect(habit.marks.filter { $0 != .off }.count == 3)
        #expect(habit.marks[0] == .missed && habit.marks[7] == .done && habit.marks[14] == .pending)
        #expect(habit.due == 2 && habit.done == 1)
        #expect(habit.bestWeekday == 1 && habit.worstWeekday == 1)
    }

    @Test("a collection adds its habits week by week and its one-off todos due in the weeks shown")
    func collection() throws {
        let from = try Self.date("2026-11-02")
        let today = try Self.date("2026-11-15")
        let habit = HabitStatistics(
            id: "h", title: "Read", collection: "Home",
            progress: HabitProgress(current: 0, best: 0, strength: 0, unit: "day"),
            dates: [from, from.adding(days: 8)], marks: [from: .done], from: from, today: today)
        var collection = CollectionStatistics(
            id: "c", name: "Home", kind: "list", open: 1, done: 1,
            weeks: [PeriodRate(start: "2026-11-02"), PeriodRate(start: "2026-11-09")], months: [])
        collection.add(habit)
        collection.count(from.adding(days: 9), from: from, done: true)
        collection.count(from.adding(days: -1), from: from, done: true)  // before the weeks shown
        // The habit's second date (Tuesday 10th) is its last and undone: pending, not counted.
        #expect(collection.weeks.map(\.due) == [1, 1] && collection.weeks.map(\.done) == [1, 1])
        #expect(collection.weeks[1].rate == 1)
        #expect(collection.months == [PeriodRate(start: "2026-11-01", due: 2, done: 2)])
        var missed = collection
        missed.count(from.adding(days: 10), from: from, done: false)
        #expect(missed.weeks[1].rate == 0.5)
    }
}
