import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import HearthTrust
import Logging
import ServiceLifecycle
import StoreService
import Synchronization
import Testing

@testable import SyncService

/// Replication between two real stores, each with its own ZeroMQ context (one ZAP handler each),
/// over a CURVE `tcp://` link on loopback whose authenticator admits only paired keys.
@Suite("hearth-sync: replication between paired devices over CURVE", .serialized, .timeLimit(.minutes(2)))
struct SyncReplicatorTests {
    /// One device: its home, store, sync state, keys and a CURVE command server for peers.
    final class Device: Sendable {
        let id = UUIDText.make()
        let home: TemporaryHome
        let context: ZMQContext
        let keyPair: CurveKeyPair
        let database: SyncDatabase
        let paired = PairedKeys()
        let store: StoreService
        let commands: CommandClient
        let authenticator: CurveAuthenticator
        let server: CommandServer
        let replicator: SyncReplicator

        /// - Parameter clockError: how wrong this device's wall clock is.
        /// - Parameter readsDeflated: `false` serves peers as a device of an earlier version does.
        init(clockError: Duration = .zero, readsDeflated: Bool = true) throws {
            home = try TemporaryHome()
            context = try ZMQContext()
            let configuration = try home.configuration()
            keyPair = try DeviceIdentity.keyPair(home: home.path)
            let database = try SyncDatabase(path: home.file("sync.sqlite"))
            self.database = database
            store = try StoreService(
                configuration: configuration, context: context, device: id, logger: Logger(label: "store"))
            commands = CommandClient(
                context: context, endpoint: configuration.commandEndpoint(.store), timeout: .seconds(10))
            let paired = paired
            authenticator = try CurveAuthenticator(context: context, logger: Logger(label: "zap")) { key, _, _ in
                paired.peer(forKey: key) != nil
            }
            var replicator = SyncReplicator(
                store: commands, context: context, keyPair: keyPair,
                maximumMessageBytes: configuration.maximumMessageBytes, logger: Logger(label: "sync"),
                timeout: .milliseconds(1_500))
            let seconds = Double(clockError.components.seconds)
            replicator.wallClock = { Date().addingTimeInterval(seconds) }
            replicator.readsDeflated = readsDeflated
            self.replicator = replicator
            let answering = replicator
            server = try CommandServer(
                context: context, endpoint: "tcp://127.0.0.1:*", service: "sync-peer",
                maximumMessageBytes: configuration.maximumMessageBytes, curveSecretKey: keyPair.secretKey,
                readsDeflated: replicator.readsDeflated, logger: Logger(label: "sync-peer"),
                handler: { request in
                    guard let key = request.peerKey, let peer = paired.peer(forKey: key) else {
                        throw CommandError(code: "not_paired", message: "not paired")
                    }
                    return try await answering.answer(request, from: peer).0
                })
        }

        func pair(with other: Device, name: String) async throws {
            try await database.pair(device: other.id, name: name, key: other.keyPair.publicKey, at: Date())
            paired.replace(with: try await database.peers())
        }

        func forget(_ other: Device) async throws {
            try await database.forget(other.id, at: Date())
            paired.replace(with: try await database.peers())
        }

        func sync(
            with other: Device, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
        ) async throws -> SyncDatabase.Entry {
            let peer = try #require(try await database.device(forKey: other.keyPair.publicKey))
            // What SyncEngine does with a sync's outcome: the log, and the peer's last sync.
            let entry = await replicator.sync(with: peer, endpoint: other.server.endpoint, progress: progress).entry
            try await database.log(entry)
            if let offset = entry.clockOffsetMilliseconds {
                try await database.noteClock(peer.device, offsetMilliseconds: offset, at: entry.at)
            }
            if entry.outcome == .completed {
                try await database.noteSynced(peer.device, at: entry.at, endpoint: other.server.endpoint)
            }
            return entry
        }

        func cards() async throws -> [String] {
            let list = try await commands.request("event.list", args: ["year": 2026])
            return (list["cards"]?.arrayValue ?? []).compactMap { event in
                guard let title = event["title"]?.stringValue else { return nil }
                return "\(event["month"]?.intValue ?? 0) \(title)"
            }
        }

