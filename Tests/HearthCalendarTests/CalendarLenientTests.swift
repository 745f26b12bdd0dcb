import Foundation
import HearthBus
import HearthCalendar
import HearthCore
import Testing

/// What real calendars carry that the files written for the other tests do not: each case as a
/// calendar app writes it, and the busy times a person expects from it.
@Suite("Calendar files: read as leniently as the best readers", .timeLimit(.minutes(1)))
struct CalendarLenientTests {
    private let london = TimeZone(identifier: "Europe/London")!

    private func date(_ text: String) -> LocalDate { try! LocalDate(parsing: text, field: "date") }

    private func read(
        _ events: String, calendar: String = "", from: String = "2026-10-01", through: String = "2026-11-30"
    )
        throws -> CalendarFile.Reading
    {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n\(calendar)\(events)END:VCALENDAR\r\n"
        return try CalendarFile.read(text, from: date(from), through: date(through), zone: london)
    }

    private func starts(_ reading: CalendarFile.Reading, _ uid: String? = nil) -> [String] {
        let format = ISO8601DateFormatter()
        return reading.busy.filter { uid == nil || $0.uid == uid }.map { format.string(from: $0.start) }
    }

    @Test("an empty property (Google's DESCRIPTION:) is a warning on its event, not its refusal")
    func emptyProperty() throws {
        let reading = try read(
            "BEGIN:VEVENT\r\nUID:g1\r\nDESCRIPTION:\r\nDTSTART:20261005T090000Z\r\nDTEND:20261005T100000Z\r\nEND:VEVENT\r\n"
        )
        #expect(starts(reading) == ["2026-10-05T09:00:00Z"])
        #expect(reading.errors.isEmpty)
        #expect(reading.warnings.count == 1, "\(reading.warnings)")
        // In words, not libical's "Removing entire property:" with nothing after it.
        #expect(reading.warnings.first?.reason == "DESCRIPTION has no value: left out", "\(reading.warnings)")
    }

