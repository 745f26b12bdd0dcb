import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import Logging
import Testing

@testable import StoreService

/// What sync needs of the store, with the defects that would have lost data: the version vector
/// is the contiguous prefix, exports come in bounded pages, conflicts are counted when new, an
/// operation from a wrong clock is held back without refusing the rest, and device names travel.
@Suite("hearth-store: exchanging operations between devices", .serialized, .timeLimit(.minutes(2)))
struct StoreExchangeTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    static let mum = "a0a00000-0000-4000-8000-00000000000a"

    static func card(_ counter: Int, wall: Int64, month: Int = 1, title: String) -> JSONValue {
        StoreHistoryTests.remote("\(mum):\(counter)", wall: wall, month: month, ["title": .string(title)])
    }

    /// Mum's operation `counter` of a long history: the title of a card of its own (a year per
    /// twelve operations), as a long history spreads over many.
    static func longHistory(_ counter: Int, month: Int, wall now: Int64, title: String) -> JSONValue {
        TestHousehold.signed(
            [
                "id": .string("\(mum):\(counter)"),
                "time": ["wall": .int(now - 500_000 + Int64(counter)), "logical": 0],
                "entity": [
                    "kind": "event_card", "id": .string("\(2000 + counter / 12)-\(String(format: "%02d", month))"),
                ],
                "fields": ["title": ["value": .string(title), "overwrites": []]],
            ])
    }

    /// Makes `store` trust `other`'s real signing key, as pairing with it does.
    static func trust(_ other: RunningStore, in store: RunningStore) async throws {
        let vector = try await other.commands.request("ops.vector")
        _ = try await store.commands.request(
            "device.trust", args: ["device": vector["device"] ?? .null, "key": vector["signing_key"] ?? .null])
    }

    @Test(
        "a store holding a:1–2 and a:6–7 claims a:2 (not a:7), and b:2–3 not at all, so a peer sends a:3 on and the holes fill"
    )
    func contiguousVector() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let dad = "d0d00000-0000-4000-8000-00000000000d"
            try await TestHousehold.trust([Self.mum, dad], store: running.commands)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let held = [1, 2, 6, 7].map { Self.card($0, wall: now - 100_000 + Int64($0), month: $0, title: "t\($0)") }
            let dads = [2, 3].map {
                StoreHistoryTests.remote("\(dad):\($0)", wall: now - 50_000 + Int64($0), month: 9 + $0, ["title": "d"])
            }
            _ = try await running.commands.request("ops.import", args: ["operations": .array(held + dads)])
            let export = try await running.commands.request("ops.vector")
            #expect(export["vector"]?[Self.mum] == 2)
            #expect(export["vector"]?[dad] == nil)
            #expect(export["device"] == "dev-a")
            // What a peer with a:1–7 sends for that vector: a:3–7 (6 and 7 again, already had), after
            // its own vouch for Mum's key (trust first).
            try await withStore(context: context, device: UUIDText.make()) { (peer: RunningStore) async throws in
                try await TestHousehold.trust([Self.mum], store: peer.commands)
                try await Self.trust(peer, in: running)
                let all = (1...7).map { Self.card($0, wall: now - 100_000 + Int64($0), month: $0, title: "t\($0)") }
                _ = try await peer.commands.request("ops.import", args: ["operations": .array(all)])
                let lacking = try await peer.commands.request(
                    "ops.export", args: ["since_vector": export["vector"] ?? [:]])
                let ids = (lacking["operations"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
                // The peer's vouch for Mum's key first (trust first), Mum's operations in time order,
                // and the peer's own name, written when it started.
                let vouch = try #require(ids.first)
                #expect(vouch.hasPrefix(peer.store.database.localDevice))
                #expect(ids.filter { $0.hasPrefix(Self.mum) } == (3...7).map { "\(Self.mum):\($0)" })
                #expect(ids.count == 7)
                let applied = try await running.commands.request(
                    "ops.import", args: ["operations": lacking["operations"] ?? []])
                #expect(applied["received"] == 5)
                #expect(applied["already_had"] == 2)
                #expect(applied["refused_count"] == 0)
                let after = try await running.commands.request("ops.export", args: ["since_vector": [:], "limit": 1])
                #expect(after["vector"]?[Self.mum] == 7)
            }
        }
    }

    @Test("an export comes in pages under the message limit, in time order, each operation once")
    func pagedExport() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.mum], store: running.commands)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let title = String(repeating: "x", count: 190)
            var counter = 0
            for batch in 0..<6 {
                let operations = (0..<500).map { index -> JSONValue in
                    counter += 1
                    return Self.longHistory(counter, month: index % 12 + 1, wall: now, title: "\(title)\(batch)")
                }
                _ = try await running.commands.request("ops.import", args: ["operations": .array(operations)])
            }
            var pages = 0
            var ids: [String] = []
            var after: JSONValue = .null
            repeat {
                let page = try await running.commands.request(
                    "ops.export", args: ["since_vector": [:], "after": after])
                #expect(page.jsonText.utf8.count < running.configuration.maximumMessageBytes)
                ids += (page["operations"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
                after = page["next"] ?? .null
                pages += 1
            } while after != .null && pages < 100
            #expect(pages > 1)
            // This store's vouch for Mum's key first, then Mum's operations in time order.
            #expect(ids == ["dev-a:1"] + (1...3_000).map { "\(Self.mum):\($0)" })
            let limited = try await running.commands.request("ops.export", args: ["since_vector": [:], "limit": 10])
            #expect(limited["operations"]?.arrayValue?.count == 10)
            let bad = await #expect(throws: CommandClientError.self) {
                try await running.commands.request("ops.export", args: ["after": "nonsense"])
            }
            #expect(bad?.description.contains("'after' must be a cursor") == true)
        }
    }

    @Test(
        "a packed export pages by what deflates under the limit (halving a page of hard-to-pack titles) and imports whole"
    )
    func packedExport() async throws {
        try await withStore(context: context, device: UUIDText.make()) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.mum], store: running.commands)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            // (In imports of 400: 600 signed operations of 190 random letters pass the request limit.)
            for batch in 0..<6 {
                let operations = (1...400).map { index -> JSONValue in
                    let counter = batch * 400 + index
                    // Random letters deflate poorly: 2,400 of them pack past the limit at first.
                    let title = String((0..<190).map { _ in letters.randomElement()! })
                    return Self.longHistory(counter, month: counter % 12 + 1, wall: now, title: title)
                }
                _ = try await running.commands.request("ops.import", args: ["operations": .array(operations)])
            }
            try await withStore(context: context, device: "dev-b") { (peer: RunningStore) async throws in
                // The peer trusts the exporter only; Mum's key comes with its vouch, on the first page.
                try await Self.trust(running, in: peer)
                var (pages, received) = (0, 0)
                var after: JSONValue = .null
                repeat {
                    let page = try await running.commands.request(
                        "ops.export", args: ["since_vector": [:], "after": after, "packed": true])
                    #expect(page["operations"] == nil)
                    #expect(page.jsonText.utf8.count < running.configuration.maximumMessageBytes)
                    let count = try #require(page["count"]?.intValue)
                    #expect(count > 0 && count < 2_402)
                    let applied = try await peer.commands.request(
                        "ops.import", args: ["format": page["format"] ?? .null, "packed": page["packed"] ?? .null])
                    #expect(applied["received"]?.intValue == count)
                    received += Int(count)
                    after = page["next"] ?? .null
                    pages += 1
                } while after != .null && pages < 100
                // Mum's 2,400, the exporter's vouch for her key, and its own name.
                #expect(received == 2_402)
                #expect(pages > 1)
                let vector = try await peer.commands.request("ops.vector")
                #expect(vector["vector"]?[Self.mum] == 2_400)
                let bad = await #expect(throws: CommandClientError.self) {
                    try await peer.commands.request("ops.import", args: ["packed": "not base64!"])
                }
                #expect(bad?.description.contains("'packed'") == true)
            }
        }
    }

    @Test("an import counts the conflicts it made: the same conflicting file twice reports it once")
    func newConflicts() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.mum], store: running.commands)
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 1, "title": "Mine"])
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let theirs = [Self.card(1, wall: now - 1_000, title: "Theirs")]
            let first = try await running.commands.request("ops.import", args: ["operations": .array(theirs)])
            #expect(first["conflicts"] == 1)
            let again = try await running.commands.request("ops.import", args: ["operations": .array(theirs)])
            #expect(again["already_had"] == 1)
            #expect(again["conflicts"] == 0)
            let more = [Self.card(2, wall: now - 500, month: 2, title: "Elsewhere")]
            #expect(
                try await running.commands.request("ops.import", args: ["operations": .array(more)])["conflicts"] == 0)
        }
    }

    @Test("an import asked to announce says how each card it changed read before and after, and who wrote it last")
    func announced() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.mum], store: running.commands)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let first = try await running.commands.request(
                "ops.import", args: ["operations": [Self.card(1, wall: now - 3_000, month: 3, title: "Picnic")]])
            #expect(first["announced"] == nil)
            let page: [JSONValue] = [
                StoreHistoryTests.remote(
                    "\(Self.mum):2", wall: now - 2_000, month: 3, ["title": "Beach day", "day": 14],
                    overwrites: ["\(Self.mum):1"]),
                Self.card(3, wall: now - 1_000, month: 4, title: "Zoo"),
            ]
            let reply = try await running.commands.request(
                "ops.import", args: ["operations": .array(page), "announce": true])
            let report = try reply.decode(ImportReport.self)
            #expect(
                report.announced?.map { "\($0.id) \($0.before ?? "-") → \($0.after ?? "-") by \($0.by.device)" } == [
                    "2026-03 Picnic → Beach day, day 14 by \(Self.mum)", "2026-04 - → Zoo by \(Self.mum)",
                ])
            // One sync's imports as one: the first before, the last after, the latest writer.
            let later = AnnouncedChange(
                kind: "event_card", id: "2026-03", by: PeerRef(device: "dad", name: "Dad"), before: "Beach day, day 14",
                after: "Picnic", wall: now, logical: 0)
            let merged = CardsChangedEvent.changes(merging: (report.announced ?? []) + [later])
            #expect(
                merged.map { "\($0.month) \($0.before ?? "-") → \($0.after ?? "-") by \($0.by.name)" } == [
                    "4 - → Zoo by Device a0a00000"
                ])
        }
    }

    @Test("an operation beyond the clock-drift bound is held back, the rest applied; it applies once within the bound")
    func quarantine() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let relayed = "b0b00000-0000-4000-8000-00000000000b"
            try await TestHousehold.trust([Self.mum, relayed], store: running.commands)
            let future = StoreHistoryTests.remote(
                "\(relayed):1", wall: now + HybridClock.maximumDrift + 1_500, month: 3, ["title": "From the future"])
            let fine = Self.card(1, wall: now - 1_000, month: 4, title: "On time")
            let reply = try await running.commands.request("ops.import", args: ["operations": [future, fine]])
            #expect(reply["received"] == 1)
            let held = try #require(reply["quarantined"]?.arrayValue?.first)
            #expect(held["id"]?.stringValue == "\(relayed):1")
            #expect(held["reason"]?.stringValue?.contains("in the future, beyond the 60 min a clock may drift") == true)
            #expect(
                !(try await running.commands.request("event.show", args: ["year": 2026, "month": 3]).jsonText
                    .contains("From the future")))
            // Once the clock reaches it (a second and a half on), any later import applies it.
            var released = 0
            let deadline = ContinuousClock.now + .seconds(10)
            while released == 0 && ContinuousClock.now < deadline {
                released = Int(
                    try await running.commands.request("ops.import", args: ["operations": []])["received"]?.intValue
                        ?? 0)
            }
            #expect(released == 1)
            let card = try await running.commands.request("event.show", args: ["year": 2026, "month": 3])
            #expect(card.jsonText.contains("From the future"))
        }
    }

    @Test("a device's name is an operation: renamed on one store, it shows on another after an exchange")
    func namesTravel() async throws {
        try await withStore(context: context, device: UUIDText.make()) { (first: RunningStore) async throws in
            try await TestHousehold.trust([Self.mum], store: first.commands)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            _ = try await first.commands.request(
                "ops.import", args: ["operations": [Self.card(1, wall: now - 1_000, title: "x")]])
            let renamed = try await first.commands.request(
                "device.rename", args: ["id": .string(Self.mum), "name": "Mum's phone"])
            #expect(renamed["name"] == "Mum's phone")
            let refused = await #expect(throws: CommandClientError.self) {
                try await first.commands.request(
                    "device.rename", args: ["id": .string(Self.mum), "name": "bell\u{07}"])
            }
            #expect(refused?.description.contains("'name' must not contain control characters") == true)
            let export = try await first.commands.request("ops.export", args: ["since_vector": [:]])
            try await withStore(context: context, device: UUIDText.make()) { (second: RunningStore) async throws in
                // Second trusts only First; Mum's key comes with First's vouch for it.
                try await Self.trust(first, in: second)
                let imported = try await second.commands.request(
                    "ops.import", args: ["operations": export["operations"] ?? []])
                #expect(imported["refused_count"] == 0)
                let devices = try await second.commands.request("device.list")["devices"]?.arrayValue ?? []
                #expect(devices.contains { $0["id"]?.stringValue == Self.mum && $0["name"] == "Mum's phone" })
            }
        }
    }
}
