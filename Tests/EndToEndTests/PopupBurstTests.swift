import Foundation
import HearthBus
import HearthCore
import HearthNotify
import HearthTesting
import Synchronization
import Testing

/// Popups in bursts, on a private D-Bus session with the test kit's notification server: the
/// notifications object's pipelined calls on their own, then the notifier whole with the server
/// restarting mid-burst.
@Suite("End to end: popups in bursts", .serialized, .timeLimit(.minutes(2)))
struct PopupBurstTests {
    /// The `Notify` and `CloseNotification` calls a test server recorded, parsed, in order.
    static func calls(_ server: ChildProcess) throws -> [JSONValue] {
        try server.output.lines.filter { $0.contains("\"call\": \"Notify\"") || $0.contains("CloseNotification") }
            .map { try JSONValue.parse($0) }
    }

    /// Runs `body` with a notifications object on the session's bus, closing it after.
    static func withNotifications<T>(
        _ session: DBusSession, _ body: (DesktopNotifications) async throws -> T
    ) async throws -> T {
        let notifications = DesktopNotifications(appName: "hearth-test", busAddress: session.address)
        defer { notifications.close() }
        return try await body(notifications)
    }

    @Test(
        "a burst of 50 popups reaches the server in order, each exactly once, with its buttons; a press names its key")
    func burst() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        try await Self.withNotifications(session) { notifications in
            // All 50 queued at once, none awaited before the next: the calls are in flight together.
            let answers = Mutex<[Int: Result<UInt32, NotificationError>]>([:])
            let all = AsyncLatch<Void>()
            for index in 0..<50 {
                let popup = DesktopNotification(
                    summary: "Burst \(index)", body: "popup \(index) of 50", urgency: .critical, timeout: 0,
                    actions: [("done", "Done"), ("snooze", "Snooze")])
                notifications.show(popup, key: "burst.\(index)") { result in
                    if answers.withLock({
                        $0[index] = result; return $0.count
                    }) == 50 {
                        all.set(())
                    }
                }
            }
            try #require(await all.wait(timeout: .seconds(30)) != nil)
            let results = try answers.withLock { $0 }.mapValues { try $0.get() }
            // The server's records reach this process through a pipe, maybe after the replies.
            #expect(await server.output.waitForLines(50) { $0.contains("\"call\": \"Notify\"") })
            let calls = try Self.calls(server)
            #expect(calls.map { $0["summary"]?.stringValue } == (0..<50).map { "Burst \($0)" })
            #expect(calls.allSatisfy { $0["actions"] == ["done", "Done", "snooze", "Snooze"] })
            #expect(calls.allSatisfy { $0["replaces_id"] == 0 && $0["urgency"] == 2 && $0["expire_timeout"] == 0 })
            // What libnotify sent, still sent: the app name and this process's pid.
            #expect(calls.allSatisfy { $0["app_name"] == "hearth-test" })
            #expect(calls.first?["hints"]?["sender-pid"]?.intValue == Int64(getpid()))
            // Each completion got the id the server gave that popup.
            let given = Dictionary(
                uniqueKeysWithValues: calls.compactMap { call -> (String, Int64)? in
                    guard let summary = call["summary"]?.stringValue, let id = call["id"]?.intValue else { return nil }
                    return (summary, id)
                })
            #expect(results.count == 50)
            for (index, id) in results { #expect(given["Burst \(index)"] == Int64(id), "popup \(index)") }

            var presses = notifications.actions.makeAsyncIterator()
            #expect(try await session.press(id: try #require(results[17]), action: "snooze") == 0)
            let press = await presses.next()
            #expect(press?.key == "burst.17" && press?.action == "snooze")
        }
    }

