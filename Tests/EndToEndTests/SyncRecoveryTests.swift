import Foundation
import GRDB
import HearthBus
import HearthTesting
import Testing

/// Sync when something went wrong: a copied home, a restored backup, a service killed mid-transfer.
extension SeveralDevices.SyncTests {
    @Test("a copy of a device's home (a cloned SD card) announcing its id is reported loudly on the original")
    func clone() async throws {
        let port = LoopbackTurns.randomPort()
        let ann = try await Device("Ann", port: port, context: context)
        let copy = try TemporaryHome()
        for file in ["device-id", "curve-secret-key"] {
            try FileManager.default.copyItem(atPath: ann.stack.home.file(file), toPath: copy.file(file))
        }
        var environment = LoopbackTurns.environment(port: port)
        environment["HEARTH_SYNC_ENDPOINT"] = "tcp://127.0.0.1:*"
        let twin = try await TestStack(
            [.bus, .store, .sync], home: copy, environment: environment, context: context)
        let reported = try #require(await ann.event("device.clone", timeout: .seconds(10)))
        #expect(reported["detail"]?.stringValue?.contains("announces this device's id \(ann.id)") == true)
        let diag = try await ann.json(["sync", "diag"])
        #expect((diag["lines"]?.arrayValue ?? []).contains { $0["kind"] == "clone" })
        _ = await twin.stop()
        await ann.stop()
    }

