import Foundation
import HearthBus
import HearthCore
import HearthPairing
import HearthTesting
import Logging
import Synchronization
import Testing

@testable import SyncService

/// The sync engine's decisions, driven by beacons and a clock the test moves: when a paired
/// device heard continuously is synced with, and what a beacon that borrows a paired device's id
/// gets. The peer's endpoint answers nothing, so each sync fails fast and is logged.
@Suite("hearth-sync: the five-minute rule and borrowed ids, on a moved clock", .timeLimit(.minutes(1)))
struct SyncEngineTests {
    /// A clock the test moves.
    final class TestClock: Sendable {
        private let offset = Mutex<Duration>(.zero)
        private let start = ContinuousClock.now
        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
        func advance(_ by: Duration) { offset.withLock { $0 += by } }
    }

    struct Fixture {
        let engine: SyncEngine
        let database: SyncDatabase
        let clock: TestClock
        let peer: SyncDatabase.Peer
        let home: TemporaryHome
        let context: ZMQContext
        let store: CommandClient
        let publisher: Publisher

        func close() async {
            await store.close()
            await publisher.close()
            await context.terminate()
        }
    }

    /// An engine for device `local`, paired with `other` (whose key is `otherKey`).
    static func fixture(local: String, other: String, otherKey: CurveKeyPair) async throws -> Fixture {
        let home = try TemporaryHome()
        let context = try ZMQContext()
        let configuration = try home.configuration()
        let database = try SyncDatabase(path: home.file("sync.sqlite"))
        try await database.pair(device: other, name: "Bob", key: otherKey.publicKey, at: Date())
        let paired = PairedKeys(try await database.peers())
        let keyPair = try CurveKeyPair.generate()
        let logger = Logger(label: "sync")
        let store = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.store), timeout: .milliseconds(50), attempts: 1)
        var replicator = SyncReplicator(
            store: store, context: context, keyPair: keyPair, maximumMessageBytes: 1 << 20, logger: logger)
        replicator.timeout = .milliseconds(50)
        let publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "sync", device: local)
        let clock = TestClock()
        let engine = SyncEngine(
            device: local, name: "Ann", keyPair: keyPair, database: database, paired: paired, replicator: replicator,
            store: store, publisher: publisher, context: context, interval: SyncSettings.minimumInterval,
            logger: logger, now: { clock.now })
        await engine.start(beacon: nil, ports: (5_001, 5_002)) {}
        return Fixture(
            engine: engine, database: database, clock: clock, peer: paired.peer(device: other)!, home: home,
            context: context, store: store, publisher: publisher)
    }

    static func beacon(device: String, key: String, port: Int = 9) throws -> BeaconSighting {
        let announcement = SyncAnnouncement(
            device: device, name: "Bob", key: key, fingerprint: Pairing.fingerprint(key), port: port, pairing: port)
        return BeaconSighting(payload: try JSONValue(encoding: announcement), host: "127.0.0.1", port: 5_671)
    }

    static let low = "00000000-0000-4000-8000-000000000001"
    static let high = "ffffffff-0000-4000-8000-000000000001"

    @Test(
        "a paired device heard every second for 11 minutes is synced with 3 times (at 0, 5 and 10 minutes), not once per beacon"
    )
    func fiveMinuteRule() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await Self.fixture(local: Self.low, other: Self.high, otherKey: bobKeys)
        let sighting = try Self.beacon(device: Self.high, key: bobKeys.publicKey)
        var startedAt: [Int] = []
        for second in 0..<(11 * 60) {
            await fixture.engine.sighted(sighting)
            if await fixture.engine.isSyncing(with: Self.high) {
                startedAt.append(second)
                await fixture.engine.waitForSyncs()
            }
            fixture.clock.advance(.seconds(1))
        }
        #expect(startedAt == [0, 300, 600])
        // Each attempt reached nothing (nobody listens there) and says so, naming the peer.
        let log = try await fixture.database.entries()
        #expect(log.count == 3)
        #expect(log.allSatisfy { $0.outcome == .failed && $0.detail.contains("Bob did not answer") })
        await fixture.close()
    }

    @Test("of a pair, the device with the higher id waits 30 s more, so both do not start at once")
    func higherIDWaits() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await Self.fixture(local: Self.high, other: Self.low, otherKey: bobKeys)
        let sighting = try Self.beacon(device: Self.low, key: bobKeys.publicKey)
        var startedAt: [Int] = []
        for second in 0..<60 {
            await fixture.engine.sighted(sighting)
            if await fixture.engine.isSyncing(with: Self.low) {
                startedAt.append(second)
                await fixture.engine.waitForSyncs()
            }
            fixture.clock.advance(.seconds(1))
        }
        #expect(startedAt == [30])
        await fixture.close()
    }

    @Test("a beacon with a paired device's id and another key is refused: no sync, counted, in diag and the log")
    func borrowedID() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await Self.fixture(local: Self.low, other: Self.high, otherKey: bobKeys)
        let impostor = try CurveKeyPair.generate()
        for _ in 0..<3 {
            await fixture.engine.sighted(try Self.beacon(device: Self.high, key: impostor.publicKey))
            fixture.clock.advance(.seconds(1))
        }
        await fixture.engine.waitForSyncs()
        let log = try await fixture.database.entries()
        #expect(log.count == 1, "one log line a minute per key, not one per beacon: \(log)")
        #expect(log.first?.outcome == .refused)
        #expect(log.first?.detail.contains(Pairing.fingerprint(impostor.publicKey)) == true)
        #expect(log.first?.detail.contains("paired with another key") == true)
        let diag = try await fixture.engine.command(CommandRequest(id: "1", command: "sync.diag", arguments: [:]))
        #expect(diag["refusals"] == 3)
        await fixture.close()
    }

    @Test("a peer with a new key at every attempt is counted, not reported each time, and not remembered without end")
    func refusalFlood() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await Self.fixture(local: Self.low, other: Self.high, otherKey: bobKeys)
        let keys = try (0..<1_000).map { _ in try CurveKeyPair.generate().publicKey }
        // Ten attempts a second (libzmq's reconnect interval), each with a key of its own.
        for key in keys {
            await fixture.engine.refused(key: key, address: "192.0.2.7", reason: "not paired with this device")
            fixture.clock.advance(.milliseconds(100))
        }
        let limit = SyncEngine.refusalsReportedPerMinute
        let diag = try await fixture.engine.command(CommandRequest(id: "1", command: "sync.diag", arguments: [:]))
        #expect(diag["refusals"] == 1_000)
        let lines = diag["lines"]?.arrayValue?.filter { $0["kind"] == "refused" } ?? []
        // 100 s of attempts: the first minute's limit, then as many again as the first minute's
        // reports age out.
        #expect(lines.count == 2 * limit, "\(lines.count) lines")
        #expect(try await fixture.database.entries().count == 2 * limit)
        #expect(await fixture.engine.refusalLogged.count <= limit)
        // A minute later, a key is reported again.
        fixture.clock.advance(.seconds(61))
        await fixture.engine.refused(key: keys[0], address: "192.0.2.7", reason: "not paired with this device")
        #expect(try await fixture.database.entries().count == 2 * limit + 1)
        await fixture.close()
    }

    @Test("a pairing request nobody confirms is over after two minutes, on this side's clock")
    func unconfirmedPairingExpires() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await Self.fixture(local: Self.low, other: Self.high, otherKey: bobKeys)
        let cy = try CurveKeyPair.generate()
        var request = CommandRequest(
            id: "1", command: "pair.request",
            arguments: ["device": "c0c00000-0000-4000-8000-000000000003", "name": "Cy's tablet"])
        request.peerKey = cy.publicKey
        let commitment = try await fixture.engine.fromPairing(request)
        #expect(commitment["commit"]?.stringValue?.count == 64)
        let listing = CommandRequest(id: "2", command: "device.pairing")
        #expect(try await fixture.engine.command(listing)["pairings"]?.arrayValue?.count == 1)
        fixture.clock.advance(.seconds(119))
        await fixture.engine.expirePairings()
        #expect(try await fixture.engine.command(listing)["pairings"]?.arrayValue?.count == 1)
        fixture.clock.advance(.seconds(2))
        await fixture.engine.expirePairings()
        #expect(try await fixture.engine.command(listing)["pairings"]?.arrayValue?.isEmpty == true)
        // Cy's later messages find no pairing.
        var late = CommandRequest(
            id: "3", command: "pair.reveal", arguments: ["nonce": .string(String(repeating: "ab", count: 16))])
        late.peerKey = cy.publicKey
        await #expect(throws: CommandError.self) { try await fixture.engine.fromPairing(late) }
        await fixture.close()
    }
}
