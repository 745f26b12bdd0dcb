import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

/// Sync on a bad LAN: every device in its own namespace, packets dropped by nftables, the house
/// split in two and healed; at the end every device holds exactly the same operations and the
/// same rows in every domain table.
@Suite("A household LAN: loss and partitions, then exact convergence", .serialized, .timeLimit(.minutes(5)))
struct LANConvergenceTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// Three paired devices on a new LAN, the school set up and synced.
    private func household(_ lan: HouseholdLAN) async throws -> [LANDevice] {
        let devices = [
            try await LANDevice("Ann", 1, on: lan, context: context),
            try await LANDevice("Bob", 2, on: lan, context: context),
            try await LANDevice("Cal", 3, on: lan, context: context),
        ]
        await everyoneHears(devices)
        try await devices[0].pair(with: devices[1])
        try await devices[0].pair(with: devices[2])
        try await devices[1].pair(with: devices[2])
        try await HouseholdEdits.school(on: devices[0])
        let (settled, _) = try await HouseholdLAN.converge(devices)
        #expect(settled != nil, "\((try? HouseholdLAN.differences(devices)) ?? [])")
        return devices
    }

    @Test(
        "with 0, 10 and 30% of packets lost on every device, 200 edits over every domain on three devices converge exactly: the same operations and the same rows everywhere",
        arguments: [0, 10, 30]
    )
    func lossyLAN(loss: Int) async throws {
        try await withLAN(devices: 3) { lan in
            let devices = try await household(lan)
            for index in 1...3 { try await lan.lan("loss", ["\(index)", "\(loss)"]) }
            let (acknowledged, refusals) = await HouseholdEdits.run(200, on: devices)
            #expect(acknowledged == 200, "\(acknowledged) of 200 edits acknowledged: \(refusals.prefix(5))")
            let (time, rounds) = try await HouseholdLAN.converge(devices)
            #expect(time != nil, "not converged: \((try? HouseholdLAN.differences(devices)) ?? [])")
            let operations = try devices[0].replicated()["operation"]?.split(separator: "\n").count ?? 0
            print(
                "NetworkTests: \(loss)% loss: \(acknowledged) edits converged in \(time.map { "\($0)" } ?? "—") after the last edit, \(rounds) sync rounds, \(operations) operations on each device"
            )
            for device in devices { await device.stop() }
        }
    }

    @Test(
        "partitioned, Ann and Bob write the same fields apart; Bob and Cal sync inside their half; healed, all converge and every device records each conflict with both values"
    )
    func partitionAndHeal() async throws {
        try await withLAN(devices: 3) { lan in
            let devices = try await household(lan)
            let (ann, bob, cal) = (devices[0], devices[1], devices[2])
            let todo = try #require(
                try await ann.store("todo.add", ["title": "Fix the gate", "collection": "Home", "due": "2026-12-05"])[
                    "todo"]?["id"]?
                    .stringValue)
            _ = try await HouseholdLAN.converge(devices)

            try await lan.lan("partition", ["1", "2 3"])
            _ = try await ann.store("event.set", ["year": 2027, "month": 6, "title": "Ann's trip"])
            _ = try await bob.store("event.set", ["year": 2027, "month": 6, "title": "Bob's trip"])
            _ = try await ann.store("todo.edit", ["id": .string(todo), "title": "Fix the gate (Ann)"])
            _ = try await bob.store("todo.edit", ["id": .string(todo), "title": "Fix the gate (Bob)"])
            _ = try await cal.store("event.set", ["year": 2027, "month": 8, "title": "Cal's camp"])
            // Inside their half Bob and Cal sync; Ann reaches no one.
            let inside = try await bob.json(["sync", "now", cal.id, "--timeout", "30000"])["syncs"]?.arrayValue ?? []
            #expect(inside.first?["outcome"] == "completed", "\(inside)")
            let split = try await ann.stack.hearth(
                ["sync", "now", bob.id, "--timeout", "30000", "--json"], timeout: .seconds(60))
            #expect(!split.stdout.contains("\"completed\""), "Ann synced with Bob through a partition: \(split.stdout)")
            #expect(try await cal.store("event.show", ["year": 2027, "month": 6])["title"] == "Bob's trip")
            #expect(try await ann.store("event.show", ["year": 2027, "month": 8])["empty"] == true)

            try await lan.lan("heal")
            let (time, rounds) = try await HouseholdLAN.converge(devices)
            #expect(time != nil, "not converged after healing: \((try? HouseholdLAN.differences(devices)) ?? [])")
            print("NetworkTests: healed partition converged in \(time.map { "\($0)" } ?? "—"), \(rounds) rounds")
            for device in devices {
                let conflicts = try await device.store("conflicts").decode(ConflictList.self).conflicts
                let values = { (field: String, kind: String) -> Set<String> in
                    Set(
                        conflicts.first { $0.field == field && $0.kind == kind }?.values.compactMap {
                            value -> String? in
                            if case .text(let text) = value.value { return text }
                            return nil
                        } ?? [])
                }
                #expect(values("title", "event_card") == ["Ann's trip", "Bob's trip"], "\(device.name): \(conflicts)")
                #expect(
                    values("title", "todo") == ["Fix the gate (Ann)", "Fix the gate (Bob)"],
                    "\(device.name): \(conflicts)")
                #expect(try await device.store("event.show", ["year": 2027, "month": 8])["title"] == "Cal's camp")
            }
            for device in devices { await device.stop() }
        }
    }

    @Test(
        "Cal away (cable out) while Ann and Bob make 300 edits and sync; back on a 1 Mbit/s link, Cal catches up exactly"
    )
    func longAway() async throws {
        try await withLAN(devices: 3) { lan in
            let devices = try await household(lan)
            let (ann, bob, cal) = (devices[0], devices[1], devices[2])
            try await lan.lan("link", ["3", "down"])
            let (acknowledged, refusals) = await HouseholdEdits.run(300, on: [ann, bob], from: 1_000)
            #expect(acknowledged == 300, "\(refusals.prefix(5))")
            #expect(try await HouseholdLAN.converge([ann, bob]).0 != nil)
            #expect(try cal.replicated() != ann.replicated(), "Cal, away, holds none of it")
            try await lan.lan("rate", ["3", "1mbit"])
            try await lan.lan("link", ["3", "up"])
            let before = lan.sentBytes(1) + lan.sentBytes(2) + lan.sentBytes(3)
            let (time, rounds) = try await HouseholdLAN.converge(devices)
            let sent = lan.sentBytes(1) + lan.sentBytes(2) + lan.sentBytes(3) - before
            #expect(time != nil, "Cal never caught up: \((try? HouseholdLAN.differences(devices)) ?? [])")
            print(
                "NetworkTests: back after 300 edits on a 1 Mbit/s link, Cal caught up in \(time.map { "\($0)" } ?? "—"), \(rounds) rounds, \(sent) bytes on the wire"
            )
            try await lan.lan("rate", ["3", "off"])
            for device in devices { await device.stop() }
        }
    }
}