    @Test("only an event that cannot be placed in time is refused, and the reason says so")
    func noStart() throws {
        let reading = try read("BEGIN:VEVENT\r\nUID:x\r\nSUMMARY:When?\r\nEND:VEVENT\r\n")
        #expect(reading.busy.isEmpty)
        #expect(reading.errors.first?.reason == "has no usable DTSTART, so it cannot be placed in time")
        let unreadable = try read("BEGIN:VEVENT\r\nUID:y\r\nDTSTART:nope\r\nEND:VEVENT\r\n")
        #expect(
            unreadable.errors.first?.reason.contains("DTSTART property ('nope'): left out") == true,
            "\(unreadable.errors)")
    }

    @Test("an event without a UID gets one from its content: the same on every read, another for another event")
    func derivedUID() throws {
        let event =
            "BEGIN:VEVENT\r\nSUMMARY:Swim\r\nDTSTART:20261006T170000Z\r\nDTEND:20261006T180000Z\r\nEND:VEVENT\r\n"
        let first = try read(event)
        let again = try read(event)
        let other = try read(event.replacingOccurrences(of: "Swim", with: "Run"))
        let uid = try #require(first.busy.first?.uid)
        #expect(first.busy.first?.derivedUID == true)
        #expect(again.busy.first?.uid == uid)
        #expect(other.busy.first?.uid != uid)
        #expect(first.uids == [uid])
    }

    @Test("several RRULEs are a union; a DATE RECURRENCE-ID cancels its day of a timed series")
    func rulesAndOverrides() throws {
        let reading = try read(
            """
            BEGIN:VEVENT\r
            UID:club\r
            DTSTART;TZID=Europe/London:20261005T180000\r
            DTEND;TZID=Europe/London:20261005T190000\r
            RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3\r
            RRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=2\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:club\r
            RECURRENCE-ID;VALUE=DATE:20261012\r
            DTSTART;TZID=Europe/London:20261012T180000\r
            DTEND;TZID=Europe/London:20261012T190000\r
            STATUS:CANCELLED\r
            END:VEVENT\r

            """)
        // Mondays 5, (12 cancelled), 19; Thursdays 8, 15; summer time until the 25th.
        #expect(
            starts(reading, "club") == [
                "2026-10-05T17:00:00Z", "2026-10-08T17:00:00Z", "2026-10-15T17:00:00Z", "2026-10-19T17:00:00Z",
            ])
    }

    @Test("RANGE=THISANDFUTURE moves that occurrence and every later one by its shift, with its length")
    func thisAndFuture() throws {
        let reading = try read(
            """
            BEGIN:VEVENT\r
            UID:lesson\r
            DTSTART:20261005T160000Z\r
            DTEND:20261005T170000Z\r
            RRULE:FREQ=WEEKLY;COUNT=4\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:lesson\r
            RECURRENCE-ID;RANGE=THISANDFUTURE:20261019T160000Z\r
            DTSTART:20261019T170000Z\r
            DTEND:20261019T173000Z\r
            END:VEVENT\r

            """)
        #expect(
            starts(reading, "lesson") == [
                "2026-10-05T16:00:00Z", "2026-10-12T16:00:00Z", "2026-10-19T17:00:00Z", "2026-10-26T17:00:00Z",
            ])
        #expect(reading.busy.last.map { $0.end.timeIntervalSince($0.start) } == 1_800)
    }

    @Test("Google: a series in UTC with X-WR-TIMEZONE repeats at its local time across the clock change")
    func calendarZone() throws {
        let reading = try read(
            "BEGIN:VEVENT\r\nUID:gym\r\nDTSTART:20261020T070000Z\r\nDTEND:20261020T080000Z\r\nRRULE:FREQ=WEEKLY;COUNT=2\r\nEND:VEVENT\r\n",
            calendar: "X-WR-TIMEZONE:Europe/Berlin\r\n")
        // 09:00 in Berlin both weeks: 07:00 UTC in summer time, 08:00 after 25 October.
        #expect(starts(reading, "gym") == ["2026-10-20T07:00:00Z", "2026-10-27T08:00:00Z"])
    }

    @Test("Outlook's Windows zone names, vendor prefixes and a custom VTIMEZONE are IANA zones")
    func zones() throws {
        let reading = try read(
            """
            BEGIN:VTIMEZONE\r
            TZID:Our Office\r
            BEGIN:STANDARD\r
            DTSTART:19701025T030000\r
            RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
            TZOFFSETFROM:+0200\r
            TZOFFSETTO:+0100\r
            END:STANDARD\r
            BEGIN:DAYLIGHT\r
            DTSTART:19700329T020000\r
            RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
            TZOFFSETFROM:+0100\r
            TZOFFSETTO:+0200\r
            END:DAYLIGHT\r
            END:VTIMEZONE\r
            BEGIN:VEVENT\r
            UID:outlook\r
            DTSTART;TZID="W. Europe Standard Time":20261005T090000\r
            DTEND;TZID="W. Europe Standard Time":20261005T100000\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:mozilla\r
            DTSTART;TZID=/mozilla.org/20070129_1/America/New_York:20261005T090000\r
            DTEND;TZID=/mozilla.org/20070129_1/America/New_York:20261005T100000\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:custom\r
            DTSTART;TZID=Our Office:20261105T090000\r
            DTEND;TZID=Our Office:20261105T100000\r
            END:VEVENT\r

            """)
        #expect(starts(reading, "outlook") == ["2026-10-05T07:00:00Z"])
        #expect(starts(reading, "mozilla") == ["2026-10-05T13:00:00Z"])
        #expect(starts(reading, "custom") == ["2026-11-05T08:00:00Z"])
        #expect(reading.errors.isEmpty && reading.warnings.isEmpty, "\(reading.errors) \(reading.warnings)")
    }

    @Test("a VTIMEZONE that disagrees with the IANA zone of its name: IANA's rules, and a warning")
    func disagreeingZone() throws {
        let reading = try read(
            """
            BEGIN:VTIMEZONE\r
            TZID:Europe/London\r
            BEGIN:STANDARD\r
            DTSTART:19700101T000000\r
            TZOFFSETFROM:+0000\r
            TZOFFSETTO:+0000\r
            END:STANDARD\r
            END:VTIMEZONE\r
            BEGIN:VEVENT\r
            UID:tea\r
            DTSTART;TZID=Europe/London:20261005T160000\r
            DTEND;TZID=Europe/London:20261005T170000\r
            END:VEVENT\r

            """)
        #expect(starts(reading, "tea") == ["2026-10-05T15:00:00Z"])
        #expect(reading.warnings.contains { $0.reason.contains("disagrees with the IANA zone") })
    }

    @Test("RDATE as periods (each with its length) and EXDATEs on several lines")
    func datesAndPeriods() throws {
        let reading = try read(
            """
            BEGIN:VEVENT\r
            UID:p\r
            DTSTART:20261005T090000Z\r
            DURATION:PT1H\r
            RRULE:FREQ=DAILY;COUNT=4\r
            EXDATE:20261006T090000Z\r
            EXDATE:20261007T090000Z\r
            RDATE;VALUE=PERIOD:20261010T120000Z/PT2H,20261011T120000Z/20261011T150000Z\r
            END:VEVENT\r

            """)
        #expect(
            starts(reading, "p") == [
                "2026-10-05T09:00:00Z", "2026-10-08T09:00:00Z", "2026-10-10T12:00:00Z", "2026-10-11T12:00:00Z",
            ])
        #expect(reading.busy.map { Int($0.end.timeIntervalSince($0.start)) } == [3_600, 3_600, 7_200, 10_800])
    }
}
