import Foundation
import HTTPTypes
import HearthBus
import HearthCalendar
import HearthCore
import HearthHost
import HearthTesting
import Hummingbird
import Testing

@testable import WebService

/// The household as calendar feeds: what a calendar app subscribed to `/calendar.ics` reads.
@Suite("hearth-web: calendar feeds with ETag, the year, todos and timetables", .serialized, .timeLimit(.minutes(2)))
struct CalendarFeedTests {
    @Test("each area's feed reads back as its events; If-None-Match gives 304 until something changes")
    func feeds() async throws {
        let fixture = try await WebFixture()
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        _ = try await fixture.store.request(
            "event.set", args: ["year": .int(Int64(year)), "month": 8, "title": "Beach week", "location": "Porthcurno"])
        _ = try await fixture.store.request(
            "event.set", args: ["year": .int(Int64(year)), "month": 12, "title": "Carols", "day": 20])
        _ = try await fixture.store.request("collection.add", args: ["name": "Home", "kind": "list"])
        _ = try await fixture.store.request(
            "todo.add",
            args: ["title": "Bins out", "collection": "Home", "due": .string("\(year)-12-01"), "time": "07:30"])
        try await fixture.withClient { client in
            let feed = try await client.get("/calendar/year.ics")
            #expect(feed.status == .ok)
            #expect(feed.headers[.contentType] == "text/calendar; charset=utf-8")
            let tag = try #require(feed.headers[.eTag])
            let reading = try CalendarFile.read(
                feed.text, from: LocalDate(year: year, month: 1, day: 1)!,
                through: LocalDate(year: year, month: 12, day: 31)!,
                zone: TimeZone(identifier: "UTC")!)
            #expect(reading.errors.isEmpty && reading.warnings.isEmpty, "\(reading.errors) \(reading.warnings)")
            let byUID = Dictionary(uniqueKeysWithValues: reading.busy.map { ($0.uid, $0) })
            let august = try #require(byUID[String(format: "card-%04d-08@hearth", year)])
            #expect(august.allDay && august.summary == "Beach week")
            #expect(august.end.timeIntervalSince(august.start) == 31 * 86_400)
            let carols = try #require(byUID[String(format: "card-%04d-12@hearth", year)])
            #expect(carols.end.timeIntervalSince(carols.start) == 86_400)
            #expect(feed.text.contains("LOCATION:Porthcurno") && feed.text.contains("LAST-MODIFIED:"))

            var asked: HTTPFields = [HTTPField.Name("Host")!: WebFixture.host, .ifNoneMatch: tag]
            let unchanged = try await client.get("/calendar/year.ics", headers: asked)
            #expect(unchanged.status == .notModified && unchanged.body.readableBytes == 0)
            _ = try await fixture.store.request(
                "event.set", args: ["year": .int(Int64(year)), "month": 8, "title": "Beach fortnight"])
            // The store's change event reaches the page's bus follower, which drops what was
            // rendered (`PageCache`; at most a second old otherwise): here, as it does.
            await fixture.web.changed("year")
            let changed = try await client.get("/calendar/year.ics", headers: asked)
            #expect(changed.status == .ok && changed.text.contains("SUMMARY:Beach fortnight"))
            #expect(changed.headers[.eTag] != tag)
            asked[.ifNoneMatch] = changed.headers[.eTag]
            #expect(try await client.get("/calendar/year.ics", headers: asked).status == .notModified)

            let events = try await client.get("/calendar/todo-events.ics")
            #expect(events.text.contains("BEGIN:VEVENT") && !events.text.contains("BEGIN:VTODO"))
            #expect(events.text.contains("SUMMARY:Bins out") && events.text.contains("DTSTART:\(year)1201T073000Z"))
            let todos = try await client.get("/calendar/todos.ics")
            #expect(todos.text.contains("BEGIN:VTODO") && todos.text.contains("SUMMARY:Bins out"))
            let all = try await client.get("/calendar.ics")
            #expect(all.text.contains("SUMMARY:Bins out") && all.text.contains("SUMMARY:Beach fortnight"))
            #expect(all.text.components(separatedBy: "BEGIN:VCALENDAR").count == 2, "one calendar")
            #expect(try await client.get("/calendar/nothing.ics").status == .notFound)

            // A member's lessons on their dates, at the bell times.
            _ = try await fixture.store.request("member.add", args: ["name": "Ann", "role": "student"])
            let monday = SchoolCalendar.monday(of: LocalDate(Date(), in: TimeZone(identifier: "UTC")!))
            _ = try await fixture.store.request(
                "timetable.configure", args: ["week1_start": .string(monday.description)])
            _ = try await fixture.store.request("timetable.bells", args: ["bells": ["1=09:00-10:00"]])
            _ = try await fixture.store.request(
                "timetable.add",
                args: ["member": "Ann", "week": 1, "day": "Mon", "period": 1, "subject": "Maths", "room": "R1"])
            let lessons = try await client.get("/calendar/timetable.ics?member=Ann")
            #expect(lessons.text.contains("SUMMARY:Maths (Ann)") && lessons.text.contains("LOCATION:R1"))
            #expect(
                lessons.text.contains("DTSTART:\(monday.description.replacingOccurrences(of: "-", with: ""))T090000Z"))

            // ?member= narrows the timetable only, to a member the household has (issue 62: each
            // random value was a render and a cache entry of its own, for feeds that ignore it too).
            #expect(try await client.get("/calendar/timetable.ics?member=ann").text.contains("SUMMARY:Maths (Ann)"))
            #expect(try await client.get("/calendar/timetable.ics?member=Nobody").status == .notFound)
            #expect(try await client.get("/calendar.ics?member=Nobody").status == .notFound)
            _ = try await client.get("/calendar/year.ics")
            let kept = fixture.web.cache.size.views
            for index in 0..<20 {
                #expect(try await client.get("/calendar/year.ics?member=x\(index)").status == .ok)
            }
            #expect(fixture.web.cache.size.views == kept, "a random ?member= made cache entries of its own")
        }
        await fixture.close()
    }

    @Test("a member without a Week-1 start, or a student's profile: the feed serves what it can (it answered 503)")
    func servesWhatItCan() async throws {
        let fixture = try await WebFixture()
        _ = try await fixture.store.request("member.add", args: ["name": "Ann", "role": "student"])
        _ = try await fixture.store.request("member.add", args: ["name": "Ben", "role": "student"])
        _ = try await fixture.store.request(
            "event.set", args: ["year": 2026, "month": 12, "title": "Carols", "day": 20])
        try await fixture.withClient { client in
            let unset = try await client.get("/calendar.ics")
            #expect(unset.status == .ok, "\(unset.text)")
            #expect(try await client.get("/calendar/timetable.ics").status == .ok)
            _ = try await fixture.store.request("timetable.configure", args: ["week1_start": "2026-11-02"])
            _ = try await fixture.store.request("timetable.bells", args: ["bells": ["1=09:00-10:00"]])
            for name in ["Ann", "Ben"] {
                _ = try await fixture.store.request(
                    "timetable.add",
                    args: [
                        "member": .string(name), "week": 1, "day": "Mon", "period": 1,
                        "subject": .string("Art \(name)"),
                        "room": "R1",
                    ])
            }
            // Ann's profile: her lessons, not Ben's, and the rest of the feed.
            _ = try await fixture.store.request("member.use", args: ["member": "Ann"])
            await fixture.web.changed("*")
            let student = try await client.get("/calendar/timetable.ics")
            #expect(student.status == .ok, "\(student.text)")
            #expect(!student.text.contains("Art Ben"), "\(student.text)")
        }
        await fixture.close()
    }

    @Test(
        "a repeating todo's time stays on the household's wall clock in the feed: recurring-ical-events reads 08:00 across both clock changes"
    )
    func repeatingTimesKeepTheWallClock() async throws {
        let packages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/python-ical").path
        try #require(
            FileManager.default.fileExists(atPath: packages + "/recurring_ical_events"),
            "recurring-ical-events is not unpacked in \(packages): run deploy/bootstrap test")
        let fixture = try await WebFixture(environment: ["HEARTH_TIME_ZONE": "Europe/London"])
        _ = try await fixture.store.request("collection.add", args: ["name": "Habits", "kind": "habit"])
        _ = try await fixture.store.request(
            "todo.add",
            args: ["title": "Stretch", "collection": "Habits", "due": "2026-10-01", "time": "08:00", "repeat": "daily"])
        let feed = try await fixture.withClient { client in try await client.get("/calendar/todo-events.ics").text }
        await fixture.close()
        #expect(feed.contains("DTSTART;TZID=Europe/London:20261001T080000"), "\(feed)")
        #expect(feed.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/London"), "\(feed)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString).ics").path
        try feed.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let script = """
            import sys, json, datetime, zoneinfo, icalendar, recurring_ical_events
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
            london = zoneinfo.ZoneInfo("Europe/London")
            seen = []
            for first, last in [("2026-10-20", "2026-11-05"), ("2027-03-20", "2027-04-05")]:
                for event in recurring_ical_events.of(calendar).between(
                        datetime.date.fromisoformat(first), datetime.date.fromisoformat(last)):
                    seen.append(event["DTSTART"].dt.astimezone(london).strftime("%Y-%m-%d %H:%M"))
            print(json.dumps(sorted(seen)))
            """
        let run = try await ChildProcess.run(
            "/usr/bin/python3", ["-c", script, file], environment: ["PYTHONPATH": packages], timeout: .seconds(60))
        try #require(run.status == 0, "\(run.stderr)")
        let times = try JSONDecoder().decode([String].self, from: Data(run.stdout.utf8))
        // 16 days before and after each change (25 October 2026, 28 March 2027), each at 08:00.
        #expect(times.count == 32, "\(times)")
        #expect(times.allSatisfy { $0.hasSuffix(" 08:00") }, "\(times)")
    }

    @Test("the ETag is the feed's content: a render a second later (another DTSTAMP) has the same one")
    func etagIgnoresTheStamp() {
        let first = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTAMP:20261127T203700Z\r\nSUMMARY:Tea\r\nEND:VEVENT\r\n"
        let later = first.replacingOccurrences(of: "203700Z", with: "203701Z")
        #expect(WebRouter.etag(first) == WebRouter.etag(later))
        #expect(WebRouter.etag(first) != WebRouter.etag(first.replacingOccurrences(of: "Tea", with: "Toast")))
    }

    @Test("beyond loopback a feed takes ?token= on every request (no cookie, no redirect); a wrong one is refused")
    func token() async throws {
        let fixture = try await WebFixture(environment: ["HEARTH_WEB_LISTEN": "0.0.0.0:0"])
        let token = try #require(HouseholdToken.read(home: fixture.stack.home.path))
        try await fixture.withClient { client in
            #expect(try await client.get("/calendar.ics").status == .unauthorized)
            #expect(try await client.get("/calendar.ics?token=wrong\(token)").status == .unauthorized)
            let feed = try await client.get("/calendar/year.ics?token=\(token)")
            #expect(feed.status == .ok && feed.text.hasPrefix("BEGIN:VCALENDAR"))
            #expect(feed.headers[.setCookie] == nil)
        }
        await fixture.close()
    }
}