        func vector() async throws -> JSONValue { try await commands.request("ops.vector")["vector"] ?? .null }
    }

    private func run(_ devices: [Device], _ body: () async throws -> Void) async throws {
        var services: [any Service] = []
        for device in devices { services += [device.store, device.server] }
        try await withRunning(services) {
            let zaps = devices.map { device in Task { await device.authenticator.run() } }
            try await body()
            for device in devices {
                await device.commands.close()
                await device.authenticator.close()
            }
            for zap in zaps { await zap.value }
        }
    }

    @Test("edits made apart on both devices meet: one sync pulls and pushes, a second moves nothing")
    func converge() async throws {
        let (dad, mum) = (try Device(), try Device())
        try await dad.pair(with: mum, name: "Mum's phone")
        try await mum.pair(with: dad, name: "Dad's laptop")
        try await run([dad, mum]) {
            for (month, title) in [(8, "Beach day"), (12, "Christmas")] {
                _ = try await dad.commands.request(
                    "event.set", args: ["year": 2026, "month": .int(Int64(month)), "title": .string(title)])
            }
            _ = try await mum.commands.request("event.set", args: ["year": 2026, "month": 7, "title": "Camping"])
            // Both edit August while apart: a conflict, kept on both.
            _ = try await mum.commands.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach weekend"])

            let reports = Mutex<[[Int]]>([])
            let first = try await dad.sync(with: mum) { done, total in reports.withLock { $0.append([done, total]) } }
            #expect(first.outcome == .completed, "\(first.detail)")
            // Progress for a terminal: from nothing of the seven operations the vectors say are
            // missing, to all eight moved (the eighth, Dad's vouch for Mum's key, made as the sync
            // began), never going back.
            let reported = reports.withLock { $0 }
            #expect(reported.first == [0, 7] && reported.last == [8, 8], "\(reported)")
            #expect(zip(reported, reported.dropFirst()).allSatisfy { $0[0] <= $1[0] && $1[0] <= $1[1] }, "\(reported)")
            // Two cards each way, each device's name (names travel as operations), and each one's
            // vouch for the other's signing key, pinned as the sync began (a pair from before
            // signing learns the keys over its CURVE link; trust records travel as operations).
            #expect(first.received == 4 && first.sent == 4, "\(first.received) \(first.sent) \(first.detail)")
            #expect(first.conflicts == 1)
            // Bytes are what went over the link, both ways: four operations at least.
            #expect(first.bytes > 4 * 100, "\(first.bytes)")
            #expect(try await dad.vector() == (try await mum.vector()))
            #expect(try await dad.cards() == (try await mum.cards()))
            #expect(try await dad.cards().count == 3)
            let conflicts = try await mum.commands.request("conflicts")
            #expect((conflicts["conflicts"]?.arrayValue?.count ?? 0) == 1)

            let again = try await mum.sync(with: dad)
            #expect(again.outcome == .completed && again.received == 0 && again.sent == 0)
            #expect(again.bytes < 1_024, "an idle sync moved \(again.bytes) bytes")
            let log = try await mum.database.entries()
            #expect(log.first?.peerName == "Dad's laptop")
            #expect(try await dad.database.peers().first?.lastSyncAt != nil)
        }
    }