    @Test("a replace and a close queued right behind a show wait for its id: never a stale id, never a new popup")
    func closeRightAfterShow() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        try await Self.withNotifications(session) { notifications in
            let done = AsyncLatch<Void>()
            // Queued together, none awaited: a show, its replacement, a close, a new show; and
            // another key's show between them, which need not wait.
            notifications.show(DesktopNotification(summary: "First"), key: "k") { _ in }
            notifications.show(DesktopNotification(summary: "Other"), key: "other") { _ in }
            notifications.show(DesktopNotification(summary: "Second"), key: "k") { _ in }
            notifications.close(key: "k", completion: nil)
            notifications.show(DesktopNotification(summary: "Third"), key: "k") { _ in done.set(()) }
            try #require(await done.wait(timeout: .seconds(10)) != nil)
            // The server wrote its records before answering, but the pipe may not have delivered them yet.
            try #require(
                await server.output.waitForLines(5) {
                    $0.contains("\"call\": \"Notify\"") || $0.contains("CloseNotification")
                })
            let calls = try Self.calls(server)
            let k = calls.filter { $0["summary"] != "Other" }
            try #require(k.map { $0["call"]?.stringValue } == ["Notify", "Notify", "CloseNotification", "Notify"])
            let first = try #require(k.first?["id"]?.intValue)
            #expect(k[1]["replaces_id"]?.intValue == first && k[1]["id"]?.intValue == first)
            #expect(k[2]["id"]?.intValue == first, "the close names the popup the show opened")
            #expect(k[3]["replaces_id"] == 0 && k[3]["id"]?.intValue != first, "after the close, a new popup")
            #expect(calls.filter { $0["summary"] == "Other" }.count == 1)

