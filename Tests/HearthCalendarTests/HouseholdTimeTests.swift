import Foundation
import HearthCalendar
import HearthCore
import Testing

@Suite("Household time: wall clock to instants across daylight saving", .timeLimit(.minutes(1)))
struct HouseholdTimeTests {
    private func date(_ text: String) -> LocalDate { try! LocalDate(parsing: text, field: "date") }
    private func time(_ text: String) -> LocalTime { try! LocalTime(parsing: text, field: "time") }
    private func iso(_ instant: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: instant)
    }

    @Test(
        "09:00 stays 09:00 local across both changes; a repeated 01:30 is the first; a skipped time moves on by the gap",
        arguments: [
            // zone, spring-forward day, autumn-back day, the repeated 01:30's first reading (UTC),
            // a time in the spring gap (London skips 01:00–02:00, New York 02:00–03:00), its reading
            ("Europe/London", "2026-03-29", "2026-10-25", "2026-10-25T00:30:00Z", "01:30", "2026-03-29T01:30:00Z"),
            ("America/New_York", "2026-03-08", "2026-11-01", "2026-11-01T05:30:00Z", "02:30", "2026-03-08T07:30:00Z"),
        ])
    func daylightSaving(
        zone: String, spring: String, autumn: String, repeated: String, skippedTime: String, gap: String
    ) {
        let household = HouseholdTime(timeZone: TimeZone(identifier: zone)!)
        for day in [
            date(spring).adding(days: -1), date(spring), date(spring).adding(days: 1), date(autumn),
            date(autumn).adding(days: 1),
        ] {
            let instant = household.instant(day, time("09:00"))
            #expect(household.wallClock(at: instant).date == day)
            #expect(household.wallClock(at: instant).time == time("09:00"), "\(zone) \(day)")
        }
        let first = household.instant(date(autumn), time("01:30"))
        #expect(iso(first) == repeated)
        #expect(household.wallClock(at: first).time == time("01:30"))
        let skipped = household.instant(date(spring), time(skippedTime))
        #expect(iso(skipped) == gap)
        // RFC 5545 §3.3.5: the offset before the gap, so an hour later on the clock.
        #expect(household.wallClock(at: skipped).time.hour == time(skippedTime).hour + 1)
        // Each day has one 09:00: consecutive days' reminders are one calendar day apart.
        let gaps = (0..<10).map { offset in
            household.instant(date(spring).adding(days: offset - 5 + 1), time("09:00")).timeIntervalSince(
                household.instant(date(spring).adding(days: offset - 5), time("09:00")))
        }
        #expect(gaps.allSatisfy { [82_800, 86_400].contains($0) }, "\(gaps)")
    }

    @Test("today and the wall clock follow the zone, not UTC")
    func today() {
        let household = HouseholdTime(timeZone: TimeZone(identifier: "America/New_York")!)
        let instant = try! Date("2026-07-01T02:30:00Z", strategy: .iso8601)
        #expect(household.today(at: instant) == date("2026-06-30"))
        #expect(household.wallClock(at: instant).time == time("22:30"))
    }
}
