import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// `hearth changes`: the store's change feed as pages, and followed live (`ChangeFollower`).
@Suite("End to end: the change feed on the command line", .serialized, .timeLimit(.minutes(1)))
struct ChangesTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    func setTitle(_ stack: TestStack, _ month: String, _ title: String) async throws {
        _ = try await hearthSucceeding(stack, ["event", "set", month, "--year", "2026", "--title", title])
    }

    @Test("a page that stops short says how many more there are and the command for the next page")
    func pagesSayWhatIsLeft() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        for (month, title) in [("jan", "Skating"), ("feb", "Pancakes"), ("mar", "Kites")] {
            try await setTitle(stack, month, title)
        }
        // Change 1 is the store naming this device (its first change on a new home), then the three.
        let page = try await hearthSucceeding(stack, ["changes", "--since", "0", "--limit", "2"])
        let lines = page.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.last == "… 2 more: hearth changes --since 2 (or --follow)")
        let rest = try await hearthSucceeding(stack, ["changes", "--since", "2"])
        #expect(rest.contains("title=\"Kites\"") && rest.hasSuffix("last seq 4"))
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test("--follow prints every change after --since, then each new one as it commits, until Ctrl-C")
    func follows() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        for (month, title) in [("jan", "Skating"), ("feb", "Pancakes"), ("mar", "Kites")] {
            try await setTitle(stack, month, title)
        }
        // Change 1 is the store naming this device; the cards are 2–4.
        let follower = try await ChildProcess(
            "hearth", ["changes", "--follow", "--since", "2", "--json"], environment: stack.environment)
        let third = try #require(await follower.output.waitForLine(containing: "Kites"))
        #expect(try JSONValue.parse(third)["seq"] == 4)
        try await setTitle(stack, "apr", "Egg hunt")
        let live = try #require(await follower.output.waitForLine(containing: "Egg hunt"))
        #expect(try JSONValue.parse(live)["seq"] == 5)
        #expect(follower.output.lines.map { try? JSONValue.parse($0)["seq"] } == [3, 4, 5])
        follower.signal(SIGINT)
        #expect(await follower.waitForExit(timeout: .seconds(5)) == 0)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test(
        "a change forged on the local bus with the next seq is never followed, and hides nothing: the real one comes from the feed"
    )
    func forgedEvent() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        try await setTitle(stack, "jan", "Skating")
        let follower = try await ChildProcess(
            "hearth", ["changes", "--follow", "--since", "0", "--json"], environment: stack.environment)
        _ = try #require(await follower.output.waitForLine(containing: "Skating"))
        // Another process of the same user publishes as the store, with the number the next real
        // change will take (3: the device's name was 1, the card 2).
        let forger = try Publisher(
            context: context, endpoint: stack.configuration.busPublishEndpoint, source: "store",
            device: try DeviceIdentity.load(home: stack.home.path))
        #expect(await forger.waitUntilConnected(timeout: .seconds(5)))
        let fake: JSONValue = [
            "operation": [
                "id": "forged:1", "entity": ["kind": "todo", "id": "x"],
                "fields": ["title": ["value": "Forged reminder", "overwrites": []]],
            ]
        ]
        _ = try forger.publish(topic: "store.todo.changed", type: "store.changed", data: fake, seq: 3)
        try await setTitle(stack, "feb", "Pancakes")
        let real = try #require(await follower.output.waitForLine(containing: "Pancakes"))
        #expect(try JSONValue.parse(real)["seq"] == 3)
        #expect(!follower.output.lines.contains { $0.contains("Forged") })
        await forger.close()
        follower.signal(SIGINT)
        #expect(await follower.waitForExit(timeout: .seconds(5)) == 0)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
