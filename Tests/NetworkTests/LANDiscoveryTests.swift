import Foundation
import HearthBus
import HearthTesting
import Testing

/// Discovery, pairing and sync between devices in network namespaces of their own: beacons on
/// the subnet's broadcast address (not loopback, not `peers`), heard from each device's own
/// address; a device that cannot broadcast found through `peers`; a stranger refused.
@Suite("A household LAN: discovery and pairing across network namespaces", .serialized, .timeLimit(.minutes(3)))
struct LANDiscoveryTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test(
        "three devices hear each other by subnet broadcast within three beacon intervals, pair by code and sync; a fourth that cannot broadcast is found through peers, and unpaired is refused and learns nothing"
    )
    func discoveryAndPairing() async throws {
        try await withLAN(devices: 4) { lan in
            // Eve's namespace drops every broadcast, in and out, before her stack starts.
            try await lan.lan("broadcasts", ["4", "off"])
            let started = ContinuousClock.now
            let eve = try await LANDevice("Eve", 4, on: lan, context: context, peers: [1])
            let ann = try await LANDevice("Ann", 1, on: lan, context: context)
            let bob = try await LANDevice("Bob", 2, on: lan, context: context)
            let cal = try await LANDevice("Cal", 3, on: lan, context: context)
            let devices = [ann, bob, cal]
            let up = ContinuousClock.now

            // Each of the three hears the other two, from their own addresses on the subnet: each
            // asked at once (one `hearth device nearby` after another would add up their times).
            let heardAt = await withTaskGroup(of: ContinuousClock.Instant?.self) { group in
                for listener in devices {
                    group.addTask {
                        let heard = await Polling.eventually(timeout: .seconds(10)) {
                            let nearby = (try? await listener.nearby()) ?? [:]
                            return devices.allSatisfy { $0 === listener || nearby[$0.id] == lan.address($0.index) }
                        }
                        return heard ? ContinuousClock.now : nil
                    }
                }
                return await group.reduce(into: [ContinuousClock.Instant?]()) { $0.append($1) }
            }
            #expect(heardAt.allSatisfy { $0 != nil }, "not every device heard the other two")
            let discovered = (heardAt.compactMap { $0 }.max() ?? up) - up
            print("NetworkTests: three devices heard each other \(discovered) after the last of them answered")
            #expect(discovered < .seconds(3), "beacons go every second")

            // Eve hears nobody by broadcast, but Ann through `peers`, and Ann answers her.
            #expect(
                await Polling.eventually(timeout: .seconds(10)) {
                    let nearby = (try? await eve.nearby()) ?? [:]
                    return nearby[ann.id] == lan.address(1)
                })
            #expect((try await eve.nearby())[bob.id] == nil, "Bob's broadcasts never reach Eve")
            #expect(await Polling.eventually { (try? await ann.nearby())?[eve.id] == lan.address(4) })

            try await ann.pair(with: bob)
            try await ann.pair(with: cal)
            try await bob.pair(with: cal)
            try await cal.succeeding(["event", "set", "jul", "--year", "2026", "--title", "Lake house"])
            for device in devices {
                let round = try await device.json(["sync", "now"])["syncs"]?.arrayValue ?? []
                #expect(round.allSatisfy { $0["outcome"] == "completed" }, "\(device.name): \(round)")
            }
            for device in devices {
                let card = try await device.store("event.show", ["year": 2026, "month": 7])
                #expect(card["title"] == "Lake house", "\(device.name): \(card)")
            }
            let synced = try devices.map { try $0.replicated() }
            #expect(synced[0] == synced[1] && synced[1] == synced[2])

            // Eve is no one's: her sync to Ann is refused, and she holds none of the household's.
            let refused = try await eve.stack.hearth(["sync", "now", ann.id, "--json"])
            #expect(refused.status == 2 && refused.stderr.contains("no paired device"), "\(refused.stderr)")
            let listed = try await ann.json(["device", "nearby"])["devices"]?.arrayValue ?? []
            #expect(listed.first { $0["id"]?.stringValue == eve.id }?["paired"] == false)
            let annHolds = try ann.replicated()["operation"] ?? ""
            #expect(!annHolds.contains(eve.id), "nothing of Eve's reached Ann")
            let card = try await eve.store("event.show", ["year": 2026, "month": 7])
            #expect(card["empty"] == true && card["title"] != "Lake house", "\(card)")
            let held = try eve.replicated()["operation"] ?? ""
            #expect(!held.contains("Lake house"))
            print("NetworkTests: four stacks up in \(up - started)")
            for device in devices + [eve] { await device.stop() }
        }
    }
}