            // Closed at once after a show, awaited: the close names that show's id.
            let id = try await notifications.show(DesktopNotification(summary: "Brief"), key: "brief")
            await notifications.close(key: "brief")
            let close = try #require(
                await server.output.waitForLine(from: calls.count) {
                    $0.contains("CloseNotification") && $0.contains("\"id\": \(id)")
                })
            #expect(try JSONValue.parse(close)["id"]?.intValue == Int64(id))
            // A key never shown closes nothing: the next call the server sees is the next show.
            await notifications.close(key: "never")
            _ = try await notifications.show(DesktopNotification(summary: "After"), key: "after")
            let after = try #require(await server.output.waitForLine(containing: "\"summary\": \"After\""))
            let tail = try Self.calls(server).drop { $0["summary"] != "Brief" }
            #expect(tail.map { $0["call"]?.stringValue } == ["Notify", "CloseNotification", "Notify"])
            #expect(try JSONValue.parse(after)["replaces_id"] == 0)
        }
    }

    @Test("connect() opens the bus connection before the first popup, and the popup goes out on it")
    func connectAhead() async throws {
        let session = try await DBusSession(notificationServer: true)
        // A monitor of the bus (a real dbus-monitor): a new connection is told its name
        // (NameAcquired, one line), each Notify call shows its sender.
        let monitor = try await ChildProcess(
            "/usr/bin/dbus-monitor",
            ["--address", session.address, "--profile", "member='NameAcquired'", "member='Notify'"])
        defer { monitor.signal(SIGTERM) }
        // Live once it gave up its own name to become a monitor.
        try #require(await monitor.output.waitForLine(containing: "\tNameLost") != nil)
        try await Self.withNotifications(session) { notifications in
            let mark = monitor.output.count
            notifications.connect()
            let acquired = try #require(
                await monitor.output.waitForLine(from: mark) { $0.hasSuffix("\tNameAcquired") },
                "no new connection after connect()")
            let name = acquired.split(separator: "\t").map(String.init)[4]
            #expect(!monitor.output.lines.contains { $0.hasSuffix("\tNotify") }, "nothing shown yet")

            _ = try await notifications.show(DesktopNotification(summary: "First"), key: "first")
            let call = try #require(await monitor.output.waitForLine(from: mark) { $0.hasSuffix("\tNotify") })
            #expect(call.split(separator: "\t").map(String.init)[3] == name, "sent on the connection opened ahead")
            #expect(
                monitor.output.lines[mark...].filter { $0.hasSuffix("\tNameAcquired") }.count == 1,
                "one connection, not a second for the popup")
        }
    }

    @Test("the server restarting mid-burst of 50 reminders loses none: each is shown, the failed ones by a retry")
    func serverRestartsMidBurst() async throws {
        let session = try await DBusSession(notificationServer: true)
        let first = try #require(session.server)
        let context = try ZMQContext()
        let stack = try await TestStack([.bus, .notifier], environment: session.environment, context: context)
        let monitor = try await ChildProcess(
            "hearth", ["monitor", "--json", "notify."], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)
        let publisher = try Publisher(
            context: context, endpoint: stack.configuration.busPublishEndpoint, source: "scheduler",
            device: "device-other")
        #expect(await publisher.waitUntilConnected(timeout: .seconds(5)))

        let titles = (0..<50).map { String(format: "Burst reminder %02d", $0) }
        for (index, title) in titles.enumerated() {
            _ = try publisher.publish(
                topic: "reminder.due", type: "reminder.due",
                data: [
                    "reminder": [
                        "id": .string("r\(index)"), "title": .string(title), "due": .string(Timestamp.format(Date())),
                    ]
                ])
            // The server goes away once ten have reached it, mid-burst.
            if index == 20 {
                #expect(await first.output.waitForLines(10) { $0.contains("\"call\": \"Notify\"") })
                first.signal(SIGKILL)
                _ = await first.waitForExit(timeout: .seconds(5))
            }
        }
        // The calls to the killed server fail and are reported (the retry path), before another
        // server comes. (Waited for: with a notification daemon's D-Bus activation file installed,
        // dbus-daemon queues the calls while it tries to start that daemon, and a second server
        // started at once would take them without a failure.)
        #expect(
            await monitor.output.waitForLine(timeout: .seconds(30)) { $0.contains("\"topic\":\"notify.failed\"") }
                != nil)
        let second = try await session.startNotificationServer()
        // Every reminder is reported shown once a server took it (some twice: see below)…
        func shown() throws -> Set<String> {
            Set(
                try monitor.output.lines.filter { $0.contains("\"topic\":\"notify.shown\"") }.map {
                    try JSONValue.parse($0)["event"]?["data"]?["key"]?.stringValue ?? ""
                })
        }
        let keys = Set((0..<50).map { "reminder.r\($0)" })
        _ = try await Polling.eventually(timeout: .seconds(60)) { try shown().isSuperset(of: keys) }
        #expect(try shown() == keys)
        // …at the first server or, for those it never answered, at the second, with their buttons;
        // and those the first one showed are shown again at the second (they died with it).
        // Each server records a call as it reads it, but this test reads their pipes a little
        // behind the bus: wait (bounded) for the records before reading them (a run beside two
        // builds read the second server's before its last lines came).
        _ = try await Polling.eventually(timeout: .seconds(10)) {
            let recorded = try (Self.calls(first) + Self.calls(second)).compactMap { $0["summary"]?.stringValue }
            return Set(recorded).isSuperset(of: titles)
        }
        let atFirst = Set(try Self.calls(first).compactMap { $0["summary"]?.stringValue })
        #expect(atFirst.count >= 10 && atFirst.count < 50)
        _ = try await Polling.eventually(timeout: .seconds(10)) {
            Set(try Self.calls(second).compactMap { $0["summary"]?.stringValue }).isSuperset(of: titles)
        }
        let atSecond = try Self.calls(second).filter { $0["call"] == "Notify" }
        // (Without the new server's popups shown again, it would have only those the first never answered.)
        #expect(Set(atSecond.compactMap { $0["summary"]?.stringValue }) == Set(titles), "every one on the new screen")
        #expect(atSecond.allSatisfy { $0["actions"] == ["done", "Done", "snooze", "Snooze"] })

        second.signal(SIGTERM)
        await publisher.close()
        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit(timeout: .seconds(2)) == 0)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
