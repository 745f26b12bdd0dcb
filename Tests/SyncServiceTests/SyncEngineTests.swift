import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthPairing
import HearthTesting
import Logging
import Synchronization
import Testing

@testable import SyncService

/// The sync engine's decisions, driven by beacons and a clock the test moves: when a paired
/// device heard continuously is synced with, and what a beacon that borrows a paired device's id
/// gets. The peer's endpoint answers nothing, so each sync fails fast and is logged. This
/// device's "store" answers only `ops.vector` (its signing key), all the engine asks of it here.
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
        let storeTask: Task<Void, Never>

        func close() async {
            storeTask.cancel()
            await storeTask.value
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
        let signingKey = TestHousehold.key(local).publicKey.text
        let storeServer = try CommandServer(
            context: context, endpoint: configuration.commandEndpoint(.store), service: "store",
            logger: Logger(label: "store")
        ) { request in
            switch request.command {
            case "ops.vector":
                return try JSONValue(
                    reply: VersionVectorReply(device: local, vector: [:], restored: false, signingKey: signingKey))
            // An import whose every operation the store refuses (as a forged relay's would be).
            case "ops.import":
                return try JSONValue(
                    reply: ImportReport(
                        received: 0, alreadyHad: 0, conflicts: 0, quarantined: [],
                        refused: [.init(id: "x:1", field: "operations[0].sig", rule: "does not verify")],
                        refusedCount: 1, forked: [], forkedCount: 0, dropped: []))
            case "event.list": return try JSONValue(reply: CardList(year: 2026, cards: []))
            case "device.list": return try JSONValue(reply: DeviceList(devices: []))
            default: throw CommandError(code: "not_here", message: "not here")
            }
        }
        let storeTask = Task { _ = try? await storeServer.run() }
        let store = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.store), timeout: .milliseconds(500), attempts: 1)
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
            context: context, store: store, publisher: publisher, storeTask: storeTask)
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
        // The forged beacon changed nothing: Bob is not shown as heard (nor "not paired"), and
        // nothing would be sent to the forger's address.
        #expect(diag["heard"] == [])
        // Bob's own beacon is heard as Bob, paired.
        await fixture.engine.sighted(try Self.beacon(device: Self.high, key: bobKeys.publicKey))
        let heard = try await fixture.engine.command(CommandRequest(id: "2", command: "device.nearby"))
        #expect(heard["devices"]?.arrayValue?.map { $0["paired"] } == [true])
        await fixture.close()
    }

    @Test("operations a paired device brings that the store refuses are counted in diag and noted once per sync")
    func refusedOperationsReported() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await Self.fixture(local: Self.low, other: Self.high, otherKey: bobKeys)
        let page = PackedPage.pack([["id": "x:1"]])
        for id in ["a", "b"] {
            var request = CommandRequest(
                id: id, command: "sync.import", arguments: ["format": "hearth-ops/2", "packed": .string(page)])
            request.peerKey = bobKeys.publicKey
            let reply = try await fixture.engine.fromPeer(request)
            #expect(reply["refused_count"] == 1)
        }
        let diag = try await fixture.engine.command(CommandRequest(id: "d", command: "sync.diag"))
        #expect(diag["refused_operations"] == 2)
        let lines = (diag["lines"]?.arrayValue ?? []).filter { $0["kind"] == "refused" }
        #expect(lines.count == 2)
        #expect(lines.first?["text"]?.stringValue?.contains("refused 1 operations from Bob") == true)
        // The alert names the same refused operation once: the second time it is not raised again.
        #expect(await fixture.engine.alerted == ["x:1"])
        await fixture.close()
    }

    /// A pairing request as another device sends it, from `address`, with key `key`.
    static func pairRequest(device: String, key: String, address: String, id: String) -> CommandRequest {
        var request = CommandRequest(
            id: id, command: "pair.request",
            arguments: [
                "device": .string(device), "name": "Stranger",
                "signing_key": .string(TestHousehold.key(device).publicKey.text),
            ])
        request.peerKey = key
        request.peerAddress = address
        return request
    }

    @Test(
        "strangers' pairing requests never block a person's: one per key and address, none replaced, the oldest stranger's dropped first"
    )
    func pairingSpam() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await Self.fixture(local: Self.low, other: Self.high, otherKey: bobKeys)
        let listing = CommandRequest(id: "list", command: "device.pairing")
        // Eight requests with random ids and keys from one address: one attempt only.
        var busy = 0
        for index in 0..<8 {
            let request = Self.pairRequest(
                device: UUIDText.make(), key: try CurveKeyPair.generate().publicKey, address: "192.0.2.66",
                id: "spam\(index)")
            do { _ = try await fixture.engine.fromPairing(request) } catch let error as CommandError {
                #expect(error.code == "busy")
                busy += 1
            }
        }
        #expect(busy == 7)
        #expect(try await fixture.engine.command(listing)["pairings"]?.arrayValue?.count == 1)
        // A person's device elsewhere asks: it gets in.
        let cy = try CurveKeyPair.generate()
        let cyID = "c0c00000-0000-4000-8000-000000000003"
        _ = try await fixture.engine.fromPairing(
            Self.pairRequest(device: cyID, key: cy.publicKey, address: "192.0.2.10", id: "cy"))
        // A request naming Cy's id with another key does not replace Cy's attempt.
        let hijack = await #expect(throws: CommandError.self) {
            try await fixture.engine.fromPairing(
                Self.pairRequest(
                    device: cyID, key: try CurveKeyPair.generate().publicKey, address: "192.0.2.67", id: "hijack"))
        }
        #expect(hijack?.code == "busy")
        let pairings = try await fixture.engine.command(listing)["pairings"]?.arrayValue ?? []
        #expect(
            pairings.first { $0["device"]?.stringValue == cyID }?["fingerprint"]?.stringValue
                == Pairing.fingerprint(cy.publicKey))
        // Strangers from many addresses fill the table: the oldest stranger's attempt goes first,
        // and a new request still gets in.
        for index in 0..<10 {
            _ = try await fixture.engine.fromPairing(
                Self.pairRequest(
                    device: UUIDText.make(), key: try CurveKeyPair.generate().publicKey, address: "198.51.100.\(index)",
                    id: "many\(index)"))
        }
        let full = try await fixture.engine.command(listing)["pairings"]?.arrayValue ?? []
        #expect(full.count == SyncEngine.pendingLimit)
        await fixture.close()
    }

    @Test("a request-and-reveal loop from one address raises two pairing popups a minute, not hundreds")
    func pairingPopupsLimited() async throws {
        let bobKeys = try CurveKeyPair.generate()
        let fixture = try await Self.fixture(local: Self.low, other: Self.high, otherKey: bobKeys)
        var shown = 0
        var refused = 0
        for index in 0..<20 {
            let key = try CurveKeyPair.generate().publicKey
            let device = UUIDText.make()
            _ = try await fixture.engine.fromPairing(
                Self.pairRequest(device: device, key: key, address: "192.0.2.66", id: "r\(index)"))
            var reveal = CommandRequest(
                id: "v\(index)", command: "pair.reveal",
                arguments: ["nonce": .string(String(repeating: "ab", count: 16))])
            reveal.peerKey = key
            reveal.peerAddress = "192.0.2.66"
            do {
                _ = try await fixture.engine.fromPairing(reveal)
                shown += 1
            } catch let error as CommandError where error.code == "busy" {
                refused += 1
            }
            // The attempt is over either way (the stranger aborts), so the next can start.
            _ = await fixture.engine.reject(device)
        }
        #expect(shown == SyncEngine.pairingPopupsPerAddress)
        #expect(refused == 20 - SyncEngine.pairingPopupsPerAddress)
        // A minute later, one more.
        fixture.clock.advance(.seconds(61))
        let key = try CurveKeyPair.generate().publicKey
        _ = try await fixture.engine.fromPairing(
            Self.pairRequest(device: UUIDText.make(), key: key, address: "192.0.2.66", id: "late"))
        var reveal = CommandRequest(
            id: "late-v", command: "pair.reveal", arguments: ["nonce": .string(String(repeating: "cd", count: 16))])
        reveal.peerKey = key
        reveal.peerAddress = "192.0.2.66"
        _ = try await fixture.engine.fromPairing(reveal)
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
            arguments: [
                "device": "c0c00000-0000-4000-8000-000000000003", "name": "Cy's tablet",
                "signing_key": .string(TestHousehold.key("c0c00000-0000-4000-8000-000000000003").publicKey.text),
            ])
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
