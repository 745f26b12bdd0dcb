import Foundation
import HearthCalendar
import Testing

@Suite("The household's zone as a VTIMEZONE: IANA's name, and the rules in force", .timeLimit(.minutes(1)))
struct CalendarTimeZoneTests {
    @Test("London: its TZID, rules for ever after 2037, nothing from the 1800s; Tokyo: standard time kept; UTC: none")
    func zones() throws {
        let london = try #require(CalendarTimeZone.text(TimeZone(identifier: "Europe/London")!))
        #expect(london.hasPrefix("BEGIN:VTIMEZONE\r\nTZID:Europe/London\r\n"), "\(london)")
        #expect(london.contains("RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\n"), "\(london)")
        #expect(london.contains("RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\n"), "\(london)")
        #expect(!london.contains("DTSTART:18"), "\(london)")
        #expect(london.components(separatedBy: "\r\n").count < 60)
        // No daylight saving since 1951: the standard time in force is what is left.
        let tokyo = try #require(CalendarTimeZone.text(TimeZone(identifier: "Asia/Tokyo")!))
        #expect(tokyo.contains("BEGIN:STANDARD") && tokyo.contains("TZOFFSETTO:+0900"), "\(tokyo)")
        #expect(!tokyo.contains("BEGIN:DAYLIGHT"), "\(tokyo)")
        #expect(CalendarTimeZone.text(TimeZone(identifier: "UTC")!) == nil)
    }
}
