import Foundation
import HearthCore
import Testing

@Suite("Local dates and times: weeks, months, the wall clock, the lesson on now")
struct LocalCalendarTests {
    private func date(_ text: String) -> LocalDate { try! LocalDate(parsing: text, field: "date") }
    private func time(_ text: String) -> LocalTime { try! LocalTime(parsing: text, field: "time") }

    @Test("a week starts on the household's first day; a month runs to its last day, February's in a leap year")
    func weeksAndMonths() {
        // Thursday 26 November 2026.
        #expect(date("2026-11-26").week(startingOn: 1) == (date("2026-11-23"), date("2026-11-29")))
        #expect(date("2026-11-26").week(startingOn: 7) == (date("2026-11-22"), date("2026-11-28")))
        #expect(date("2026-11-22").week(startingOn: 7) == (date("2026-11-22"), date("2026-11-28")))
        #expect(date("2028-02-10").wholeMonth == (date("2028-02-01"), date("2028-02-29")))
        #expect(date("2026-12-31").wholeMonth == (date("2026-12-01"), date("2026-12-31")))
    }

    @Test("the wall-clock time at an instant follows the zone's offset on that day (summer and winter)")
    func wallClock() {
        let london = TimeZone(identifier: "Europe/London")!
        // 2026-07-01 10:00 UTC is 11:00 in London's summer time; 2026-11-28 21:06:40 UTC is the same in winter.
        #expect(LocalTime(Date(timeIntervalSince1970: 1_782_900_000), in: london) == time("11:00:00"))
        #expect(LocalTime(Date(timeIntervalSince1970: 1_795_900_000), in: london) == time("21:06:40"))
        #expect(LocalTime(Date(timeIntervalSince1970: -1), in: TimeZone(identifier: "UTC")!) == time("23:59:59"))
    }

    @Test("the lesson on now and the next: the soonest to start, though lessons with their own times run out of order")
    func nowAndNext() {
        let lessons: [(start: LocalTime?, end: LocalTime?)] = [
            (time("09:00"), time("10:00")), (time("13:00"), time("14:00")), (time("11:00"), time("12:00")),
            (nil, nil),
        ]
        #expect(SchoolCalendar.nowAndNext(lessons, at: time("09:30")) == (0, 2))
        #expect(SchoolCalendar.nowAndNext(lessons, at: time("10:00")) == (nil, 2))
        #expect(SchoolCalendar.nowAndNext(lessons, at: time("11:59:59")) == (2, 1))
        #expect(SchoolCalendar.nowAndNext(lessons, at: time("14:00")) == (nil, nil))
    }
}
