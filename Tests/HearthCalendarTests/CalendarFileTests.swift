import Foundation
import HearthBus
import HearthCalendar
import HearthCore
import HearthTesting
import Testing

/// The reads that expand runaway rules compute for up to a second or more: they run on a thread of
/// their own (`offPool`), as the store runs them, so they hold none of the cooperative pool's two
/// threads while the parallel suite's timers wait.
@Suite("iCalendar busy times in, check-ins out", .timeLimit(.minutes(1)))
struct CalendarFileTests {
    let london = TimeZone(identifier: "Europe/London")!
    let from = LocalDate(year: 2026, month: 10, day: 19)!
    let through = LocalDate(year: 2026, month: 11, day: 15)!

    static let file = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Test//EN\r
        BEGIN:VEVENT\r
        UID:standup@work\r
        SUMMARY:Standup\r
        DTSTART;TZID=America/New_York:20261019T090000\r
        DTEND;TZID=America/New_York:20261019T093000\r
        RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=5\r
        EXDATE;TZID=America/New_York:20261026T090000\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:standup@work\r
        RECURRENCE-ID;TZID=America/New_York:20261109T090000\r
        SUMMARY:Standup (moved)\r
        DTSTART;TZID=America/New_York:20261109T150000\r
        DURATION:PT1H\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:dentist\r
        SUMMARY:Dentist\r
        DTSTART:20261021T140000\r
        DTEND:20261021T150000\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:flight\r
        SUMMARY:Flight\r
        DTSTART:20261022T080000Z\r
        DURATION:PT2H30M\r
        RDATE:20261029T080000Z\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:holiday\r
        SUMMARY:Half term\r
        DTSTART;VALUE=DATE:20261026\r
        DTEND;VALUE=DATE:20261028\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:free\r
        SUMMARY:Maybe lunch\r
        DTSTART:20261020T120000Z\r
        DTEND:20261020T130000Z\r
        TRANSP:TRANSPARENT\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:off\r
        SUMMARY:Cancelled gym\r
        STATUS:CANCELLED\r
        DTSTART:20261020T180000Z\r
        DTEND:20261020T190000Z\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:broken\r
        SUMMARY:Broken\r
        DTSTART:notadate\r
        DTEND:20261020T190000Z\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:nowhere\r
        DTSTART;TZID=Mars/Olympus:20261020T100000\r
        DTEND;TZID=Mars/Olympus:20261020T110000\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:backwards\r
        DTSTART:20261020T100000Z\r
        DTEND:20261020T090000Z\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    private func utc(_ text: String) -> Date { Timestamp.parse(text)! }

