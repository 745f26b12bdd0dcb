import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import HearthTrust
import Testing

@testable import StoreService

/// Trust between devices, at the store: every operation carries its author's signature, a key is
/// known only when pinned here or vouched for by a device already trusted, and nothing another
/// device sends can wedge the store (a refused operation is refused alone; every table a peer can
/// fill is bounded).
@Suite("hearth-store: signed operations and bounded trust", .serialized, .timeLimit(.minutes(3)))
struct StoreTrustTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    static let dad = StoreHistoryTests.dad
    static let gran = "96a00000-0000-4000-8000-000000000096"
    static let eve = "e7e00000-0000-4000-8000-0000000000e7"

    /// A card operation by `id`'s device, unsigned.
    static func card(_ id: String, month: Int = 8, title: String, wall: Int64 = 1_000) -> JSONValue {
        [
            "id": .string(id), "time": ["wall": .int(wall), "logical": 0],
            "entity": ["kind": "event_card", "id": .string(String(format: "2026-%02d", month))],
            "fields": ["title": ["value": .string(title), "overwrites": []]],
        ]
    }

    /// A vouch by `id`'s device for `device`'s key, unsigned.
    static func vouch(_ id: String, for device: String, key: SigningPublicKey, wall: Int64 = 900) -> JSONValue {
        [
            "id": .string(id), "time": ["wall": .int(wall), "logical": 0],
            "entity": ["kind": "device_key", "id": .string(device)],
            "fields": ["key": ["value": .string(key.text), "overwrites": []]],
        ]
    }

    /// `operation` signed with `key`, whoever its author.
    static func signed(_ operation: JSONValue, with key: SigningKey) throws -> JSONValue {
        let parsed = try Operation(json: operation, at: "test")
        return parsed.signed(key.sign(parsed).text)
    }

    func importing(
        _ running: RunningStore, _ operations: [JSONValue], _ extra: [String: JSONValue] = [:]
    )
        async throws -> JSONValue
    {
        try await running.commands.request(
            "ops.import", args: extra.merging(["format": "hearth-ops/2", "operations": .array(operations)]) { $1 })
    }

    @Test("an operation in a known device's name signed with another key is refused alone; the real one applies after")
    func forgedAuthor() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad, Self.eve], store: running.commands)
            // Eve, a paired device turned hostile, writes "Dad's" operation 50 with her own key.
            let forged = try Self.signed(
                Self.card("\(Self.dad):50", title: "Forged"), with: TestHousehold.key(Self.eve))
            let honest = TestHousehold.signed(Self.card("\(Self.eve):1", month: 9, title: "Eve's own"))
            let reply = try await importing(running, [forged, honest], ["source": .string(Self.eve)])
            #expect(reply["received"] == 1)
            let refusal = try #require(reply["refused"]?.arrayValue?.first)
            #expect(refusal["field"] == "operations[0].sig")
            #expect(refusal["rule"]?.stringValue?.contains("does not verify with the key of device dadd0000") == true)
            #expect(
                try await running.commands.request("event.show", args: ["year": 2026, "month": 8])["empty"] == true)
            // Nothing wedges: Dad's real operation 50 comes later and applies.
            let real = TestHousehold.signed(Self.card("\(Self.dad):50", title: "Real"))
            #expect(try await importing(running, [real])["received"] == 1)
            #expect(
                try await running.commands.request("event.show", args: ["year": 2026, "month": 8])["title"] == "Real")
            // A byte of the signature changed is refused the same way.
            let next = TestHousehold.signed(Self.card("\(Self.dad):51", month: 5, title: "Next"))
            var text = Array(try #require(next["sig"]?.stringValue).utf8)
            text[10] = text[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            var tampered = try #require(next.objectValue)
            tampered["sig"] = .string(String(decoding: text, as: UTF8.self))
            let again = try await importing(running, [.object(tampered)])
            #expect(again["refused_count"] == 1)
        }
    }

    @Test(
        "a key is trusted when a trusted device vouches for it, in rounds; an unknown author and a second key are refused"
    )
    func vouches() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            let granKey = TestHousehold.key(Self.gran).publicKey
            let eveKey = TestHousehold.key(Self.eve).publicKey
            // Gran's card first in the page, Dad's vouch for her after it: the vouch is read first.
            let page = [
                TestHousehold.signed(Self.card("\(Self.gran):1", month: 3, title: "Gran's birthday")),
                TestHousehold.signed(Self.vouch("\(Self.dad):1", for: Self.gran, key: granKey)),
                // A stranger nobody vouched for.
                TestHousehold.signed(Self.card("\(Self.eve):1", month: 4, title: "Stranger")),
                // Gran vouches for another key for Dad: refused, his key stays.
                TestHousehold.signed(Self.vouch("\(Self.gran):2", for: Self.dad, key: eveKey)),
            ]
            let reply = try await importing(running, page)
            #expect(reply["received"] == 2)
            let rules = (reply["refused"]?.arrayValue ?? []).compactMap { $0["rule"]?.stringValue }
            #expect(rules.contains { $0.contains("whose key no device of this household vouched for") })
            #expect(rules.contains { $0.contains("a device's key is never replaced") })
            let devices = try await running.commands.request("device.list")["devices"]?.arrayValue ?? []
            let dad = devices.first { $0["id"]?.stringValue == Self.dad }
            #expect(dad?["signing_key"]?.stringValue == TestHousehold.key(Self.dad).publicKey.fingerprint)
            // device.trust refuses a second key too, naming both.
            let mismatch = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "device.trust", args: ["device": .string(Self.dad), "key": .string(eveKey.text)])
            }
            #expect(mismatch?.description.contains("knows it by") == true)
        }
    }

    @Test(
        "4,000 operations from 4,000 fresh device ids are refused and the store answers; one device vouches for 16 at most"
    )
    func flood() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.eve], store: running.commands)
            let fresh = (0..<4_000).map { index in
                TestHousehold.signed(
                    Self.card("\(String(format: "%08x", index))-0000-4000-8000-000000000000:1", title: "x"))
            }
            var refused = 0
            for start in stride(from: 0, to: fresh.count, by: 500) {
                let reply = try await importing(running, Array(fresh[start..<start + 500]))
                #expect(reply["received"] == 0)
                refused += Int(reply["refused_count"]?.intValue ?? 0)
            }
            #expect(refused == 4_000)
            let vector = try await running.commands.request("ops.vector")
            #expect((vector["vector"]?.objectValue?.count ?? 99) <= 2)
            // A hostile paired device vouching for invented devices stops at 16 of them (issue 62:
            // 252 filled the store's 256 slots, and pairing a new device then failed for good).
            let keys = (0..<300).map { _ in SigningKey.generate().publicKey }
            let vouches = try keys.enumerated().map { index, key in
                try Self.signed(
                    Self.vouch(
                        "\(Self.eve):\(index + 1)", for: String(format: "%08x-0000-4000-8000-0000000000f0", index),
                        key: key, wall: 900 + Int64(index)), with: TestHousehold.key(Self.eve))
            }
            let reply = try await importing(running, vouches)
            #expect(reply["received"] == .int(Int64(Devices.maximumVouchesPerDevice)))
            #expect(reply["refused_count"] == .int(Int64(300 - Devices.maximumVouchesPerDevice)))
            #expect(
                reply["refused"]?.arrayValue?.first?["rule"]?.stringValue?.contains(
                    "has vouched for 16 devices already") == true, "\(reply)")
            // The next page from Eve counts what she vouched for before.
            let more = try Self.signed(
                Self.vouch(
                    "\(Self.eve):301", for: "ffffffff-0000-4000-8000-0000000000f0",
                    key: SigningKey.generate().publicKey,
                    wall: 1_300), with: TestHousehold.key(Self.eve))
            #expect(try await importing(running, [more])["refused_count"] == 1)
            // A person's pairing is never stopped by a cap: this device pins as many as it pairs.
            let gran = try await running.commands.request(
                "device.trust",
                args: ["device": .string(Self.gran), "key": .string(TestHousehold.key(Self.gran).publicKey.text)])
            #expect(gran["pinned"] == "new", "\(gran)")
        }
    }

    @Test(
        "a key this device pins beats one another device vouched for: the real device pairs, the conflict is shown, distrust forgets a key"
    )
    func pinBeatsVouch() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.eve], store: running.commands)
            // Eve (paired, trusted) vouches for a key of her own making for Gran, whom this home
            // has not met, and writes a card in Gran's name with it.
            let squat = SigningKey.generate()
            let vouch = try Self.signed(
                Self.vouch("\(Self.eve):1", for: Self.gran, key: squat.publicKey), with: TestHousehold.key(Self.eve))
            let forged = try Self.signed(Self.card("\(Self.gran):1", month: 5, title: "Forged"), with: squat)
            #expect(try await importing(running, [vouch, forged])["received"] == 2)
            // The real Gran pairs: her key is pinned over the vouched one (it was refused, so
            // pairing failed for good), and her own operations are taken from now on.
            let pinned = try await running.commands.request(
                "device.trust",
                args: ["device": .string(Self.gran), "key": .string(TestHousehold.key(Self.gran).publicKey.text)])
            #expect(pinned["pinned"] == "replaced", "\(pinned)")
            #expect(pinned["replaced_fingerprint"]?.stringValue == squat.publicKey.fingerprint)
            let real = TestHousehold.signed(Self.card("\(Self.gran):2", month: 6, title: "Gran's real card"))
            #expect(try await importing(running, [real])["received"] == 1)
            // The squatted key signs nothing more, and Eve cannot vouch it back.
            let again = try Self.signed(Self.card("\(Self.gran):3", month: 7, title: "Forged again"), with: squat)
            #expect(try await importing(running, [again])["refused_count"] == 1)
            // The conflict is shown, with both fingerprints and who vouched.
            let devices = try await running.commands.request("device.list").decode(DeviceList.self).devices
            let gran = try #require(devices.first { $0.id == Self.gran })
            #expect(gran.signingKey == TestHousehold.key(Self.gran).publicKey.fingerprint)
            #expect(gran.vouchedBy == running.store.database.localDevice)
            #expect(gran.keyConflict?.vouchedFingerprint == squat.publicKey.fingerprint)
            #expect(gran.keyConflict?.vouchedBy == Self.eve)
            // And carried by the pin's `store.device_key.changed`, for the notifier's popup.
            let described = try await running.store.database.pool.read { db in
                try DevicesDomain.describe(EntityRef(kind: Devices.keyKind, id: Self.gran), in: db)
            }
            let change = try JSONValue.object(described).decode(DeviceKeyChange.Event.self).deviceKey
            #expect(change.fingerprint == TestHousehold.key(Self.gran).publicKey.fingerprint)
            #expect(change.keyConflict?.vouchedFingerprint == squat.publicKey.fingerprint, "\(change)")
            // A pin of this device's own is never replaced by another pin.
            await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "device.trust", args: ["device": .string(Self.gran), "key": .string(squat.publicKey.text)])
            }
            // distrust forgets the key: Gran's operations are refused until she pairs again.
            let gone = try await running.commands.request("device.distrust", args: ["device": .string(Self.gran)])
                .decode(DeviceDistrusted.self)
            #expect(gone.removed && gone.fingerprint == TestHousehold.key(Self.gran).publicKey.fingerprint)
            let after = TestHousehold.signed(Self.card("\(Self.gran):4", month: 8, title: "After"))
            #expect(try await importing(running, [after])["refused_count"] == 1)
            let local = JSONValue.string(running.store.database.localDevice)
            await #expect(throws: CommandClientError.self) {
                try await running.commands.request("device.distrust", args: ["device": local])
            }
        }
    }

    @Test(
        "an unsigned operation never gets in; one held from before signing takes its author's signature when it comes")
    func beforeSigning() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            let unsigned = Self.card("\(Self.dad):1", title: "Old")
            let refused = try await importing(running, [unsigned])
            #expect(refused["refused"]?.arrayValue?.first?["field"] == "operations[0].sig")
            // As a store from before signing holds it: the row, its head and the card, no signature.
            let legacy = try Operation(json: Self.card("\(Self.dad):2", month: 10, title: "Held"), at: "x")
            try await running.store.database.pool.write { db in
                var folded = OperationLog()
                _ = try StoreDatabase.apply(legacy, signature: nil, in: db, folded: &folded)
            }
            // Not exported unsigned: nobody could verify it.
            let export = try await running.commands.request("ops.export", args: ["since_vector": [:]])
            let id = JSONValue.string("\(Self.dad):2")
            #expect(!(export["operations"]?.arrayValue ?? []).contains { $0["id"] == id })
            // Dad sends it signed: already had, and now signed here (so it travels on).
            let signed = TestHousehold.signed(legacy.json)
            #expect(try await importing(running, [signed])["already_had"] == 1)
            let after = try await running.commands.request("ops.export", args: ["since_vector": [:]])
            #expect((after["operations"]?.arrayValue ?? []).contains { $0["id"] == id && $0["sig"] != nil })
            // Another content under that id (possible only from before signing): a fork, both kept
            // and named, and the rest of the page applies.
            let other = TestHousehold.signed(Self.card("\(Self.dad):2", month: 10, title: "Other"))
            let fine = TestHousehold.signed(Self.card("\(Self.dad):3", month: 11, title: "Fine"))
            let forked = try await importing(running, [other, fine], ["source": .string(Self.dad)])
            #expect(forked["forked"] == [id])
            #expect(forked["received"] == 1)
            let forks = try await running.commands.request("ops.forks")["forks"]?.arrayValue ?? []
            #expect(forks.count == 1)
            #expect(forks.first?["held"]?["fields"]?["title"]?["value"] == "Held")
            #expect(forks.first?["other"]?["fields"]?["title"]?["value"] == "Other")
            // A copy whose signature does not verify is no fork (issue 62: it was recorded
            // unchecked): refused naming its signature, and not kept.
            let forgedOperation = try Operation(json: Self.card("\(Self.dad):2", month: 10, title: "Forged"), at: "x")
            let otherSignature = try #require(other["sig"]?.stringValue)
            let forged = try await importing(
                running, [forgedOperation.signed(otherSignature)], ["source": .string(Self.dad)])
            #expect(forged["forked"] == [], "\(forged)")
            #expect(forged["refused"]?.arrayValue?.first?["field"] == "operations[0].sig", "\(forged)")
            #expect((try await running.commands.request("ops.forks")["forks"]?.arrayValue ?? []).count == 1)
        }
    }

    @Test("this device's unsigned operations are signed when the store first starts after the upgrade")
    func signsOwnAtUpgrade() async throws {
        let home = try TemporaryHome()
        var local = ""
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            local = running.store.database.localDevice
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
        }
        // As an older build left it.
        try await DatabaseQueue(path: home.file("hearth.sqlite")).write { db in
            try db.execute(sql: "UPDATE operation SET signature = NULL")
        }
        let device = local
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            let rows = try await running.store.database.pool.read { db in
                try OperationRecord.fetchAll(db, sql: "SELECT * FROM operation WHERE device = ?", arguments: [device])
            }
            #expect(!rows.isEmpty)
            for row in rows {
                let signature = try #require(row.signature.flatMap(OperationSignature.init(text:)))
                #expect(running.store.database.signer.publicKey.verifies(signature, of: try row.operation))
            }
        }
    }

    @Test(
        "the quarantine takes only verified operations, bounded per source; a released one that fails never undoes the rest"
    )
    func boundedQuarantine() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            let local = running.store.database.localDevice
            let future = Int64(Date().timeIntervalSince1970 * 1000) + HybridClock.maximumDrift + 60_000
            // In this device's own name, from outside: refused before it could wait in quarantine.
            let own = try Self.signed(
                Self.card("\(local):7", title: "Mine?", wall: future), with: TestHousehold.key(local))
            let forged = try Self.signed(
                Self.card("\(Self.dad):9", title: "Forged", wall: future), with: TestHousehold.key(Self.eve))
            let first = try await importing(running, [own, forged], ["source": .string(Self.dad)])
            #expect(first["quarantined"] == [])
            #expect(first["refused_count"] == 2)
            // One source fills only its own share: 1,000 operations.
            let many = (1...1_005).map { counter in
                TestHousehold.signed(
                    Self.card("\(Self.dad):\(100 + counter)", month: counter % 12 + 1, title: "Later", wall: future))
            }
            var held = 0
            var full = 0
            for start in stride(from: 0, to: many.count, by: 500) {
                let reply = try await importing(
                    running, Array(many[start..<min(start + 500, many.count)]), ["source": .string(Self.dad)])
                held += reply["quarantined"]?.arrayValue?.count ?? 0
                full += Int(reply["refused_count"]?.intValue ?? 0)
            }
            #expect(held == 1_000)
            #expect(full == 5)
            let listed = try await running.commands.request("ops.quarantine")
            #expect(listed["count"] == 1_000)
            #expect(listed["operations"]?.arrayValue?.first?["source"]?.stringValue == Self.dad)
            // Another source still has its share.
            try await TestHousehold.trust([Self.gran], store: running.commands)
            let gran = TestHousehold.signed(Self.card("\(Self.gran):1", title: "Gran", wall: future))
            #expect(
                try await importing(running, [gran], ["source": .string(Self.gran)])["quarantined"]?.arrayValue?.count
                    == 1)
            // Emptying it is a command of its own; the old form is refused naming it, and empties nothing.
            let old = await #expect(throws: CommandClientError.self) {
                try await running.commands.request("ops.quarantine", args: ["purge": true])
            }
            #expect(old?.description.contains("ops.quarantine.purge") == true, "\(String(describing: old))")
            #expect(try await running.commands.send(ExchangeCommands.Quarantine()).count == 1_001)
            #expect(try await running.commands.send(ExchangeCommands.PurgeQuarantine()).purged == 1_001)
            #expect(try await running.commands.send(ExchangeCommands.Quarantine()).count == 0)

            // Dad signs two contents for one id: one held back a moment, the other on time. When
            // the held one is released it no longer applies: kept as a fork, and the import that
            // released it applies the rest.
            let soon = Int64(Date().timeIntervalSince1970 * 1000) + HybridClock.maximumDrift + 1_500
            let later = TestHousehold.signed(Self.card("\(Self.dad):5000", month: 6, title: "Later", wall: soon))
            #expect(
                try await importing(running, [later], ["source": .string(Self.dad)])["quarantined"]?.arrayValue?.count
                    == 1)
            let onTime = TestHousehold.signed(Self.card("\(Self.dad):5000", month: 6, title: "On time", wall: 2_000))
            #expect(try await importing(running, [onTime])["received"] == 1)
            var counter = 5_000
            var released: JSONValue = .null
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                counter += 1
                let fine = TestHousehold.signed(Self.card("\(Self.dad):\(counter)", month: 7, title: "Fine"))
                released = try await importing(running, [fine])
                #expect(released["received"] == 1)
                if released["forked"] != [] { break }
            }
            #expect(released["forked"] == [.string("\(Self.dad):5000")])
            #expect(
                try await running.commands.request("event.show", args: ["year": 2026, "month": 6])["title"] == "On time"
            )
        }
    }

    @Test("a restored device takes back its own operations only when its own key signed them; a forged one is refused")
    func recoveryTakesOnlyOwnSigned() async throws {
        let home = try TemporaryHome()
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 1, "title": "Mine"])
        }
        // As `hearth restore` leaves it: recovering until it has its own operations back.
        _ = FileManager.default.createFile(atPath: home.file("hearth.sqlite.restored"), contents: Data("x\n".utf8))
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            let local = running.store.database.localDevice
            #expect(running.store.database.isRecovering)
            // One it made after the backup (signed with its own key): taken back.
            let made = try Operation(json: Self.card("\(local):40", month: 2, title: "Made since"), at: "x")
            let mine = made.signed(running.store.database.signer.sign(made).text)
            // One "in its name" at the last counter, from another key: refused, so it can still write.
            let forged = try Self.signed(
                Self.card("\(local):9223372036854775807", month: 3, title: "Poison"), with: TestHousehold.key(Self.eve))
            let reply = try await importing(running, [mine, forged])
            #expect(reply["received"] == 1)
            #expect(reply["refused"]?.arrayValue?.first?["field"] == "operations[1].sig")
            _ = try await running.commands.request("ops.resume")
            let next = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 4, "title": "Writes on"])
            #expect(next["op"]?.stringValue == "\(local):41")
        }
    }

    @Test(
        "a forgotten device's key is revoked: what it makes after is refused, relayed or by another's revocation; pairing again lifts it"
    )
    func revoked() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad, Self.gran], store: running.commands)
            let dadKey = TestHousehold.key(Self.dad).publicKey
            #expect(
                try await importing(running, [TestHousehold.signed(Self.card("\(Self.dad):1", title: "Before"))])[
                    "received"] == 1)
            let revocation = try await running.commands.request("device.revoke", args: ["device": .string(Self.dad)])
                .decode(DeviceRevoked.self)
            #expect(revocation.revoked && revocation.revokedAfter == 1, "\(revocation)")
            #expect(revocation.fingerprint == dadKey.fingerprint)
            // device list says so.
            let listed = try await running.commands.request("device.list").decode(DeviceList.self).devices
            #expect(listed.first { $0.id == Self.dad }?.revokedAfter == 1, "\(listed)")
            // Made after it was forgotten, relayed by Gran: refused, naming why.
            let later = TestHousehold.signed(Self.card("\(Self.dad):2", month: 9, title: "After"))
            let relayed = try await importing(running, [later], ["source": .string(Self.gran)])
            #expect(relayed["received"] == 0, "\(relayed)")
            #expect(
                relayed["refused"]?.arrayValue?.first?["rule"]?.stringValue?.contains(
                    "after its key was revoked") == true, "\(relayed)")
            // The revocation is an operation like a vouch: it goes to the other devices.
            let exported = try await running.commands.request("ops.export")
            #expect(
                (exported["operations"]?.arrayValue ?? []).contains {
                    $0["entity"]?["kind"] == "device_key" && $0["fields"]?["revoked_after"]?["value"] == 1
                }, "\(exported)")

            // Pairing again lifts it: what Dad makes is taken again.
            let again = try await running.commands.request(
                "device.trust", args: ["device": .string(Self.dad), "key": .string(dadKey.text)])
            #expect(again["pinned"] == "restored", "\(again)")
            let relisted = try await running.commands.request("device.list").decode(DeviceList.self).devices
            #expect(relisted.first { $0.id == Self.dad }.map { $0.revokedAfter == nil } == true, "\(relisted)")
            #expect(try await importing(running, [later])["received"] == 1)

            // Gran forgets Dad later: her revocation, in the page, refuses his newer operation in it.
            let now = Int64(Date().timeIntervalSince1970 * 1000) + 1_000
            let granRevokes: JSONValue = [
                "id": .string("\(Self.gran):1"), "time": ["wall": .int(now), "logical": 0],
                "entity": ["kind": "device_key", "id": .string(Self.dad)],
                "fields": [
                    "key": ["value": .string(dadKey.text), "overwrites": []],
                    "revoked_after": ["value": 2, "overwrites": []],
                ],
            ]
            let page = [
                TestHousehold.signed(Self.card("\(Self.dad):3", month: 10, title: "Later still")),
                TestHousehold.signed(granRevokes),
            ]
            let travelled = try await importing(running, page, ["source": .string(Self.gran)])
            #expect(travelled["received"] == 1 && travelled["refused_count"] == 1, "\(travelled)")
            #expect(
                try await running.commands.request("event.show", args: ["year": 2026, "month": 10])["empty"] == true)
            // What was held before stays.
            #expect(
                try await running.commands.request("event.show", args: ["year": 2026, "month": 9])["title"] == "After")
        }
    }
}