    @Test("restored from a backup, a device takes back from its peer what it made since before writing again")
    func restoredTakesBack() async throws {
        let port = LoopbackTurns.randomPort()
        let ann = try await Device("Ann", port: port, context: context)
        let bob = try await Device("Bob", port: port, context: context)
        try await Self.pair(ann, bob)
        _ = try await hearthSucceeding(ann.stack, ["event", "set", "jan", "--year", "2026", "--title", "Skating"])
        let backup = ann.stack.home.file("backup.sqlite")
        _ = try await hearthSucceeding(ann.stack, ["backup", backup])
        // After the backup Ann makes two more changes, and Bob gets them.
        _ = try await hearthSucceeding(ann.stack, ["event", "set", "feb", "--year", "2026", "--title", "Pancakes"])
        _ = try await hearthSucceeding(ann.stack, ["event", "set", "mar", "--year", "2026", "--title", "Kites"])
        _ = try await ann.json(["sync", "now", "Bob"])
        // Ann's disk dies; her backup goes back in.
        ann.stack.processes[.store]!.signal(SIGTERM)
        _ = await ann.stack.processes[.store]!.waitForExit(timeout: .seconds(3))
        _ = try await hearthSucceeding(ann.stack, ["restore", backup])
        let store = try await TestStack.start(.store, environment: ann.stack.environment)
        #expect(
            await TestStack.waitUntilAnswering(
                ann.stack.configuration.commandEndpoint(.store), context: context, timeout: .seconds(10)))
        let early = try await ann.stack.hearth(["event", "set", "apr", "--year", "2026", "--title", "Egg hunt"])
        #expect(early.status == 2, "a restored device writes nothing before it has its own operations back")
        let synced = try await ann.json(["sync", "now", "Bob"])["syncs"]?.arrayValue?.first
        #expect(synced?["outcome"] == "completed", "\(String(describing: synced))")
        let detail = synced?["detail"]?.stringValue ?? ""
        #expect(detail.contains("took back"), "\(detail)")
        let cards = try await ann.json(["event", "list", "--year", "2026"])["cards"]?.arrayValue ?? []
        #expect(cards.prefix(3).map { $0["title"]?.stringValue } == ["Skating", "Pancakes", "Kites"])
        // Now it writes, numbering after what it took back, and Bob takes the new change.
        _ = try await hearthSucceeding(ann.stack, ["event", "set", "apr", "--year", "2026", "--title", "Egg hunt"])
        let again = try await ann.json(["sync", "now", "Bob"])["syncs"]?.arrayValue?.first
        #expect(again?["outcome"] == "completed" && again?["sent"] == 1, "\(String(describing: again))")
        let vectors = try await [ann, bob].asyncMap { try await $0.store("ops.vector", context: context)["vector"] }
        #expect(vectors[0] == vectors[1])
        store.signal(SIGTERM)
        _ = await store.waitForExit(timeout: .seconds(3))
        await ann.stop()
        await bob.stop()
    }

    @Test(
        "hearth-sync killed mid-transfer: after a restart the next sync completes, nothing lost or doubled, the store intact"
    )
    func killedMidTransfer() async throws {
        let port = LoopbackTurns.randomPort()
        let ann = try await Device("Ann", port: port, context: context)
        let bob = try await Device("Bob", port: port, context: context)
        // Ann holds 6,000 operations of a third device (three pages) (a year of cards edited many times).
        let file = ann.stack.home.file("big.json")
        try await offPool {
            try Self.bigExport(count: 6_000).jsonText.write(toFile: file, atomically: true, encoding: .utf8)
        }
        let author = TestHousehold.key("0f0f0000-0000-4000-8000-000000000001").publicKey
        _ = try await hearthSucceeding(ann.stack, ["ops", "import", file, "--trust", author.fingerprint])
        let mark = bob.monitor.output.lines.count
        try await Self.pair(bob, ann)
        // Bob's first sync starts by itself after pairing; kill it once a page of cards has arrived.
        _ = try #require(await bob.event("store.changed", timeout: .seconds(20), from: mark) { $0["card"] != nil })
        bob.stack.processes[.sync]!.signal(SIGKILL)
        _ = try #require(await bob.stack.processes[.sync]!.waitForExit(timeout: .seconds(5)))
        let partial = try await bob.store("ops.vector", context: context)["vector"]
        let arrived = partial?["0f0f0000-0000-4000-8000-000000000001"]?.intValue ?? 0
        #expect(arrived > 0 && arrived < 6_000, "killed mid-transfer, with \(arrived) of 6,000 applied")
        let restarted = try await TestStack.start(.sync, environment: bob.stack.environment)
        #expect(
            await TestStack.waitUntilAnswering(
                bob.stack.configuration.commandEndpoint(.sync), context: context, timeout: .seconds(10)))
        try await Self.hears(bob, ann)
        let result = try await bob.json(["sync", "now", "Ann"])["syncs"]?.arrayValue?.first
        #expect(result?["outcome"] == "completed", "\(String(describing: result))")
        let vectors = try await [ann, bob].asyncMap { try await $0.store("ops.vector", context: context)["vector"] }
        #expect(vectors[0] == vectors[1], "partial was \(String(describing: partial))")
        let counts = try await [ann, bob].asyncMap { device in
            var total = 0
            var after: JSONValue = .null
            repeat {
                let page = try await device.store("ops.export", ["after": after], context: context)
                total += page["operations"]?.arrayValue?.count ?? 0
                after = page["next"] ?? .null
            } while after != .null
            return total
        }
        // The 6,000, each device's name twice (its host's, then the rename), Ann's pin of the
        // file's author and the two devices' vouches for each other's signing key.
        #expect(counts[0] == counts[1] && counts[0] == 6_000 + 4 + 3, "\(counts)")
        restarted.signal(SIGTERM)
        _ = await restarted.waitForExit(timeout: .seconds(3))
        await ann.stop()
        await bob.stop()
        let store = try DatabaseQueue(path: bob.stack.home.file("hearth.sqlite"))
        #expect(try await store.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// An export of `count` operations by a device of the household not in the test: the
    /// twelve cards of 2026, each title rewritten again and again.
    static func bigExport(count: Int) -> JSONValue {
        let author = "0f0f0000-0000-4000-8000-000000000001"
        let start = Int64(Date().timeIntervalSince1970 * 1000) - Int64(count) - 60_000
        var last: [Int: String] = [:]
        var operations: [JSONValue] = []
        for index in 1...count {
            let month = (index - 1) % 12 + 1
            let id = "\(author):\(index)"
            operations.append(
                TestHousehold.signed(
                    [
                        "id": .string(id), "time": ["wall": .int(start + Int64(index)), "logical": 0],
                        "entity": ["kind": "event_card", "id": .string(String(format: "2026-%02d", month))],
                        "fields": [
                            "title": [
                                "value": .string("Plan \(index)"),
                                "overwrites": .array(last[month].map { [.string($0)] } ?? []),
                            ]
                        ],
                    ]))
            last[month] = id
        }
        return [
            "format": "hearth-ops/2", "device": .string(author),
            "signing_key": .string(TestHousehold.key(author).publicKey.text), "operations": .array(operations),
        ]
    }
}
