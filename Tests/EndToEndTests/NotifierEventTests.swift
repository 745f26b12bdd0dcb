import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import Logging
import Synchronization
import Testing

/// The notifier's table for the events later services publish (turns, reminders, sync), with
/// real processes on a private D-Bus session: events come from a real publisher on the stack's
/// bus, presses go to a real command server standing in for the owning service.
@Suite("End to end: notifier events and settings", .serialized, .timeLimit(.minutes(2)))
struct NotifierEventTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// Publishes events onto a stack's bus as `source` would.
    struct Injector {
        let publisher: Publisher

        init(_ stack: TestStack, context: ZMQContext, source: String) async throws {
            publisher = try Publisher(
                context: context, endpoint: stack.configuration.busPublishEndpoint, source: source,
                device: "device-other")
            #expect(await publisher.waitUntilConnected(timeout: .seconds(5)))
        }

        func yourTurn(_ name: String, device: String, seq: Int64) throws {
            _ = try publisher.publish(
                topic: "turn.J7X-3.your-turn", type: "turn.your-turn",
                data: [
                    "code": "J7X-3", "seq": .int(seq), "turn": .int(seq),
                    "player": ["id": .string("id-\(name)"), "name": .string(name), "device": .string(device)],
                ])
        }
    }

    /// The `Notify` calls the test server recorded so far, parsed.
    static func notifies(_ server: ChildProcess) throws -> [JSONValue] {
        try server.output.lines.filter { $0.contains("\"call\": \"Notify\"") }.map { try JSONValue.parse($0) }
    }

    @Test(
        "Your turn: critical with Done; the game's popup is replaced, not piled up; Done sends done exactly once; stale turns are ignored"
    )
    func turns() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        let stack = try await TestStack([.bus, .notifier], environment: session.environment, context: context)
        let here = try DeviceIdentity.load(home: stack.home.path)
        let received = Mutex<[CommandRequest]>([])
        // Set by the first command that is not the start-up `sessions` query (the press's `done`).
        let pressed = AsyncLatch<CommandRequest>()
        let turnService = try CommandServer(
            context: context, endpoint: stack.configuration.commandEndpoint(.turn), service: "turn",
            logger: Logger(label: "test.turn"),
            handler: { request in
                received.withLock { $0.append(request) }
                if request.command != "sessions" { pressed.set(request) }
                return ["ok": true]
            })
        let serving = Task { try await turnService.run() }
        let monitor = try await ChildProcess(
            "hearth", ["monitor", "--json", "notify."], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)
        let inject = try await Injector(stack, context: context, source: "turn")

        try inject.yourTurn("Ann", device: here, seq: 1)
        let first = try JSONValue.parse(
            try #require(await server.output.waitForLine(containing: "\"summary\": \"Your turn, Ann\"")))
        #expect(first["urgency"] == 2)
        #expect(first["expire_timeout"] == 0)
        #expect(first["body"] == "Game J7X-3 · turn 1")
        #expect(first["actions"] == ["done", "Done"])
        #expect(first["category"] == "hearth.turn")
        let id = try #require(first["id"]?.intValue)

        try inject.yourTurn("Bob", device: "device-other", seq: 2)
        let bob = try JSONValue.parse(
            try #require(await server.output.waitForLine(containing: "\"summary\": \"Bob is playing\"")))
        #expect(bob["replaces_id"]?.intValue == id)
        #expect(bob["id"]?.intValue == id)
        #expect(bob["urgency"] == 0)
        #expect(bob["actions"] == [])
        try inject.yourTurn("Ann", device: here, seq: 3)
        try #require(await server.output.waitForLine { $0.contains("Your turn, Ann") && $0.contains("turn 3") } != nil)
        #expect(try Self.notifies(server).map { $0["id"]?.intValue } == [id, id, id])

        #expect(try await session.press(id: UInt32(id), action: "done") == 0)
        let action = try #require(await monitor.output.waitForLine(containing: "\"topic\":\"notify.action\""))
        #expect(try JSONValue.parse(action)["event"]?["data"]?["command"] == "done")
        // The press's command reaches the turn service (sent after `notify.action` is published,
        // on a task of its own: awaited here, not assumed).
        let done = try #require(await pressed.wait(timeout: .seconds(5)))
        #expect(done.command == "done")
        // A stale update (seq 2 again, say a late duplicate) shows nothing; seq 4 shows.
        try inject.yourTurn("Bob", device: "device-other", seq: 2)
        try inject.yourTurn("Cy", device: "device-other", seq: 4)
        try #require(await server.output.waitForLine(containing: "\"summary\": \"Cy is playing\"") != nil)
        let summaries = try Self.notifies(server).map { $0["summary"]?.stringValue ?? "" }
        #expect(summaries == ["Your turn, Ann", "Bob is playing", "Your turn, Ann", "Cy is playing"])
        // (A notifier starting up may first ask the turn service which games are in play.)
        let commands = received.withLock { $0 }.filter { $0.command != "sessions" }
        #expect(commands.map(\.command) == ["done"])
        #expect(commands.first?.arguments == ["code": "J7X-3", "player": "id-Ann", "seq": 3])

        serving.cancel()
        await inject.publisher.close()
        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit(timeout: .seconds(2)) == 0)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test(
        "quiet hours hold a reminder, drop a brief sync notice, let 'Your turn' through once allowed, and release the reminder when they end"
    )
    func quietHours() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        let home = try TemporaryHome()
        // Quiet from an hour ago to two hours ahead, in UTC (the notifier runs with TZ=UTC).
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        func clock(_ date: Date) -> String {
            let parts = utc.dateComponents([.hour, .minute], from: date)
            return String(format: "%02d:%02d", parts.hour!, parts.minute!)
        }
        let quiet = "\(clock(Date() - 3_600))-\(clock(Date() + 7_200))"
        try "[notify]\nquiet_hours = \"\(quiet)\"\n".write(
            toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let stack = try await TestStack(
            [.bus, .notifier], home: home, environment: session.environment.merging(["TZ": "UTC"]) { $1 },
            context: context)
        let here = try DeviceIdentity.load(home: stack.home.path)
        let monitor = try await ChildProcess(
            "hearth", ["monitor", "--json", "notify."], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)
        let inject = try await Injector(stack, context: context, source: "scheduler")

        func suppressed(_ key: String) async throws -> JSONValue {
            let line = try #require(
                await monitor.output.waitForLine {
                    $0.contains("notify.suppressed") && $0.contains("\"key\":\"\(key)\"")
                })
            return try #require(try JSONValue.parse(line)["event"]?["data"])
        }
        _ = try inject.publisher.publish(
            topic: "reminder.due", type: "reminder.due",
            data: ["reminder": ["id": "r1", "title": "Feed the cat", "due": .string(Timestamp.format(Date()))]])
        let held = try await suppressed("reminder.r1")
        #expect(held["reason"]?.stringValue == "quiet hours \(quiet), held until \(quiet.suffix(5))")
        #expect(held["held_until"] != nil)
        // Critical, but the person has not allowed it to break through: held too.
        try inject.yourTurn("Ann", device: here, seq: 1)
        #expect(try await suppressed("turn.J7X-3")["category"] == "turns")

        let allowed = try await ChildProcess.run(
            "hearth", ["notify", "settings", "--critical-breaks-quiet-hours", "true", "--json"],
            environment: stack.environment)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try JSONValue.parse(allowed.stdout)["notifier_reloaded"] == true)
        try inject.yourTurn("Ann", device: here, seq: 2)
        let turn = try JSONValue.parse(
            try #require(await server.output.waitForLine(containing: "\"summary\": \"Your turn, Ann\"")))
        #expect(turn["urgency"] == 2)
        #expect(turn["body"] == "Game J7X-3 · turn 2")
        _ = try inject.publisher.publish(
            topic: "sync.completed", type: "sync.completed",
            data: try JSONValue(
                encoding: SyncCompletedEvent(
                    peer: PeerRef(device: "d-mum", name: "Mum"), received: 3, sent: 1, conflicts: 0, bytes: 900,
                    durationMs: 30, detail: "")))
        #expect(try await suppressed("sync.d-mum")["reason"]?.stringValue == "quiet hours \(quiet)")
        #expect(try Self.notifies(server).map { $0["summary"]?.stringValue ?? "" } == ["Your turn, Ann"])

        // Quiet hours end (turned off here): the held reminder shows; the dropped notice does not.
        let off = try await ChildProcess.run(
            "hearth", ["notify", "settings", "--quiet-hours", "off"], environment: stack.environment)
        #expect(off.status == 0, "\(off.stderr)")
        let reminder = try JSONValue.parse(
            try #require(await server.output.waitForLine(containing: "\"summary\": \"Feed the cat\"")))
        #expect(reminder["actions"] == ["done", "Done", "snooze", "Snooze"])
        #expect(
            try Self.notifies(server).map { $0["summary"]?.stringValue ?? "" } == ["Your turn, Ann", "Feed the cat"])

        await inject.publisher.close()
        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit(timeout: .seconds(2)) == 0)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test(
        "after a gap in the turn service's events, the notifier asks it what is current: the missed 'Your turn' shows and an ended game's popup closes"
    )
    func gapRecovery() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        let stack = try await TestStack([.bus, .notifier], environment: session.environment, context: context)
        let here = try DeviceIdentity.load(home: stack.home.path)
        // The turn service's answers: no game at first; after the gap, J7X-3 is being played
        // with Ann at this device to play, and K2M-4 is over. (It starts after the notifier,
        // whose start-up catch-up found no turn service, so it is asked only on the gap.)
        let playing = Mutex(false)
        let asked = Mutex<[String]>([])
        let turnService = try CommandServer(
            context: context, endpoint: stack.configuration.commandEndpoint(.turn), service: "turn",
            logger: Logger(label: "test.turn"),
            handler: { request in
                asked.withLock { $0.append(request.command) }
                guard playing.withLock({ $0 }) else { return ["sessions": []] }
                let ann: JSONValue = ["id": "id-Ann", "name": "Ann", "device": .string(here), "present": true]
                if request.command == "status" {
                    return [
                        "id": "s1", "code": "J7X-3", "seq": 9, "turn": 4, "state": "playing", "leader": "id-Ann",
                        "current": "id-Ann", "players": [ann],
                    ]
                }
                return [
                    "sessions": [
                        [
                            "code": "J7X-3", "joined": true, "state": "playing", "leader": "Ann", "players": 1,
                            "device": .string(here),
                        ]
                    ]
                ]
            })
        let serving = Task { try await turnService.run() }
        let inject = try await Injector(stack, context: context, source: "turn")

        _ = try inject.publisher.publish(
            topic: "turn.K2M-4.your-turn", type: "turn.your-turn",
            data: [
                "code": "K2M-4", "seq": 3, "turn": 1,
                "player": ["id": "id-Ann", "name": "Ann", "device": .string(here)],
            ],
            seq: 1)
        let ended = try JSONValue.parse(
            try #require(await server.output.waitForLine(containing: "Game K2M-4")))
        let endedID = try #require(ended["id"]?.intValue)
        playing.withLock { $0 = true }
        // seq 2 never arrives: the next event is a gap.
        _ = try inject.publisher.publish(
            topic: "turn.K2M-4.changed", type: "turn.changed",
            data: ["session": ["code": "K2M-4", "seq": 4, "players": []], "change": ["kind": "started"]], seq: 3)

        let missed = try JSONValue.parse(
            try #require(await server.output.waitForLine(containing: "Game J7X-3")))
        #expect(missed["summary"] == "Your turn, Ann")
        #expect(missed["body"] == "Game J7X-3 · turn 4")
        #expect(missed["actions"] == ["done", "Done"])
        #expect(
            await server.output.waitForLine {
                $0.contains("\"call\": \"CloseNotification\"") && $0.contains("\"id\": \(endedID)")
            } != nil)
        #expect(asked.withLock { $0 }.suffix(2) == ["sessions", "status"])

        serving.cancel()
        await inject.publisher.close()
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test("one forged turn event with seq 10^12 does not mute the real ones after it")
    func forgedSequenceJump() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        let stack = try await TestStack([.bus, .notifier], environment: session.environment, context: context)
        let here = try DeviceIdentity.load(home: stack.home.path)
        let inject = try await Injector(stack, context: context, source: "turn")
        func yourTurn(_ name: String, game: Int64, envelope seq: UInt64) throws {
            _ = try inject.publisher.publish(
                topic: "turn.J7X-3.your-turn", type: "turn.your-turn",
                data: [
                    "code": "J7X-3", "seq": .int(game), "turn": .int(game),
                    "player": ["id": .string("id-\(name)"), "name": .string(name), "device": .string(here)],
                ],
                seq: seq)
        }
        try yourTurn("Ann", game: 1, envelope: 1)
        try #require(await server.output.waitForLine { $0.contains("Your turn, Ann") } != nil)
        // A forged event (same source and device) claims a sequence far ahead.
        _ = try inject.publisher.publish(
            topic: "turn.ZZZ-9.changed", type: "turn.changed", data: ["forged": true], seq: 1_000_000_000_000)
        try yourTurn("Bob", game: 2, envelope: 2)
        try #require(await server.output.waitForLine { $0.contains("Your turn, Bob") } != nil)
        await inject.publisher.close()
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test(
        "a notifier restarted after a suggestion was accepted closes its popup; one still open is shown again in place")
    func restartReconciles() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        let stack = try await TestStack([.bus, .store, .notifier], environment: session.environment, context: context)
        func suggest(_ month: String, _ title: String) async throws -> String {
            let reply = try JSONValue.parse(
                try await hearthSucceeding(
                    stack, ["event", "suggest", month, "--year", "2026", "--title", title, "--json"]))
            return try #require(reply["suggestion"]?["id"]?.stringValue)
        }
        let decided = try await suggest("aug", "Beach day")
        _ = try await suggest("sep", "Harvest fair")
        let first = try JSONValue.parse(try #require(await server.output.waitForLine(containing: "Beach day")))
        let second = try JSONValue.parse(try #require(await server.output.waitForLine(containing: "Harvest fair")))
        let decidedID = try #require(first["id"]?.intValue)
        let openID = try #require(second["id"]?.intValue)
        // The notifier records what it shows (written off its hot path): no event says when.
        let record = stack.home.file("run/notifier-popups.json")
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline,
            (try? JSONValue.parse(String(contentsOfFile: record, encoding: .utf8)))?.objectValue?.count != 2
        {
            try await Task.sleep(for: .milliseconds(20))
        }

        let notifier = try #require(stack.processes[.notifier])
        notifier.signal(SIGKILL)
        #expect(await notifier.waitForExit(timeout: .seconds(5)) == -SIGKILL)
        _ = try await hearthSucceeding(stack, ["event", "accept", decided])
        let mark = server.output.count
        let restarted = try await TestStack.start(.notifier, environment: stack.environment)
        // The accepted one's popup is closed; the open one is shown again under its own id.
        #expect(
            await server.output.waitForLine(from: mark) {
                $0.contains("\"call\": \"CloseNotification\"") && $0.contains("\"id\": \(decidedID)")
            } != nil)
        let again = try JSONValue.parse(
            try #require(await server.output.waitForLine(from: mark) { $0.contains("Harvest fair") }))
        #expect(again["replaces_id"]?.intValue == openID)
        restarted.signal(SIGTERM)
        #expect(await restarted.waitForExit(timeout: .seconds(3)) == 0)
        for (service, status) in await stack.stop() where service != .notifier { #expect(status == 0, "\(service)") }
    }

    @Test("a suggestion titled with markup reaches the notification server escaped")
    func markupEscaped() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        let stack = try await TestStack([.bus, .notifier], environment: session.environment, context: context)
        let inject = try await Injector(stack, context: context, source: "store")
        _ = try inject.publisher.publish(
            topic: "store.suggestion.changed", type: "store.changed",
            data: try JSONValue(
                reply: SuggestionMade(
                    suggestion: SuggestionView(
                        id: "0f0f0f0f-0000-4000-8000-000000000001", year: 2026, month: 8, monthName: "August",
                        title: "<a href=\"http://evil.example/\">click</a> <b>bold</b> & more", location: nil, day: nil,
                        status: "open", suggestedBy: "0f0f0f0f-0000-4000-8000-00000000000a", suggestedByName: "Mum",
                        suggestedAt: "2026-11-27T10:00:00.000Z", decidedBy: nil, decidedAt: nil))))
        let call = try JSONValue.parse(try #require(await server.output.waitForLine(containing: "Mum suggested")))
        let summary = try #require(call["summary"]?.stringValue)
        #expect(
            summary.contains(
                "&lt;a href=\"http://evil.example/\"&gt;click&lt;/a&gt; &lt;b&gt;bold&lt;/b&gt; &amp; more"))
        #expect(!summary.contains("<a "))
        await inject.publisher.close()
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
