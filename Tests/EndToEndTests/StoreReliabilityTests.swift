import Foundation
import GRDB
import HearthBus
import HearthTesting
import Synchronization
import Testing

/// The store's reliability figures, with real `hearth-bus` and `hearth-store` processes.
@Suite("End to end: store reliability", .serialized, .timeLimit(.minutes(2)))
struct StoreReliabilityTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// Card `index` of the burst: a distinct (year, month) per command.
    static func card(_ index: Int) -> [String: JSONValue] {
        ["year": .int(Int64(3_000 + index / 12)), "month": .int(Int64(index % 12 + 1)), "title": .string("t\(index)")]
    }

    /// Sends commands `range` from `workers` concurrent clients; returns the acknowledged indices.
    static func send(
        _ range: Range<Int>, workers: Int, endpoint: String, context: ZMQContext,
        onAcknowledged: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> Set<Int> {
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    // Generous retries: a command in flight when the store dies is sent again,
                    // same id, until the restarted store answers.
                    let client = CommandClient(
                        context: context, endpoint: endpoint, timeout: .milliseconds(500), attempts: 40)
                    var acknowledged: [Int] = []
                    for index in stride(from: range.lowerBound + worker, to: range.upperBound, by: workers) {
                        _ = try await client.request("event.set", args: card(index))
                        acknowledged.append(index)
                        onAcknowledged(index)
                    }
                    await client.close()
                    return acknowledged
                }
            }
            var all = Set<Int>()
            for try await batch in group { all.formUnion(batch) }
            return all
        }
    }

    @Test("1,000 commands while the store is SIGKILLed and restarted: each acknowledged one is there exactly once")
    func killedMidBurst() async throws {
        // Replies are held 50 ms after each commit, so the kill lands while the eight in-flight
        // commands are committed but unanswered: exactly when a retry could apply one twice.
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_FAULT_REPLY_DELAY_MS": "50"], context: context)
        let endpoint = stack.configuration.commandEndpoint(.store)
        // The kill moment is random but replayable: HEARTH_TEST_SEED=<seed> repeats it.
        let seed = SplitMix.seed()
        print("store crash test: seed \(seed)")
        var random = SplitMix(seed: seed)
        let killAt = Int.random(in: 100...900, using: &random)
        let count = Atomic<Int>(0)
        let reached = AsyncSignal()
        async let acknowledged = Self.send(0..<1_000, workers: 8, endpoint: endpoint, context: context) { _ in
            if count.add(1, ordering: .relaxed).newValue == killAt { reached.fire() }
        }
        #expect(await reached.wait(timeout: .seconds(60)))
        // Replies come in waves; a random moment inside the next wave's hold kills the store
        // with commands committed but not yet answered.
        try await Task.sleep(for: .milliseconds(Int.random(in: 20...45, using: &random)))
        let first = try #require(stack.processes[.store])
        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(2)) == -SIGKILL)
        let second = try await TestStack.start(.store, environment: stack.environment)

        let acked = try await acknowledged
        #expect(acked.count == 1_000)
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(2)) == 0)
        for (service, status) in await stack.stop() where service != .store { #expect(status == 0) }

        // Read the file directly: every acknowledged card, exactly one operation each, intact.
        let database = try DatabaseQueue(path: stack.home.file("hearth.sqlite"))
        try await database.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            // The cards, and the one operation naming this device (written once, on first start).
            #expect(
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation WHERE entity_kind = 'event_card'") == 1_000)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation WHERE entity_kind = 'device'") == 1)
            let perCard = try Row.fetchAll(
                db, sql: "SELECT entity_id, COUNT(*) AS n FROM operation GROUP BY entity_id HAVING n > 1")
            #expect(perCard.isEmpty, "applied twice: \(perCard)")
            for index in acked {
                let card = Self.card(index)
                let title = try String.fetchOne(
                    db, sql: "SELECT title FROM event_card WHERE year = ? AND month = ?",
                    arguments: [card["year"]!.intValue!, card["month"]!.intValue!])
                #expect(title == "t\(index)")
            }
            #expect(try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM change") == 1_001)
        }
    }

    @Test("a follower stopped during a burst of 1,000 changes catches up through `changes`: no gap, no duplicate")
    func followerCatchesUp() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        let endpoint = stack.configuration.commandEndpoint(.store)
        let commands = CommandClient(context: context, endpoint: endpoint)
        let bus = CommandClient(context: context, endpoint: stack.configuration.commandEndpoint(.bus))

        func follow(since: UInt64) async throws -> ChangeFollower {
            try await ChangeFollower(
                context: context, busEndpoint: stack.configuration.busSubscribeEndpoint, bus: bus, source: "store",
                prefix: "store.", commands: commands, since: since)
        }

        let first = try await follow(since: 0)
        _ = try await Self.send(0..<10, workers: 1, endpoint: endpoint, context: context)
        var seen: [UInt64] = []
        var iterator = first.makeAsyncIterator()
        while seen.count < 10, let change = try await iterator.next() { seen.append(change.seq) }
        await first.close()
        #expect(seen == Array(1...10))

        // The follower is away for the burst, then comes back while more changes are committed.
        _ = try await Self.send(10..<1_010, workers: 8, endpoint: endpoint, context: context)
        let second = try await follow(since: 10)
        async let more = Self.send(1_010..<1_030, workers: 2, endpoint: endpoint, context: context)
        var caughtUp: [UInt64] = []
        var resumed = second.makeAsyncIterator()
        while caughtUp.last ?? 0 < 1_030, let change = try await resumed.next() {
            caughtUp.append(change.seq)
            #expect(change.data["operation"]?["id"]?.stringValue != nil)
        }
        #expect(try await more.count == 20)
        #expect(caughtUp == Array(11...1_030))
        await second.close()
        await commands.close()
        await bus.close()
        for status in await stack.stop().values { #expect(status == 0) }
    }
}
