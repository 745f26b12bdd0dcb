import Foundation
import HearthBus
import HearthCore
import HearthPairing
import HearthTesting
import Testing

@testable import SyncService

/// `hearth-sync`'s replies against their typed contracts in HearthCore (issue 43): a paired
/// device heard and synced with (the sync fails fast: nothing listens at its address), a
/// stranger asking to pair and refused, the log, diagnostics, and the device forgotten. See
/// `WireFixtures` for what holds.
@Suite("Wire contracts: hearth-sync's replies are their HearthCore types", .timeLimit(.minutes(1)))
struct SyncWireContractTests {
    static let types: [String: WireFixtures.RoundTrip] = [
        "device.nearby": WireFixtures.roundTrip(NearbyList.self),
        "device.paired": WireFixtures.roundTrip(PairedList.self),
        "device.pairing": WireFixtures.roundTrip(PairingList.self),
        "device.reject": WireFixtures.roundTrip(PairingRejected.self),
        "device.reject+none": WireFixtures.roundTrip(PairingRejected.self),
        "sync.now": WireFixtures.roundTrip(SyncNowReply.self),
        "sync.log": WireFixtures.roundTrip(SyncLogReply.self),
        "sync.diag": WireFixtures.roundTrip(SyncDiag.self),
        "device.forget": WireFixtures.roundTrip(DeviceForgotten.self),
    ]

    @Test("sync replies: captured, or read and written back unchanged")
    func syncReplies() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await SyncEngineTests.fixture(
            local: SyncEngineTests.low, other: SyncEngineTests.high, otherKey: bobKeys)
        var script = WireScript { command, arguments in
            try await fixture.engine.command(CommandRequest(command: command, arguments: arguments))
        }
        await fixture.engine.sighted(try SyncEngineTests.beacon(device: SyncEngineTests.high, key: bobKeys.publicKey))
        await fixture.engine.waitForSyncs()
        try await script.keep("device.nearby", "device.nearby")
        try await script.keep("device.paired", "device.paired")
        let stranger = "c0c00000-0000-4000-8000-000000000003"
        _ = try await fixture.engine.fromPairing(
            SyncEngineTests.pairRequest(
                device: stranger, key: try CurveKeyPair.generate().publicKey, address: "192.0.2.10", id: "cy"))
        try await script.keep("device.pairing", "device.pairing")
        try await script.keep("sync.now", "sync.now", ["device": "Bob"])
        try await script.keep("sync.log", "sync.log")
        try await script.keep("sync.diag", "sync.diag")
        try await script.keep("device.reject", "device.reject", ["device": .string(stranger)])
        try await script.keep("device.reject+none", "device.reject", ["device": .string(stranger)])
        try await script.keep("device.forget", "device.forget", ["device": "Bob"])
        #expect(try WireFixtures.problems("sync", script.replies, types: Self.types) == [])
        await fixture.close()
    }

    @Test("a confirm that paired, and one waiting for the other device, read and write back unchanged")
    func confirmShapes() throws {
        let paired: JSONValue = ["device": "d", "name": "Bob", "paired": true]
        #expect(try WireFixtures.roundTrip(PairingConfirmed.self)(paired) == paired)
        let waiting: JSONValue = [
            "device": "d", "name": "Bob", "paired": false, "fingerprint": "AB12", "role": "initiator",
            "code": "123 456", "confirmed_here": true, "confirmed_there": false, "expires_in_s": 100,
        ]
        #expect(try WireFixtures.roundTrip(PairingConfirmed.self)(waiting) == waiting)
        #expect(try waiting.decode(PairingConfirmed.self).waiting?.code == "123 456")
    }
}
