import Foundation
import HearthBus
import HearthTesting
import Testing

/// The social planner from the command line, against real `hearth-bus` and `hearth-store`
/// processes: people and goals, plan my week, what's next, busy times from a file, snooze,
/// reschedule, done, and the export another calendar reads.
@Suite("Social planner from the command line", .serialized, .timeLimit(.minutes(2)))
struct SocialPlannerEndToEndTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("people, goals, plan week, what's next, busy import, snooze, reschedule, done and export")
    func commandLine() async throws {
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_TIME_ZONE": "Europe/London"], context: context)
        func hearth(_ arguments: [String]) async throws -> (status: Int32?, stdout: String, stderr: String) {
            try await stack.hearth(arguments)
        }
        let now = "2026-11-23T09:00:00Z"  // Monday
        #expect(try await hearth(["people", "add", "Sam", "--tags", "Friends, school"]).status == 0)
        #expect(try await hearth(["people", "add", "Gran", "--purpose", "Sunday tea"]).status == 0)
        let goal = try await hearth([
            "people", "goal", "Sam", "--every", "14", "--importance", "4", "--duration", "1h", "--window",
            "Mon-Fri 18:00-21:00", "--window", "Sat 10:00-16:00", "--last", "2026-11-02",
        ])
        #expect(
            goal.stdout.contains("Sam: every 14 days · importance 4 · 1h · Mon-Fri 18:00-21:00; Sat 10:00-16:00"),
            "\(goal.stdout)")
        #expect(
            try await hearth([
                "people", "goal", "Gran", "--every", "7", "--window", "Sun 14:00-17:00", "--last", "2026-11-09",
            ])
            .status == 0)
        let bad = try await hearth(["people", "goal", "Gran", "--window", "Sunday-ish 14:00"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("'window'"), "\(bad.stderr)")

        let list = try await hearth(["people", "list", "--now", now])
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(list.stdout)")
        #expect(lines[1].contains("1.00") && lines[1].contains("Gran"), "\(list.stdout)")
        #expect(lines[2].contains("0.57") && lines[2].contains("Sam"), "\(list.stdout)")

        // Pottery on Monday evenings: Sam goes to Tuesday.
        let calendar = stack.home.file("pottery.ics")
        try """
        BEGIN:VCALENDAR\r
        BEGIN:VEVENT\r
        UID:pottery\r
        SUMMARY:Pottery\r
        DTSTART;TZID=Europe/London:20261116T173000\r
        DTEND;TZID=Europe/London:20261116T213000\r
        RRULE:FREQ=WEEKLY\r
        END:VEVENT\r
        END:VCALENDAR\r

        """.write(toFile: calendar, atomically: true, encoding: .utf8)
        let busy = try await hearth(["plan", "busy", "import", calendar, "--now", now])
        #expect(busy.stdout.contains("pottery.ics: 1 events"), "\(busy.stdout)")

        let week = try await hearth(["plan", "week", "--now", now])
        #expect(week.stdout.contains("planned 2 check-ins over the next 14 days"), "\(week.stdout)")
        #expect(week.stdout.contains("Tue 24 Nov 18:00–19:00  Catch up with Sam  pending"), "\(week.stdout)")
        #expect(week.stdout.contains("Sun 29 Nov 14:00–14:30  Catch up with Gran  pending"), "\(week.stdout)")
        let next = try JSONValue.parse(try await hearth(["--json", "plan", "next", "--now", now]).stdout)
        let items = next["items"]?.arrayValue ?? []
        #expect(items.map { $0["name"]?.stringValue } == ["Sam", "Gran"])
        let sam = try #require(items.first?["id"]?.stringValue)

        // On the test's clock (--now): with the real one, these check-ins leave the planner's
        // window two weeks after the test's Monday and stop clashing.
        let slots = try await hearth(["plan", "reschedule", String(sam.prefix(8)), "--now", now])
        #expect(slots.stdout.contains("--to '"), "\(slots.stdout)")
        let moved = try await hearth([
            "plan", "reschedule", String(sam.prefix(8)), "--to", "2026-11-25 19:00", "--now", now,
        ])
        #expect(moved.stdout.contains("moved to: Wed 25 Nov 19:00–20:00  Catch up with Sam"), "\(moved.stdout)")
        let clash = try await hearth(["plan", "add", "Gran", "--at", "2026-11-25 19:30", "--now", now])
        #expect(clash.status == 2)
        #expect(clash.stderr.contains("clashes"), "\(clash.stderr)")

        let exported = stack.home.file("plan.ics")
        #expect(try await hearth(["plan", "export", exported, "--now", now]).stdout.contains("wrote 3 check-ins"))
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        #expect(text.contains("SUMMARY:Catch up with Sam") && text.contains("STATUS:CANCELLED"))
        let script = """
            import sys
            from icalendar import Calendar
            cal = Calendar.from_ical(open(sys.argv[1], "rb").read())
            for ev in cal.walk("VEVENT"):
                print(ev["SUMMARY"], ev["DTSTART"].dt.isoformat(), ev["STATUS"])
            """
        let python = try await ChildProcess.run("/usr/bin/python3", ["-c", script, exported])
        #expect(python.stdout.contains("Catch up with Sam 2026-11-25T19:00:00+00:00 CONFIRMED"), "\(python.stdout)")

        let newSam = try #require(
            try JSONValue.parse(try await hearth(["--json", "plan", "next", "--now", now]).stdout)["items"]?.arrayValue?
                .first { $0["name"] == "Sam" }?["id"]?.stringValue)
        #expect(try await hearth(["plan", "done", String(newSam.prefix(8)), "--outcome", "call"]).status == 0)
        let shown = try await hearth(["people", "show", "Sam"])
        #expect(shown.stdout.contains(" call"), "\(shown.stdout)")
        _ = await stack.stop()
    }

    @Test(
        "reschedule --to keeps every placement rule and names the one broken in household time; snooze-tonight lands in a window; an old id acts on where it moved; all-day busy times say so"
    )
    func firstSteps() async throws {
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_TIME_ZONE": "Europe/London"], context: context)
        func hearth(_ arguments: [String]) async throws -> (status: Int32?, stdout: String, stderr: String) {
            try await stack.hearth(arguments)
        }
        let now = "2026-11-23T09:00:00Z"  // Monday
        for name in ["Sam", "Gran"] { #expect(try await hearth(["people", "add", name]).status == 0) }
        let goals = [
            ["Sam", "--every", "14", "--duration", "1h", "--window", "Mon-Fri 18:00-21:00", "--exclude", "2026-11-26"],
            ["Gran", "--every", "7", "--window", "Sun 17:00-20:00", "--last", "2026-11-09"],
        ]
        for goal in goals { #expect(try await hearth(["people", "goal"] + goal).status == 0) }
        let week = try await hearth(["plan", "week", "--now", now])
        #expect(week.stdout.contains("Sun 29 Nov 17:00–17:30  Catch up with Gran"), "\(week.stdout)")
        let next = try JSONValue.parse(try await hearth(["--json", "plan", "next", "--now", now]).stdout)
        let items = next["items"]?.arrayValue ?? []
        let sam = String(try #require(items.first { $0["name"] == "Sam" }?["id"]?.stringValue).prefix(8))

        // Thursday is excluded in Sam's goal: refused, saying so on the household's clock.
        let excluded = try await hearth(["plan", "reschedule", sam, "--to", "2026-11-26 19:00", "--now", now])
        #expect(excluded.status == 2)
        #expect(
            excluded.stderr.contains("'to' Thu 2026-11-26 19:00 for 1h: Sam's goal excludes 2026-11-26"),
            "\(excluded.stderr)")
        let outside = try await hearth(["plan", "reschedule", sam, "--to", "2026-11-25 10:00", "--now", now])
        #expect(outside.stderr.contains("outside Sam's windows (Mon-Fri 18:00-21:00)"), "\(outside.stderr)")
        let quiet = try await hearth(["plan", "add", "Sam", "--at", "2026-11-25 23:00", "--now", now])
        #expect(quiet.stderr.contains("'at' Wed 2026-11-25 23:00 for 1h: it falls in quiet hours"), "\(quiet.stderr)")
        #expect(!excluded.stderr.contains("Z "), "times are the household's, not UTC: \(excluded.stderr)")
        let moved = try await hearth(["plan", "reschedule", sam, "--to", "2026-11-25 19:00", "--now", now])
        #expect(moved.stdout.contains("moved to: Wed 25 Nov 19:00–20:00"), "\(moved.stdout)")

        // The id just used still works: it acts on the check-in it moved to, and says so.
        let done = try await hearth(["plan", "done", sam])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains("check-in \(sam) had moved"), "\(done.stdout)")
        #expect(done.stdout.contains("done: Wed 25 Nov 19:00–20:00  Catch up with Sam  done"), "\(done.stdout)")
        let again = try await hearth(["plan", "cancel", sam])
        #expect(again.stderr.contains("moved to") && again.stderr.contains("which is done"), "\(again.stderr)")

        // Snooze tonight on Sunday: tomorrow morning is outside Gran's window, so her next one.
        let tonight = try await hearth(["plan", "snooze-tonight", "--now", "2026-11-29T12:00:00Z"])
        #expect(tonight.stdout.contains("Sun 6 Dec 17:00–17:30  Catch up with Gran"), "\(tonight.stdout)")

        // All-day busy times: a day, and two days.
        let calendar = stack.home.file("away.ics")
        try """
        BEGIN:VCALENDAR\r
        BEGIN:VEVENT\r
        UID:conference\r
        SUMMARY:Conference\r
        DTSTART;VALUE=DATE:20361204\r
        DTEND;VALUE=DATE:20361205\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:trip\r
        SUMMARY:Trip\r
        DTSTART;VALUE=DATE:20361208\r
        DTEND;VALUE=DATE:20361210\r
        END:VEVENT\r
        END:VCALENDAR\r

        """.write(toFile: calendar, atomically: true, encoding: .utf8)
        #expect(
            try await hearth(["plan", "busy", "import", calendar, "--now", "2036-12-01T09:00:00Z"]).stdout.contains(
                "2 events"))
        let busy = try await hearth(["plan", "busy", "list"])
        #expect(busy.stdout.contains("Thu 4 Dec all day  Conference"), "\(busy.stdout)")
        #expect(busy.stdout.contains("Mon 8 Dec – Tue 9 Dec all day  Trip"), "\(busy.stdout)")
        #expect(!busy.stdout.contains("00:00–00:00"), "\(busy.stdout)")
        // The file is listed as a source, and removing it forgets its busy times alone.
        #expect(busy.stdout.contains("away.ics · imported: 2 busy times"), "\(busy.stdout)")
        let unknown = try await hearth(["plan", "busy", "remove", "work.ics"])
        #expect(
            unknown.status != 0 && unknown.stderr.contains("no imported calendar 'work.ics' (imported: away.ics)"),
            "\(unknown.stderr)")
        let removed = try await hearth(["plan", "busy", "remove", "away.ics"])
        #expect(removed.stdout.contains("removed away.ics: 2 busy times"), "\(removed.stdout)")
        let after = try await hearth(["plan", "busy", "list"])
        #expect(!after.stdout.contains("Conference") && !after.stdout.contains("away.ics"), "\(after.stdout)")
        _ = await stack.stop()
    }
}
