import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import SchedulerService

/// Busy times from a calendar subscribed to by URL: bus and store in process, the scheduler on
/// the test's clock, and a real HTTP server on loopback (`CalendarServer`) serving the calendar
/// as a NAS does, behind basic auth with an ETag.
@Suite(
    "hearth-scheduler: calendars subscribed by URL, read daily with their ETag", .serialized, .timeLimit(.minutes(2)))
struct BusySubscriptionTests {
    private func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    /// A calendar with a daily stand-up from 20 November and `extra` one-off events
    /// (`(uid, summary, start)`, London time).
    static func calendar(_ extra: [(String, String, String)]) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//NAS//Calendar//EN", "BEGIN:VEVENT", "UID:standup@nas",
            "SUMMARY:Stand-up", "DTSTART;TZID=Europe/London:20261120T093000", "DURATION:PT15M", "RRULE:FREQ=DAILY",
            "DESCRIPTION:", "END:VEVENT",
        ]
        for (uid, summary, start) in extra {
            lines += [
                "BEGIN:VEVENT", "UID:\(uid)", "SUMMARY:\(summary)", "DTSTART;TZID=Europe/London:\(start)",
                "DURATION:PT1H", "END:VEVENT",
            ]
        }
        return (lines + ["END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    @Test(
        "subscribe reads at once with basic auth; a day later a 304 re-reads the kept copy for the moved window; a change replaces the source's busy times; a 500 or a login page keeps them and retries within the hour; unsubscribe removes them and the copy"
    )
    func subscription() async throws {
        try await SchedulerTestStack.run(at: instant("2026-11-23T09:00:00Z")) { stack in
            let (clock, store, scheduler) = (stack.clock, stack.store, stack.scheduler)
            let server = CalendarServer { clock.now() }
            server.serve(Self.calendar([("dentist@nas", "Dentist", "20261125T140000")]), etag: "\"v1\"")
            try await server.run { base in
                let address = base.replacingOccurrences(of: "http://", with: "webcal://ann:s3cret@") + "/family.ics"
                let url = base.replacingOccurrences(of: "http://", with: "http://ann:s3cret@") + "/family.ics"
                let ms = { Int64((clock.now().timeIntervalSince1970 * 1000).rounded()) }
                let subscribed = try await store.request(
                    "plan.busy.subscribe", args: ["url": .string(address), "now": .int(ms())]
                ).decode(BusySource.self)
                #expect(subscribed.url == url, "webcal:// is read as http://")
                #expect(subscribed.read == nil && subscribed.next == nil)

                func source() async throws -> BusySource? {
                    try await store.request("plan.busy.sources").decode(BusySources.self).sources.first
                }
                /// Waits (10 s at most) until the source's last try is `time`.
                func tried(at time: String) async throws -> BusySource {
                    let deadline = ContinuousClock.now + .seconds(10)
                    while ContinuousClock.now < deadline {
                        if let source = try await source(), source.tried == time { return source }
                        await Task.yield()
                    }
                    Issue.record("the source was never tried at \(time)")
                    return try #require(try await source())
                }
                func busy() async throws -> [BusyList.Busy] {
                    try await store.request("plan.busy.list", args: ["now": .int(ms())]).decode(BusyList.self).busy
                }

                try await stack.withScheduler {
                    // Read at once on start (never read before), with the NAS's password.
                    var read = try await tried(at: "2026-11-23T09:00:00.000Z")
                    #expect(read.read == read.tried && read.error == nil)
                    #expect(read.events == 2 && read.etag == "\"v1\"")
                    #expect(read.next == "2026-11-24T09:00:00.000Z", "a good read is read again a day later")
                    #expect(server.requests.count == 1)
                    #expect(server.requests.first?.ifNoneMatch == nil)
                    #expect(server.requests.first?.authorization == CalendarServer.credentials)
                    let first = try await busy()
                    #expect(first.contains { $0.summary == "Dentist" && $0.start == "2026-11-25T14:00:00.000Z" })
                    #expect(first.allSatisfy { $0.file == BusySubscription.shown(url) })
                    #expect(first.first?.file.contains("s3cret") == false, "the password is not shown")
                    // Nor in the list's sources (`plan busy list --json` printed it: issue 62).
                    let listed = try await store.request("plan.busy.list", args: ["now": .int(ms())]).jsonText
                    #expect(!listed.contains("s3cret") && listed.contains("***"), "\(listed)")
                    let lastStandup = try #require(first.filter { $0.summary == "Stand-up" }.last?.start)

                    // A day on: asked with the ETag, answered 304, and the kept copy read again
                    // for the window a day further on.
                    clock.advance(to: instant("2026-11-24T09:00:00Z"))
                    read = try await tried(at: "2026-11-24T09:00:00.000Z")
                    #expect(server.requests.count == 2)
                    #expect(server.requests.last?.ifNoneMatch == "\"v1\"" && server.requests.last?.status == 304)
                    #expect(server.requests.last?.at == instant("2026-11-24T09:00:00Z"), "not read before it was due")
                    #expect(read.read == "2026-11-24T09:00:00.000Z" && read.etag == "\"v1\"")
                    let moved = try #require(try await busy().filter { $0.summary == "Stand-up" }.last?.start)
                    #expect(moved > lastStandup, "the window moved on a day: \(moved) after \(lastStandup)")

                    // The calendar changes on the NAS: a refresh now gets the new one, and the
                    // source's busy times are replaced (the deleted dentist goes).
                    server.serve(Self.calendar([("swim@nas", "Swimming", "20261126T170000")]), etag: "\"v2\"")
                    let refreshed = try await scheduler.request("busy.read", args: ["url": .string(url)])
                        .decode(BusyReads.self)
                    #expect(refreshed.reads.count == 1 && refreshed.reads.first?.unchanged == false)
                    #expect(refreshed.reads.first?.imported?.events == 2)
                    #expect(server.requests.last?.status == 200 && server.requests.last?.ifNoneMatch == "\"v1\"")
                    var now = try await busy()
                    #expect(now.contains { $0.summary == "Swimming" } && !now.contains { $0.summary == "Dentist" })
                    #expect(try await source()?.etag == "\"v2\"")

                    // The NAS fails: the busy times stay, the error is shown, and it is tried
                    // again within the hour.
                    server.fail(with: .internalServerError)
                    clock.advance(to: instant("2026-11-25T09:00:00Z"))
                    read = try await tried(at: "2026-11-25T09:00:00.000Z")
                    #expect(read.error?.contains("HTTP 500") == true, "\(read.error ?? "no error")")
                    #expect(read.read == "2026-11-24T09:00:00.000Z" && read.next == "2026-11-25T10:00:00.000Z")
                    now = try await busy()
                    #expect(now.contains { $0.summary == "Swimming" })

                    // A login page instead of the calendar (a 200 that is not iCalendar): refused,
                    // recorded, and the copy and busy times kept.
                    server.serve(
                        "<!DOCTYPE html><html><body>Sign in</body></html>", etag: "\"login\"", contentType: "text/html")
                    clock.advance(to: instant("2026-11-25T10:00:00Z"))
                    read = try await tried(at: "2026-11-25T10:00:00.000Z")
                    #expect(read.error?.contains("VCALENDAR") == true, "\(read.error ?? "no error")")
                    #expect(read.etag == "\"v2\"", "the validators stay the last good read's")
                    #expect(try await busy().contains { $0.summary == "Swimming" })

                    // Back: read again an hour on, the error cleared.
                    server.serve(Self.calendar([("swim@nas", "Swimming", "20261126T170000")]), etag: "\"v2\"")
                    clock.advance(to: instant("2026-11-25T11:00:00Z"))
                    read = try await tried(at: "2026-11-25T11:00:00.000Z")
                    #expect(read.error == nil && read.read == "2026-11-25T11:00:00.000Z")
                    #expect(server.requests.last?.status == 304, "the copy kept matched the ETag")

                    // Unsubscribed: its busy times and its copy go.
                    let copy = stack.home.file("calendars/\(String(FNV1a.hash(url.utf8), radix: 16)).ics")
                    #expect(FileManager.default.fileExists(atPath: copy))
                    // Another member's calendar: the copy is the household user's alone (was 0644).
                    let mode = try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int
                    #expect(mode == 0o600, "\(String(mode ?? 0, radix: 8))")
                    let gone = try await store.request("plan.busy.unsubscribe", args: ["url": .string(url)])
                        .decode(BusyUnsubscribed.self)
                    #expect(gone.removed > 90 && !gone.url.contains("s3cret"))
                    #expect(try await busy().isEmpty)
                    let none = try await scheduler.request("busy.read").decode(BusyReads.self)
                    #expect(none.reads.isEmpty)
                    #expect(!FileManager.default.fileExists(atPath: copy))
                }
            }
        }
    }

    @Test(
        "a subscribed calendar that takes every free time of a planned check-in: plan.unplaced names it on the bus"
    )
    func unplacedCheckIn() async throws {
        try await SchedulerTestStack.run(at: instant("2026-11-23T09:00:00Z")) { stack in
            let (clock, store) = (stack.clock, stack.store)
            let ms = { JSONValue.int(Int64((clock.now().timeIntervalSince1970 * 1000).rounded())) }
            // Ann can be met on Mondays 18:00-19:00 only; planned before any calendar is read.
            _ = try await store.request("people.add", args: ["name": "Ann"])
            _ = try await store.request(
                "people.goal",
                args: [
                    "person": "Ann", "every": 7, "duration": "1h", "windows": ["Mon 18:00-19:00"], "last": "2026-11-02",
                ])
            let plan = try await store.request("plan.week", args: ["now": ms()])
            #expect(plan["placed"]?.arrayValue?.first?["start"] == "2026-11-23T18:00:00.000Z", "\(plan)")
            // Her Mondays' hour is busy for the next four weeks.
            let server = CalendarServer { clock.now() }
            server.serve(
                Self.calendar(
                    ["20261123", "20261130", "20261207", "20261214"].map {
                        ("class-\($0)@nas", "Class", "\($0)T180000")
                    }),
                etag: "\"v1\"")
            let events = try Subscriber(
                context: stack.context, endpoint: stack.configuration.busSubscribeEndpoint, prefixes: ["plan.unplaced"])
            let bus = CommandClient(context: stack.context, endpoint: stack.configuration.commandEndpoint(.bus))
            #expect(await events.waitUntilSubscribed(bus: bus, timeout: .seconds(5)))
            await bus.close()
            try await server.run { base in
                let url = base.replacingOccurrences(of: "http://", with: "http://ann:s3cret@") + "/family.ics"
                _ = try await store.request("plan.busy.subscribe", args: ["url": .string(url), "now": ms()])
                try await stack.withScheduler {
                    // The scheduler reads the new source at once; the store finds Ann's check-in
                    // clashing and nowhere to go; the scheduler says so on the bus.
                    let heard = await withTimeout(.seconds(10)) { () async -> PlanUnplacedEvent? in
                        for await message in events {
                            if case .event(_, let envelope) = message {
                                return try? envelope.data.decode(PlanUnplacedEvent.self)
                            }
                        }
                        return nil
                    }
                    let event = try #require(heard ?? nil, "no plan.unplaced")
                    #expect(event.source.hasSuffix("/family.ics"), "\(event)")
                    #expect(
                        event.unplaced.count == 1 && event.unplaced.first?.event.contains("Ann") == true, "\(event)")
                    #expect(event.unplaced.first?.reason.contains("busy time") == true, "\(event)")
                }
            }
            await events.close()
        }
    }

    @Test(
        "a URL that is not http(s) or webcal is refused naming the field; an unreachable server is an error on the source"
    )
    func badSources() async throws {
        try await SchedulerTestStack.run(at: instant("2026-11-23T09:00:00Z")) { stack in
            for (url, rule) in [
                ("ftp://nas.local/family.ics", "http://, https:// or webcal://"), ("", "must not be empty"),
                ("https:///family.ics", "must name a host"),
            ] {
                do {
                    _ = try await stack.store.request("plan.busy.subscribe", args: ["url": .string(url)])
                    Issue.record("\(url) was subscribed to")
                } catch CommandClientError.refused(let refusal) {
                    #expect(refusal.code == "invalid_argument" && refusal.message.contains("'url'"))
                    #expect(refusal.message.contains(rule), "\(refusal.message)")
                }
            }
            // Port 9 (discard) on loopback: nothing listens.
            let url = "http://127.0.0.1:9/family.ics"
            _ = try await stack.store.request("plan.busy.subscribe", args: ["url": .string(url)])
            try await stack.withScheduler {
                let reads = try await stack.scheduler.request("busy.read").decode(BusyReads.self)
                let error = try #require(reads.reads.first?.error)
                #expect(error == "nothing answers at 127.0.0.1:9 (connection refused)", "\(error)")
                let source = try #require(
                    try await stack.store.request("plan.busy.sources").decode(BusySources.self).sources.first)
                #expect(source.error == error && source.read == nil)
            }
        }
    }

    @Test(
        "a server sending a byte at a time is cut off at the whole read's deadline, and another calendar read beside it is not held up"
    )
    func slowServer() async throws {
        try await SchedulerTestStack.run(at: instant("2026-11-23T09:00:00Z")) { stack in
            // A server that sends its headers at once, then one byte of the calendar a second.
            let script = """
                import socket, sys, time
                s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", 0)); s.listen(4); print(s.getsockname()[1], flush=True)
                while True:
                    c, _ = s.accept(); c.recv(65536)
                    c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: text/calendar\\r\\nContent-Length: 100000\\r\\n\\r\\n")
                    try:
                        for _ in range(600): c.sendall(b"B"); time.sleep(1)
                    except OSError: pass
                    c.close()
                """
            let trickle = try await ChildProcess("/usr/bin/python3", ["-u", "-c", script])
            defer { trickle.signal(SIGKILL) }
            let port = try #require(await trickle.output.waitForLine { Int($0) != nil })
            let server = CalendarServer { Date() }
            server.serve(Self.calendar([("swim@nas", "Swimming", "20261126T170000")]), etag: "\"v1\"")
            try await server.run { base in
                let slow = "http://127.0.0.1:\(port)/family.ics"
                let quick = base.replacingOccurrences(of: "http://", with: "http://ann:s3cret@") + "/family.ics"
                for url in [slow, quick] {
                    _ = try await stack.store.request("plan.busy.subscribe", args: ["url": .string(url)])
                }
                let sources = try await stack.store.request("plan.busy.sources").decode(BusySources.self).sources
                let calendars = CalendarSubscriptions(
                    home: stack.home.path, store: stack.store, clock: stack.clock, deadline: .seconds(2))
                let started = ContinuousClock.now
                let reads = try await SchedulerService.readEach(sources, calendars: calendars)
                let took = ContinuousClock.now - started
                let slowRead = try #require(reads.first { $0.url == slow })
                let quickRead = try #require(reads.first { $0.url == quick })
                #expect(
                    slowRead.error == "127.0.0.1:\(port) did not send the whole calendar within 2 s",
                    "\(String(describing: slowRead.error))")
                #expect(quickRead.error == nil && (quickRead.imported?.events ?? 0) >= 1, "\(quickRead)")
                // Bounded by the deadline, not the server's 600 s; both read side by side.
                #expect(took < .seconds(6), "\(took)")
            }
        }
    }

    @Test(
        "a redirect to this device's own hearth-web is refused before anything is read from it; one elsewhere is followed, without the redirecting URL's password"
    )
    func redirects() async throws {
        try await SchedulerTestStack.run(at: instant("2026-11-23T09:00:00Z")) { stack in
            let own = CalendarServer { Date() }
            own.serve(Self.calendar([("own@hearth", "Our own lesson", "20261126T170000")]), etag: "\"own\"")
            let elsewhere = CalendarServer { Date() }
            elsewhere.serve(Self.calendar([("swim@nas", "Swimming", "20261126T170000")]), etag: "\"v1\"")
            try await own.run { ownBase in
                try await elsewhere.run { elsewhereBase in
                    // Answers /own and /elsewhere with a redirect to each server.
                    let script = """
                        import http.server, sys
                        class H(http.server.BaseHTTPRequestHandler):
                            def do_GET(self):
                                target = {"/own": sys.argv[1], "/elsewhere": sys.argv[2]}.get(self.path)
                                self.send_response(302 if target else 404)
                                if target: self.send_header("Location", target)
                                self.send_header("Content-Length", "0"); self.end_headers()
                            def log_message(self, *a): pass
                        s = http.server.HTTPServer(("127.0.0.1", 0), H)
                        print(s.server_address[1], flush=True); s.serve_forever()
                        """
                    let ownPort = try #require(URLComponents(string: ownBase)?.port)
                    let redirector = try await ChildProcess(
                        "/usr/bin/python3",
                        [
                            "-u", "-c", script, "http://localhost:\(ownPort)/calendar.ics",
                            elsewhereBase + "/family.ics",
                        ])
                    defer { redirector.signal(SIGKILL) }
                    let port = try #require(await redirector.output.waitForLine { Int($0) != nil })
                    let toOwn = "http://127.0.0.1:\(port)/own"
                    let toElsewhere = "http://ann:s3cret@127.0.0.1:\(port)/elsewhere"
                    for url in [toOwn, toElsewhere] {
                        _ = try await stack.store.request("plan.busy.subscribe", args: ["url": .string(url)])
                    }
                    let sources = try await stack.store.request("plan.busy.sources").decode(BusySources.self).sources
                    let calendars = CalendarSubscriptions(
                        home: stack.home.path, store: stack.store, clock: stack.clock, ownPorts: [ownPort])
                    let reads = try await SchedulerService.readEach(sources, calendars: calendars)
                    let ownRead = try #require(reads.first { $0.url == toOwn })
                    let elsewhereRead = try #require(reads.first { $0.url.hasSuffix("/elsewhere") })
                    #expect(
                        ownRead.error
                            == "localhost:\(ownPort) is this device's own hearth-web: its feeds are this household's "
                            + "own times, not busy times (a redirect there is refused)",
                        "\(String(describing: ownRead.error))")
                    #expect(own.requests.isEmpty, "the own listener was read: \(own.requests)")
                    // Followed to the other server, which asks for its password: the redirector's
                    // was not handed on.
                    #expect(elsewhere.requests.count == 1 && elsewhere.requests.first?.authorization == nil)
                    #expect(elsewhereRead.error == "the server answered HTTP 401 Unauthorized", "\(elsewhereRead)")
                }
            }
        }
    }
}
