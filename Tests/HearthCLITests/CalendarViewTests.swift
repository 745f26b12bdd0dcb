import HearthCore
import Testing

@testable import HearthCLI

@Suite("hearth calendar: the days each view shows, and its colours", .timeLimit(.minutes(1)))
struct CalendarViewTests {
    private func date(_ text: String) -> LocalDate { try! LocalDate(parsing: text, field: "date") }

    @Test("a week starts on Monday, or Sunday when the household says so; a month is the whole month")
    func ranges() {
        // 2026-11-25 is a Wednesday.
        let wednesday = date("2026-11-25")
        #expect(CalendarView.range(.week, around: wednesday, weekStart: 1) == (date("2026-11-23"), date("2026-11-29")))
        #expect(CalendarView.range(.week, around: wednesday, weekStart: 7) == (date("2026-11-22"), date("2026-11-28")))
        #expect(CalendarView.range(.week, around: date("2026-11-22"), weekStart: 1).0 == date("2026-11-16"))
        #expect(
            CalendarView.range(.month, around: date("2028-02-10"), weekStart: 1) == (
                date("2028-02-01"), date("2028-02-29")
            ))
        #expect(CalendarView.range(.day, around: wednesday, weekStart: 1) == (wednesday, wednesday))
    }

    @Test("priorities are painted with ANSI colours; none is left plain")
    func colours() {
        #expect(CalendarView.paint("x", "high") == "\u{1B}[31mx\u{1B}[0m")
        #expect(CalendarView.paint("x", "low") == "\u{1B}[34mx\u{1B}[0m")
        #expect(CalendarView.paint("x", "none") == "x")
    }
}
