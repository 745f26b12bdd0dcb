import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// The notifier with real processes: bus, store and notifier on a private D-Bus session with the
/// test kit's notification server.
@Suite("End to end: notifier", .serialized, .timeLimit(.minutes(2)))
struct NotifierTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("a suggestion pops up with Accept and Decline; Accept puts it on the card and closes the popup")
    func suggestionAccepted() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try #require(session.server)
        let stack = try await TestStack([.bus, .store, .notifier], environment: session.environment, context: context)
        let monitor = try await ChildProcess("hearth", ["monitor", "--json"], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)

        let suggested = try await ChildProcess.run(
            "hearth", ["event", "suggest", "aug", "--year", "2026", "--title", "Beach day", "--day", "14"],
            environment: stack.environment)
        #expect(suggested.status == 0, "\(suggested.stderr)")

        let line = try #require(await server.output.waitForLine(containing: "\"call\": \"Notify\""))
        let call = try JSONValue.parse(line)
        #expect(call["summary"] == .string("\(DeviceIdentity.hostName()) suggested 'Beach day' on the 14th for August"))
        #expect(call["actions"] == ["accept", "Accept", "decline", "Decline"])
        #expect(call["category"] == "hearth.suggestion")
        let id = try #require(call["id"]?.intValue)
        let shown = try #require(await monitor.output.waitForLine(containing: "\"topic\":\"notify.shown\""))
        #expect(try JSONValue.parse(shown)["event"]?["data"]?["latency_ms"]?.doubleValue != nil)

        #expect(try await session.press(id: UInt32(id), action: "accept") == 0)
        try #require(await monitor.output.waitForLine(containing: "\"topic\":\"notify.action\"") != nil)
        try #require(await monitor.output.waitForLine(containing: "\"topic\":\"store.event_card.changed\"") != nil)
        let card = try await ChildProcess.run(
            "hearth", ["event", "show", "aug", "--year", "2026", "--json"], environment: stack.environment)
        #expect(try JSONValue.parse(card.stdout)["title"] == "Beach day")
        // The decided suggestion's popup is closed, not left stale.
        try #require(await server.output.waitForLine(containing: "\"call\": \"CloseNotification\"") != nil)
        #expect(server.output.lines.filter { $0.contains("\"call\": \"Notify\"") }.count == 1)

        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit(timeout: .seconds(2)) == 0)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test("with no notification server, notify.failed is published; when one arrives, only the latest state is shown")
    func serverAway() async throws {
        let session = try await DBusSession(notificationServer: false)
        let stack = try await TestStack([.bus, .store, .notifier], environment: session.environment, context: context)
        let monitor = try await ChildProcess(
            "hearth", ["monitor", "--json", "notify.", "store."], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)

        func suggest(_ title: String) async throws -> String {
            let result = try await ChildProcess.run(
                "hearth", ["event", "suggest", "aug", "--year", "2026", "--title", title, "--json"],
                environment: stack.environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(try JSONValue.parse(result.stdout)["suggestion"]?["id"]?.stringValue)
        }
        let stale = try await suggest("Beach day")
        let failed = try #require(await monitor.output.waitForLine(containing: "\"topic\":\"notify.failed\""))
        #expect(try JSONValue.parse(failed)["event"]?["data"]?["key"]?.stringValue == "suggestion.\(stale)")
        _ = try await suggest("Camping")
        let declined = try await ChildProcess.run(
            "hearth", ["event", "decline", stale], environment: stack.environment)
        #expect(declined.status == 0)
        try #require(await monitor.output.waitForLine(containing: "\"status\":\"declined\"") != nil)

        let server = try await session.startNotificationServer()
        let line = try #require(
            await server.output.waitForLine(timeout: .seconds(40)) { $0.contains("\"call\": \"Notify\"") })
        #expect(
            try JSONValue.parse(line)["summary"]
                == .string("\(DeviceIdentity.hostName()) suggested 'Camping' for August"))
        #expect(
            await monitor.output.waitForLine(timeout: .seconds(5)) { $0.contains("\"topic\":\"notify.shown\"") } != nil)
        #expect(server.output.lines.filter { $0.contains("\"call\": \"Notify\"") }.count == 1)

        server.signal(SIGTERM)
        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit(timeout: .seconds(2)) == 0)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test(
        "when the notification server restarts, a popup that waits for an answer is shown again on the new one, and its buttons work"
    )
    func serverRestarts() async throws {
        let session = try await DBusSession(notificationServer: true)
        let first = try #require(session.server)
        let stack = try await TestStack([.bus, .store, .notifier], environment: session.environment, context: context)
        let made = try await ChildProcess.run(
            "hearth", ["event", "suggest", "aug", "--year", "2026", "--title", "Camping", "--json"],
            environment: stack.environment)
        let id = try #require(try JSONValue.parse(made.stdout)["suggestion"]?["id"]?.stringValue, "\(made.stderr)")
        try #require(await first.output.waitForLine(timeout: .seconds(20)) { $0.contains("'Camping'") } != nil)

        // The desktop's notification daemon restarts: what it showed is gone.
        first.signal(SIGTERM)
        _ = await first.waitForExit(timeout: .seconds(5))
        let second = try await session.startNotificationServer()
        let again = try JSONValue.parse(
            try #require(await second.output.waitForLine(timeout: .seconds(20)) { $0.contains("'Camping'") }))
        #expect(again["actions"] == ["accept", "Accept", "decline", "Decline"], "\(again)")
        #expect(again["replaces_id"] == 0, "a new popup on the new server: \(again)")
        // Its button reaches the store under the new server's id.
        let monitor = try await ChildProcess(
            "hearth", ["monitor", "--json", "store.suggestion."], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)
        let popup = try #require(again["id"]?.intValue.flatMap { UInt32(exactly: $0) })
        #expect(try await session.press(id: popup, action: "accept") == 0)
        #expect(
            await monitor.output.waitForLine(timeout: .seconds(10)) {
                $0.contains(id) && $0.contains("\"status\":\"accepted\"")
            } != nil)
        monitor.signal(SIGTERM)
        second.signal(SIGTERM)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
