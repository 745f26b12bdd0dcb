import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Synchronization
import Testing

/// The Jepsen shape on a household LAN: five devices edit at random while a nemesis partitions
/// the house, heals it, drops packets, unplugs a device and kills its store or sync; at the end
/// everything is healed and synced, and every device must hold exactly the same operations and
/// rows, with every edit whose command was acknowledged among them.
///
/// `HEARTH_CHAOS_SEED` replays a run's schedule (the nemesis's actions and each device's edits;
/// how they interleave with syncs still depends on timing); `HEARTH_CHAOS_MINUTES` sets its
/// length (3 by default, as CI runs it).
@Suite("A household LAN: the chaos run", .serialized, .timeLimit(.minutes(15)))
struct LANChaosTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// What the run's tasks note down (edits acknowledged, the nemesis's actions).
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])

        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test(
        "five devices edit while a nemesis partitions, heals, drops packets, unplugs devices and kills services; healed, every acknowledged edit is on every device and all hold exactly the same"
    )
    func chaos() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["HEARTH_CHAOS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(1 << 48))
        let minutes = environment["HEARTH_CHAOS_MINUTES"].flatMap(Double.init) ?? 3
        print("NetworkTests chaos: seed \(seed) (HEARTH_CHAOS_SEED=\(seed) replays its schedule), \(minutes) minutes")
        try await withLAN(devices: 5) { lan in
            var devices: [LANDevice] = []
            for (index, name) in ["Ann", "Bob", "Cal", "Dan", "Eve"].enumerated() {
                devices.append(try await LANDevice(name, index + 1, on: lan, context: context))
            }
            let household = devices
            await everyoneHears(household)
            for (first, asker) in household.enumerated() {
                for asked in household[(first + 1)...] { try await asker.pair(with: asked) }
            }
            try await HouseholdEdits.school(on: household[0])
            #expect(
                try await HouseholdLAN.converge(household).0 != nil,
                "\((try? HouseholdLAN.differences(household)) ?? [])")

            let deadline = ContinuousClock.now + .seconds(minutes * 60)
            let (acknowledged, actions) = (Lines(), Lines())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for device in household {
                    group.addTask {
                        var random = SplitMix64(seed: seed &+ UInt64(device.index))
                        var n = 0
                        while ContinuousClock.now < deadline {
                            n += 1
                            if let tag = await HouseholdEdits.tagged(n, on: device) {
                                acknowledged.append(tag)
                            }
                            // A person's pace, not synchronisation.
                            try? await Task.sleep(for: .milliseconds(100 + Int(random.next() % 400)))
                        }
                    }
                }
                // What the automatic sync does every few minutes, every few seconds here.
                group.addTask {
                    while ContinuousClock.now < deadline {
                        for device in household where ContinuousClock.now < deadline {
                            _ = try? await device.stack.hearth(
                                ["sync", "now", "--timeout", "10000", "--json"], timeout: .seconds(20))
                        }
                    }
                }
                group.addTask {
                    var random = SplitMix64(seed: seed)
                    var unplugged: Set<Int> = []
                    while ContinuousClock.now < deadline {
                        let device = Int(random.next() % 5) + 1
                        let action: String
                        switch random.next() % 6 {
                        case 0:
                            let side = (1...5).filter { _ in random.next() % 2 == 0 }
                            let other = (1...5).filter { !side.contains($0) }
                            guard !side.isEmpty && !other.isEmpty else { continue }
                            try await lan.lan("heal")
                            try await lan.lan(
                                "partition",
                                [
                                    side.map(String.init).joined(separator: " "),
                                    other.map(String.init).joined(separator: " "),
                                ])
                            action = "partition \(side) | \(other)"
                        case 1:
                            try await lan.lan("heal")
                            action = "heal"
                        case 2:
                            let loss = [0, 10, 30, 50][Int(random.next() % 4)]
                            try await lan.lan("loss", ["\(device)", "\(loss)"])
                            action = "loss \(loss)% on \(device)"
                        case 3 where !unplugged.contains(device):
                            try await lan.lan("link", ["\(device)", "down"])
                            unplugged.insert(device)
                            action = "unplug \(device)"
                        case 3:
                            try await lan.lan("link", ["\(device)", "up"])
                            unplugged.remove(device)
                            action = "plug in \(device)"
                        default:
                            let service: HearthService = random.next() % 2 == 0 ? .store : .sync
                            let up = try await household[device - 1].restart(service)
                            #expect(up, "hearth-\(service.rawValue) on \(device) did not come back")
                            action = "kill -9 and restart \(service.rawValue) on \(device)"
                        }
                        actions.append(action)
                        // The nemesis's pace: an action every 2 to 5 s.
                        try? await Task.sleep(for: .milliseconds(2_000 + Int(random.next() % 3_000)))
                    }
                }
                try await group.waitForAll()
            }

            // Heal everything, then sync until all hold the same.
            try await lan.lan("heal")
            for index in 1...5 {
                try await lan.lan("loss", ["\(index)", "0"])
                try await lan.lan("link", ["\(index)", "up"])
            }
            let (time, rounds) = try await HouseholdLAN.converge(household, timeout: .seconds(180))
            #expect(time != nil, "not converged after healing: \((try? HouseholdLAN.differences(household)) ?? [])")
            let tags = acknowledged.all
            for device in household {
                let held = try device.replicated()["operation"] ?? ""
                let missing = tags.filter { !held.contains("\"\($0)\"") }
                #expect(
                    missing.isEmpty, "\(device.name) lacks \(missing.count) acknowledged edits: \(missing.prefix(5))")
            }
            let done = actions.all
            let kinds = Dictionary(grouping: done) { $0.split(separator: " ").first.map(String.init) ?? "" }
                .mapValues(\.count)
            print(
                "NetworkTests chaos: seed \(seed): \(tags.count) edits acknowledged, \(done.count) nemesis actions \(kinds.sorted { $0.key < $1.key }); converged \(time.map { "\($0)" } ?? "—") after healing, \(rounds) rounds"
            )
            for device in household { await device.stop() }
        }
    }
}
