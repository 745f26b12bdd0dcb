import Foundation
import Testing

@testable import HearthCore

/// Streaks and strength on their own: due dates in, marks in, figures out.
@Suite("Habit progress: streaks and strength", .timeLimit(.minutes(1)))
struct HabitProgressTests {
    static let start = LocalDate(dayNumber: 20_500)

    /// `count` daily due dates from `start`, marked by `pattern` ("d" done, "s" skipped, "." missed).
    static func daily(_ pattern: String) -> HabitProgress {
        let dates = (0..<pattern.count).map { start.adding(days: $0) }
        var marks = HabitMarks()
        for (date, mark) in zip(dates, pattern) {
            switch mark {
            case "d": marks[date] = .done
            case "s": marks[date] = .skipped
            default: break
            }
        }
        return HabitProgress.of(dates: dates, marks: marks, period: 1, unit: "day")
    }

    @Test("done days in a row; today (the last date) not yet done is pending, not a break")
    func pending() {
        #expect(Self.daily("ddddd.").current == 5)
        #expect(Self.daily("ddddd").current == 5)
        #expect(Self.daily("ddddd..").current == 0, "yesterday missed breaks it")
        #expect(Self.daily("ddd.dd.").best == 3)
        #expect(Self.daily("ddd.dd.").current == 2)
        #expect(Self.daily("").current == 0 && Self.daily("").strength == 0)
    }

    @Test("a skipped day neither breaks nor extends a streak; a streak never begins or ends on one")
    func skipped() {
        #expect(Self.daily("ddsdd").current == 4)
        #expect(Self.daily("sdd").current == 2)
        #expect(Self.daily("dds").current == 2)
        #expect(Self.daily("ss").current == 0 && Self.daily("ss").best == 0)
        #expect(Self.daily("dd.sdd").current == 2, "a skip does not mend a miss")
        // Strength is left as it was on a skipped day.
        #expect(Self.daily("ddsdd").strength == Self.daily("dddd").strength)
    }

    @Test("strength: 13 days done from nothing is 50%; after 60 days one miss takes 96% to 91%; one day in two ≈ 50%")
    func strength() {
        #expect(abs(Self.daily(String(repeating: "d", count: 13)).strength - 0.5) < 1e-12)
        let long = Self.daily(String(repeating: "d", count: 60))
        #expect(Int((long.strength * 100).rounded()) == 96)
        let lapse = Self.daily(String(repeating: "d", count: 60) + ".d")
        #expect(Int((lapse.strength * 100).rounded()) == 91, "\(lapse.strength)")
        let alternate = Self.daily(String(repeating: "d.", count: 200) + "d")
        #expect(alternate.strength > 0.49 && alternate.strength < 0.52, "\(alternate.strength)")
        #expect(lapse.summary == "1-day streak · best 60 · strength 91%")
    }

    @Test("a weekly habit counts in weeks, with a half-life of 13/√7 ≈ 4.9 weeks")
    func weekly() {
        let dates = (0..<6).map { Self.start.adding(days: 7 * $0) }
        var marks = HabitMarks()
        for date in dates.prefix(5) { marks[date] = .done }
        let progress = HabitProgress.of(dates: dates, marks: marks, period: 7, unit: "week")
        #expect(progress.current == 5 && progress.streakText == "5-week streak")
        let m = pow(0.5, 7.0.squareRoot() / 13)
        #expect(abs(progress.strength - (1 - pow(m, 5))) < 1e-12)
        #expect(abs(13 / 7.0.squareRoot() - 4.9135) < 0.001)
    }

    @Test("day marks: set before, inside and after the window, cleared, and read outside it as unmarked")
    func marks() {
        let day = Self.start
        var marks = HabitMarks(from: day, through: day.adding(days: 9))
        #expect(marks[day] == nil && marks[day.adding(days: 9)] == nil && marks[day.adding(days: -1)] == nil)
        marks[day.adding(days: 3)] = .done
        marks[day.adding(days: -5)] = .skipped  // before the window: it grows backwards
        marks[day.adding(days: 40)] = .done  // after it: forwards
        #expect(marks[day.adding(days: 3)] == .done && marks[day.adding(days: -5)] == .skipped)
        #expect(marks[day.adding(days: 40)] == .done && marks[day.adding(days: 39)] == nil)
        #expect(marks[day: day.adding(days: 3).dayNumber] == .done)
        marks[day.adding(days: 3)] = nil
        marks[day.adding(days: 500)] = nil  // clearing a day never marked changes nothing
        #expect(marks[day.adding(days: 3)] == nil && marks[day.adding(days: 500)] == nil)
        var empty = HabitMarks()
        empty[day.adding(days: -2)] = nil
        #expect(empty[day.adding(days: -2)] == nil)
        empty[LocalDate(dayNumber: -3)] = .done  // before 1970
        #expect(empty[LocalDate(dayNumber: -3)] == .done && empty[LocalDate(dayNumber: -2)] == nil)
        let literal: HabitMarks = [day: .done, day.adding(days: 2): .skipped]
        #expect(
            literal[day] == .done && literal[day.adding(days: 1)] == nil && literal[day.adding(days: 2)] == .skipped)
    }
}