    @Test("time zones, floating and UTC times, all-day events, recurrences with exceptions and overrides")
    func reads() throws {
        let reading = try CalendarFile.read(Self.file, from: from, through: through, zone: london)
        let byUID = Dictionary(grouping: reading.busy, by: \.uid)
        // New York's 09:00 is 13:00 UTC in summer time and 14:00 UTC after 1 November; the 26th
        // is excluded, the 9th moved to 15:00 for an hour; COUNT=5 ends on the 16th (outside).
        let standups = try #require(byUID["standup@work"]).map {
            [Timestamp.format($0.start), Timestamp.format($0.end)]
        }
        #expect(
            standups == [
                ["2026-10-19T13:00:00.000Z", "2026-10-19T13:30:00.000Z"],
                ["2026-11-02T14:00:00.000Z", "2026-11-02T14:30:00.000Z"],
                ["2026-11-09T20:00:00.000Z", "2026-11-09T21:00:00.000Z"],
            ])
        // Floating: the household's (London's) 14:00, summer time.
        #expect(byUID["dentist"]?.map(\.start) == [utc("2026-10-21T13:00:00Z")])
        #expect(byUID["flight"]?.map(\.start) == [utc("2026-10-22T08:00:00Z"), utc("2026-10-29T08:00:00Z")])
        #expect(byUID["flight"]?.first?.end == utc("2026-10-22T10:30:00Z"))
        // All day from London's midnight (GMT again by then) for two days.
        let holiday = try #require(byUID["holiday"]?.first)
        #expect(holiday.allDay)
        #expect(holiday.start == utc("2026-10-26T00:00:00Z") && holiday.end == utc("2026-10-28T00:00:00Z"))
        #expect(byUID["free"] == nil && byUID["off"] == nil)
        #expect(reading.free == 2)
        let errors = Dictionary(uniqueKeysWithValues: reading.errors.map { ($0.event, $0.reason) })
        #expect(errors.count == 2, "\(reading.errors)")
        #expect(errors.keys.contains { $0.contains("UID broken") })
        // A zone no one knows is no reason to drop the event (issue 42): it is read as floating
        // time, in the household's zone, and the warning names the TZID.
        #expect(reading.warnings.contains { $0.reason.contains("unknown time zone TZID=Mars/Olympus") })
        #expect(byUID["nowhere"]?.map(\.start) == [utc("2026-10-20T09:00:00Z")])
        #expect(errors.first { $0.key.contains("backwards") }?.value.contains("before it starts") == true)
        #expect(reading.uids.isSuperset(of: ["standup@work", "dentist", "broken", "free"]))
    }

    @Test("a text that is no calendar is refused whole; a runaway rule is reported, not expanded forever")
    func refuses() async throws {
        #expect(throws: CalendarFile.FileError.self) {
            try CalendarFile.read("name,date\nAnn,2026-01-01\n", from: from, through: through, zone: london)
        }
        let minutely = """
            BEGIN:VCALENDAR\r
            BEGIN:VEVENT\r
            UID:tick\r
            DTSTART:20261020T000000Z\r
            DURATION:PT1M\r
            RRULE:FREQ=MINUTELY\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let reading = try await readOffPool(minutely)
        #expect(reading.busy.isEmpty)
        #expect(reading.errors.first?.reason.contains("more than") == true)
        // Every second since 2020: millions of steps before the range; stopped and reported.
        let secondly = minutely.replacingOccurrences(of: "FREQ=MINUTELY", with: "FREQ=SECONDLY;COUNT=900000000")
            .replacingOccurrences(of: "20261020T000000Z", with: "20200101T000000Z")
        // By the step budget: with a time limit it cannot reach first. (Under the default 3 s, a
        // machine on a slow stretch with the parallel suite beside it reached the time limit
        // first: CI, 2026-11-27.)
        let byStep = try await readOffPool(secondly, timeLimit: .seconds(120))
        #expect(byStep.busy.isEmpty)
        #expect(byStep.errors.first?.reason.contains("repeats too often") == true, "\(byStep.errors)")
        // And promptly with the default limits, whichever of them is reached first.
        let clock = ContinuousClock()
        let start = clock.now
        let stopped = try await readOffPool(secondly)
        #expect(stopped.busy.isEmpty && stopped.errors.count == 1, "\(stopped.errors)")
        #expect(clock.now - start < .seconds(5))
    }

    /// `CalendarFile.read` over the suite's range on a thread of its own (see the suite's note).
    private func readOffPool(
        _ text: String, timeLimit: Duration = CalendarFile.maximumExpansionTime
    ) async throws -> CalendarFile.Reading {
        try await offPool { [from, through, london] in
            try CalendarFile.read(text, from: from, through: through, zone: london, timeLimit: timeLimit)
        }
    }

    /// One VCALENDAR of `events`, each a UID, a DTSTART and an RRULE.
    private static func calendar(_ events: [(uid: String, start: String, rule: String)]) -> String {
        let body = events.map {
            "BEGIN:VEVENT\r\nUID:\($0.uid)\r\nDTSTART:\($0.start)\r\nDURATION:PT1H\r\nRRULE:\($0.rule)\r\nEND:VEVENT\r\n"
        }
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + body.joined() + "END:VCALENDAR\r\n"
    }

    // The fuzzer's slow inputs (.build/fuzz/icalendar/slow-unit-*, 3–4 s each under
    // AddressSanitizer), reduced: libical steps a sub-daily rule one unit at a time until its
    // filters match, so one event of each of these held an import for 3.5 s, 12.5 s, 86 s and
    // over 100 s, on the store's cooperative pool.
    @Test("a rule finer than daily with filters is reported, not searched for minutes")
    func subDailyFilters() async throws {
        let text = Self.calendar([
            ("hourly", "00130509T090000Z", "FREQ=HOURLY;BYDAY=MO;COUNT=161117"),
            ("leap-hours", "20200101T090000Z", "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30"),
            ("mondays", "00130509T090000Z", "FREQ=MINUTELY;BYDAY=MO;BYHOUR=9;COUNT=199000"),
            ("leap-seconds", "20261101T090000Z", "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29"),
            ("weekly", "20261019T090000Z", "FREQ=WEEKLY;COUNT=2"),
        ])
        let clock = ContinuousClock()
        let start = clock.now
        let reading = try await readOffPool(text)
        #expect(clock.now - start < .seconds(2))
        #expect(reading.busy.map(\.uid) == ["weekly", "weekly"])
        #expect(reading.errors.count == 4, "\(reading.errors)")
        for (event, reason) in reading.errors {
            #expect(reason.contains("finer than daily with filters (FREQ="), "\(event): \(reason)")
        }
    }

    @Test("a file of rules that never match is cut off at its time limit, the events before it kept")
    func expansionTimeLimit() async throws {
        // FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30 never matches: libical searches to its last year,
        // about 0.5 s an event here, so twenty of them took over 10 s before the limit.
        let never = (1...20).map {
            (uid: "never-\($0)", start: "20200101T090000Z", rule: "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30")
        }
        let text = Self.calendar([("weekly", "20261019T090000Z", "FREQ=WEEKLY;COUNT=2")] + never)
        let clock = ContinuousClock()
        // One such event alone, without a limit, on this machine now: the libical call that may be
        // in progress when the limit passes.
        var start = clock.now
        _ = try await readOffPool(Self.calendar([never[0]]))
        let one = clock.now - start
        start = clock.now
        let reading = try await readOffPool(text, timeLimit: .milliseconds(200))
        // The limit, plus the one libical call in progress when it passed (three times one
        // measured, for the load to vary meanwhile); without the limit it is twenty of them.
        let elapsed = clock.now - start
        #expect(elapsed < .milliseconds(200) + one * 3, "\(elapsed) for the file, \(one) for one event")
        #expect(reading.busy.map(\.uid) == ["weekly", "weekly"])
        let cut = reading.errors.filter { $0.reason.contains("was not expanded") && $0.reason.contains("0.2 seconds") }
        #expect(cut.count >= 15, "\(reading.errors)")
        #expect(reading.uids.count == 21)
    }

    @Test("an export reads back through libical and through Python's icalendar")
    func exports() async throws {
        let start = utc("2026-11-24T18:00:00Z")
        let events = [
            CalendarExport.Event(
                uid: "a1@hearth", summary: "Catch up with Sam", start: start, end: start.addingTimeInterval(1800),
                cancelled: false, sequence: 0),
            CalendarExport.Event(
                uid: "b2@hearth", summary: "Catch up with Zoë, \"Z\"; & co", start: start.addingTimeInterval(86_400),
                end: start.addingTimeInterval(86_400 + 3600), cancelled: true, sequence: 3),
        ]
        let text = CalendarExport.text(events, stamp: utc("2026-11-23T08:00:00Z"), name: "Hearth check-ins")
        #expect(
            text.contains("SEQUENCE:3") && text.contains("STATUS:CANCELLED")
                && text.contains("DTSTAMP:20261123T080000Z"))
        let back = try CalendarFile.read(
            text, from: LocalDate(year: 2026, month: 11, day: 20)!, through: LocalDate(year: 2026, month: 11, day: 30)!,
            zone: london)
        // The cancelled one is not busy; the other comes back exactly.
        #expect(back.busy.map(\.uid) == ["a1@hearth"])
        #expect(back.busy.first?.start == start && back.busy.first?.end == start.addingTimeInterval(1800))
        #expect(back.uids == ["a1@hearth", "b2@hearth"])
        let script = """
            import json, sys
            from icalendar import Calendar
            cal = Calendar.from_ical(open(sys.argv[1], "rb").read())
            out = []
            for ev in cal.walk("VEVENT"):
                out.append([str(ev["UID"]), str(ev["SUMMARY"]), ev["DTSTART"].dt.isoformat(), ev["DTEND"].dt.isoformat(),
                            str(ev["STATUS"]), int(ev["SEQUENCE"]), ev["DTSTAMP"].dt.isoformat()])
            print(json.dumps(out))
            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-export-\(UUID()).ics").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await ChildProcess.run("/usr/bin/python3", ["-c", script, path])
        #expect(run.status == 0, "\(run.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[Any]]
        let rows = try #require(parsed)
        #expect(rows.count == 2)
        #expect(rows[0][0] as? String == "a1@hearth")
        #expect(rows[0][1] as? String == "Catch up with Sam")
        #expect(rows[0][2] as? String == "2026-11-24T18:00:00+00:00")
        #expect(rows[0][3] as? String == "2026-11-24T18:30:00+00:00")
        #expect(rows[0][4] as? String == "CONFIRMED")
        #expect(rows[1][1] as? String == "Catch up with Zoë, \"Z\"; & co")
        #expect(rows[1][4] as? String == "CANCELLED")
        #expect(rows[1][5] as? Int == 3)
    }
}