    @Test("a sync goes deflated after the vectors where the peer reads that, plainly with one of an earlier version")
    func deflated() async throws {
        // The same pull twice: from a device of an earlier version (served plainly), and from a
        // current one (deflated), each by a current device.
        let (earlier, ann) = (try Device(readsDeflated: false), try Device())
        let (dad, bob) = (try Device(), try Device())
        for (server, client) in [(earlier, ann), (dad, bob)] {
            try await server.pair(with: client, name: "client")
            try await client.pair(with: server, name: "server")
        }
        try await run([earlier, ann, dad, bob]) {
            for server in [earlier, dad] {
                for month in 1...12 {
                    _ = try await server.commands.request(
                        "event.set",
                        args: ["year": 2026, "month": .int(Int64(month)), "title": .string("Plan for month \(month)")])
                }
            }
            let plain = try await ann.sync(with: earlier)
            let deflated = try await bob.sync(with: dad)
            #expect(plain.outcome == .completed && deflated.outcome == .completed, "\(plain.detail) \(deflated.detail)")
            #expect(plain.received == deflated.received && plain.sent == deflated.sent)
            #expect(try await ann.cards() == (try await earlier.cards()))
            #expect(try await bob.cards() == (try await dad.cards()))
            #expect(try await bob.cards().count == 12)
            // Each page's base64 (its signatures' above all) crosses as the bytes it encodes.
            #expect(
                Double(deflated.bytes) < Double(plain.bytes) * 0.85, "deflated \(deflated.bytes), plain \(plain.bytes)")
            // The device of an earlier version starting a sync is answered plainly.
            _ = try await earlier.commands.request("event.set", args: ["year": 2026, "month": 5, "title": "May"])
            #expect(try await earlier.sync(with: ann).outcome == .completed)
            #expect(try await ann.cards() == (try await earlier.cards()))
        }
    }

    @Test("pairing is not transitive, but edits travel: Gran gets Dad's card through Mum")
    func relays() async throws {
        let (dad, mum, gran) = (try Device(), try Device(), try Device())
        try await dad.pair(with: mum, name: "Mum's phone")
        try await mum.pair(with: dad, name: "Dad's laptop")
        try await mum.pair(with: gran, name: "Gran's tablet")
        try await gran.pair(with: mum, name: "Mum's phone")
        try await run([dad, mum, gran]) {
            _ = try await dad.commands.request(
                "event.set", args: ["year": 2026, "month": 3, "title": "Gran's birthday"])
            _ = try await gran.commands.request("event.set", args: ["year": 2026, "month": 4, "title": "Easter"])
            // Names and vouches for keys travel too: Mum gets Dad's card, name and vouch for her
            // key (and hands him her name and vouch); Gran gets those and Mum's three (name, her
            // vouches for Dad and for Gran); Dad then gets Easter, Gran's name and vouch for Mum,
            // and Mum's vouch for Gran.
            #expect(try await mum.sync(with: dad).received == 3)
            let relayed = try await gran.sync(with: mum)
            #expect(relayed.received == 6 && relayed.sent == 3, "\(relayed.received) \(relayed.sent) \(relayed.detail)")
            #expect(try await gran.cards() == ["3 Gran's birthday", "4 Easter"])
            // Dad never paired with Gran, yet gets her card through Mum, and trusts her key
            // because Mum vouched for it.
            #expect(try await dad.sync(with: mum).received == 4)
            #expect(try await dad.cards() == (try await gran.cards()))
            #expect(try await dad.vector() == (try await gran.vector()))
        }
    }

    @Test("an unpaired device and a forgotten one are refused at the handshake; nothing of theirs is stored")
    func refuses() async throws {
        let (dad, mum, eve) = (try Device(), try Device(), try Device())
        try await dad.pair(with: mum, name: "Mum's phone")
        try await mum.pair(with: dad, name: "Dad's laptop")
        // Eve knows Mum's key and claims to be paired, but Mum never paired with her.
        try await eve.pair(with: mum, name: "Mum's phone")
        try await run([dad, mum, eve]) {
            _ = try await eve.commands.request("event.set", args: ["year": 2026, "month": 5, "title": "Eve's party"])
            let refused = try await eve.sync(with: mum)
            #expect(refused.outcome == .failed)
            #expect(refused.detail.contains("did not answer"), "\(refused.detail)")
            #expect(try await mum.cards().isEmpty)

            try await mum.forget(dad)
            _ = try await dad.commands.request("event.set", args: ["year": 2026, "month": 6, "title": "Picnic"])
            let forgotten = try await dad.sync(with: mum)
            #expect(forgotten.outcome == .failed)
            #expect(try await mum.cards().isEmpty)
            #expect(try await dad.database.entries().first?.outcome == .failed)
        }
    }

    @Test(
        "a paired device turned hostile relays an operation in another's name: refused and reported, the rest applied, and the real author syncs on"
    )
    func forgedRelay() async throws {
        let (dad, mum, eve) = (try Device(), try Device(), try Device())
        for (one, other) in [(dad, mum), (mum, eve)] {
            try await one.pair(with: other, name: "other")
            try await other.pair(with: one, name: "other")
        }
        try await run([dad, mum, eve]) {
            _ = try await dad.commands.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            #expect(try await mum.sync(with: dad).outcome == .completed)
            #expect(try await eve.sync(with: mum).outcome == .completed)
            // Eve knows Dad's id (and his key: Mum vouched for it). She writes "his" operation 50
            // and one of her own, signs both with her key and pushes them to Mum as a relay.
            let eveKey = SigningKey.derived(fromCurveSecret: eve.keyPair.secretKey)
            let page = try [(dad.id, 50, "Forged"), (eve.id, 40, "Eve's own")].map { author, counter, title in
                let operation = try Operation(
                    json: [
                        "id": .string("\(author):\(counter)"),
                        "time": ["wall": .int(Int64(Date().timeIntervalSince1970 * 1000)), "logical": 0],
                        "entity": ["kind": "event_card", "id": .string(counter == 50 ? "2026-08" : "2026-09")],
                        "fields": ["title": ["value": .string(title), "overwrites": []]],
                    ], at: "x")
                return operation.signed(eveKey.sign(operation).text)
            }
            let link = CommandClient(
                context: eve.context, endpoint: mum.server.endpoint, timeout: .seconds(5),
                curve: (eve.keyPair, mum.keyPair.publicKey))
            let reply = try await link.request(
                "sync.import", args: ["format": "hearth-ops/2", "packed": .string(PackedPage.pack(page))])
            await link.close()
            #expect(reply["received"] == 1)
            #expect(reply["refused_count"] == 1)
            let refusal = try #require(reply["refused"]?.arrayValue?.first)
            #expect(refusal["field"] == "operations[0].sig")
            #expect(
                refusal["rule"]?.stringValue?.contains("does not verify with the key of device \(dad.id.prefix(8))")
                    == true)
            #expect(try await mum.cards() == ["8 Beach day", "9 Eve's own"])
            // Dad and Mum sync on: nothing of the forgery reached or wedged either of them.
            _ = try await dad.commands.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach weekend"])
            let after = try await dad.sync(with: mum)
            #expect(after.outcome == .completed, "\(after.detail)")
            #expect(try await dad.cards() == (try await mum.cards()))
            #expect(try await mum.cards().first == "8 Beach weekend")
        }
    }

    @Test(
        "a failure names the side that failed: this device's store, or the peer's, with its own code, never 'internal'")
    func failuresNamed() async throws {
        let (dad, mum) = (try Device(), try Device())
        try await dad.pair(with: mum, name: "Mum's phone")
        try await mum.pair(with: dad, name: "Dad's laptop")
        try await run([dad, mum]) {
            #expect(try await dad.sync(with: mum).outcome == .completed)
            // Dad sends Mum a page her store refuses: the code and words of her store, named as hers.
            let link = CommandClient(
                context: dad.context, endpoint: mum.server.endpoint, timeout: .seconds(5),
                curve: (dad.keyPair, mum.keyPair.publicKey))
            let refused = await #expect(throws: CommandClientError.self) {
                try await link.request(
                    "sync.import",
                    args: ["format": "hearth-ops/1", "packed": .string(PackedPage.pack([["id": "x:1"]]))])
            }
            guard case .refused(let error)? = refused else { throw CommandError(code: "test", message: "not refused") }
            #expect(error.code == "invalid_argument")
            #expect(error.message.contains("the other device's store refused: 'format' is hearth-ops/1"))
            await link.close()
        }
        // With Dad's own store gone, his sync says so, not that Mum refused or did not answer.
        try await run([mum]) {
            let entry = try await dad.sync(with: mum)
            #expect(entry.outcome == .failed)
            #expect(entry.detail.contains("this device's store did not answer ops.vector"), "\(entry.detail)")
        }
    }

    @Test("randomised: rounds of random edits on random devices and random pairwise syncs end with identical replicas")
    func randomisedConvergence() async throws {
        let seed = SplitMix.seed()
        var random = SplitMix(seed: seed)
        let devices = [try Device(), try Device(), try Device(), try Device()]
        // A ring of pairings (0–1–2–3–0): no device is paired with every other.
        for (index, device) in devices.enumerated() {
            let next = devices[(index + 1) % devices.count]
            try await device.pair(with: next, name: "next")
            try await next.pair(with: device, name: "previous")
        }
        let titles = ["Beach day", "Camping", "Picnic", "Zoo", "Fair", "Concert"]
        try await run(devices) {
            for _ in 0..<30 {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let device = devices[Int.random(in: 0..<devices.count, using: &random)]
                    let month = Int64.random(in: 1...12, using: &random)
                    if Int.random(in: 0..<6, using: &random) == 0 {
                        // Clearing an empty card is refused, and changes nothing.
                        _ = try? await device.commands.request(
                            "event.clear", args: ["year": 2026, "month": .int(month)])
                    } else {
                        let title = titles[Int.random(in: 0..<titles.count, using: &random)]
                        _ = try await device.commands.request(
                            "event.set", args: ["year": 2026, "month": .int(month), "title": .string(title)])
                    }
                }
                if Bool.random(using: &random) {
                    let index = Int.random(in: 0..<devices.count, using: &random)
                    let (one, other) = (devices[index], devices[(index + 1) % devices.count])
                    let entry = try await (Bool.random(using: &random) ? one.sync(with: other) : other.sync(with: one))
                    #expect(entry.outcome == .completed, "seed \(seed): \(entry.detail)")
                }
            }
            // A final round: around the ring twice, so every edit reaches every device.
            for _ in 0..<2 {
                for (index, device) in devices.enumerated() {
                    _ = try await device.sync(with: devices[(index + 1) % devices.count])
                }
            }
            let cards = try await devices[0].cards()
            let vector = try await devices[0].vector()
            let conflicts = try await devices[0].commands.request("conflicts")
            for device in devices.dropFirst() {
                #expect(try await device.cards() == cards, "seed \(seed)")
                #expect(try await device.vector() == vector, "seed \(seed)")
                let theirs = try await device.commands.request("conflicts")
                #expect(
                    theirs == conflicts,
                    "seed \(seed): \(theirs.jsonText.prefix(600)) vs \(conflicts.jsonText.prefix(600))")
            }
        }
    }

    @Test(
        "a peer whose clock is 2 hours ahead is refused by name before anything moves, both ways; each side keeps the offset it measured"
    )
    func clockDrift() async throws {
        let (dad, mum) = (try Device(), try Device(clockError: .seconds(2 * 3_600)))
        try await dad.pair(with: mum, name: "Mum's phone")
        try await mum.pair(with: dad, name: "Dad's laptop")
        try await run([dad, mum]) {
            _ = try await dad.commands.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            _ = try await mum.commands.request("event.set", args: ["year": 2026, "month": 7, "title": "Camping"])
            let fromDad = try await dad.sync(with: mum)
            #expect(fromDad.outcome == .failed)
            #expect(
                fromDad.detail.contains("Mum's phone's clock is 120 min ahead of this device's"), "\(fromDad.detail)")
            let fromMum = try await mum.sync(with: dad)
            #expect(fromMum.detail.contains("Dad's laptop's clock is 120 min behind"), "\(fromMum.detail)")
            // The offsets measured (round trips on loopback: within a second of the 2 hours).
            let twoHours: Int64 = 7_200_000
            #expect(abs((fromDad.clockOffsetMilliseconds ?? 0) - twoHours) < 1_000)
            #expect(abs((fromMum.clockOffsetMilliseconds ?? 0) + twoHours) < 1_000)
            let mumAsDadKnowsHer = try #require(try await dad.database.peers().first)
            #expect(mumAsDadKnowsHer.clockOffsetMilliseconds == fromDad.clockOffsetMilliseconds)
            #expect(mumAsDadKnowsHer.clockMeasuredAt != nil)
            #expect(try await dad.cards() == ["8 Beach day"])
            #expect(try await mum.cards() == ["7 Camping"])
        }
    }
}
