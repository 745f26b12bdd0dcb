import Foundation
import GRDB
import HearthBus
import HearthCore

/// Moving operations between homes: by file today (`hearth ops export/import`), by
/// `hearth-sync` between paired devices. Both read the operations a version vector lacks, in
/// bounded pages in (wall, logical) order, and apply a page in one transaction.
extension StoreCommands {
    /// The version of the exchange format `ops.export` writes and `ops.import` reads.
    /// 2: every operation carries its author's signature (`sig`), and a page names its
    /// exporter's signing key (`signing_key`).
    static let exchangeFormat = "hearth-ops/2"

    /// This store's version vector alone (what a peer asks first, to send only what is lacking).
    func versionVector() async throws -> JSONValue {
        try await database.pool.read { [database] db in
            try JSONValue(
                reply: VersionVectorReply(
                    device: database.localDevice, vector: try Self.vector(in: db).counters.mapValues { Int64($0) },
                    restored: database.isRecovering, signingKey: database.signer.publicKey.text))
        }
    }

    /// The operations `since_vector` lacks (every one without it), a page at a time: at most
    /// `limit` operations (default 10,000) and under the largest message, in (wall, logical,
    /// device, counter) order from after the cursor `after`. `next` is the cursor of the next
    /// page, `null` on the last; `vector` is this store's own (the contiguous prefix per device).
    ///
    /// With `packed: true` (hearth-sync) the page comes as `packed` (`PackedPage`) with its
    /// `count`, and may hold what deflates under the largest message: about four times as many
    /// operations, so a sync of 10,000 moves 3 pages instead of 12 (a page that still packs too
    /// large is halved until it fits).
    func exportOperations(_ arguments: Arguments) async throws -> JSONValue {
        var vector = VersionVector()
        if let given = arguments.values["since_vector"], given != .null {
            guard let object = given.objectValue else {
                throw CommandError.invalidArgument("since_vector", "must be an object of device → counter")
            }
            var counters: [String: UInt64] = [:]
            for (device, counter) in object {
                guard let value = counter.intValue, value >= 0 else {
                    throw CommandError.invalidArgument("since_vector.\(device)", "must be a whole number ≥ 0")
                }
                counters[device] = UInt64(value)
            }
            vector = VersionVector(counters)
        }
        let limit = try arguments.optionalInt("limit") ?? 10_000
        guard (1...10_000).contains(limit) else { throw CommandError.invalidArgument("limit", "must be 1–10000") }
        let after = try arguments.optionalString("after").map { try ExportCursor(parsing: $0) }
        let packed = try arguments.optionalBool("packed") ?? false
        let limitBytes = maximumReplyBytes - 8_192
        let (lacking, budget) = (vector, packed ? limitBytes * 4 : limitBytes)
        return try await database.pool.read { [database] db in
            // What the vector holds is skipped in SQL, before a row is read (a peer that lacks
            // nothing costs an index scan, not a decoded row per operation); a vector of more
            // devices than a household has is checked row by row below instead.
            var held = ""
            var heldArguments: StatementArguments = []
            if lacking.counters.count <= 64 {
                for (device, counter) in lacking.counters {
                    held += " AND NOT (device = ? AND counter <= ?)"
                    heldArguments += [device, Int64(clamping: counter)]
                }
            }
            var operations: [JSONValue] = []
            var bytes = 0
            var next: ExportCursor?
            // Trust first: every vouch for a key goes before the operations signed with it
            // (`ExportCursor.trust`), then everything else. Another device's operation held from
            // before signing is not sent: nobody could verify it (its author sends it signed).
            var cursor = after ?? ExportCursor.start
            phases: while true {
                let rows = try OperationRecord.fetchCursor(
                    db,
                    sql: """
                        SELECT * FROM operation WHERE entity_kind \(cursor.trust ? "=" : "<>") ? AND signature IS NOT NULL
                        AND (wall, logical, device, counter) > (?, ?, ?, ?)\(held)
                        ORDER BY wall, logical, device, counter
                        """,
                    arguments: [Devices.keyKind, cursor.wall, cursor.logical, cursor.device, cursor.counter]
                        + heldArguments)
                while let record = try rows.next() {
                    if lacking.contains(OperationID(device: record.device, counter: UInt64(record.counter))) {
                        continue
                    }
                    let size = record.fields.utf8.count + 300
                    if !operations.isEmpty && (operations.count == limit || bytes + size > budget) {
                        next = ExportCursor(operations.last!)
                        break phases
                    }
                    bytes += size
                    operations.append(try record.json)
                }
                guard cursor.trust else { break }
                cursor = ExportCursor.afterTrust
            }
            var page: JSONValue = [
                "format": .string(Self.exchangeFormat), "device": .string(database.localDevice),
                "vector": try Self.vector(in: db).json, "signing_key": .string(database.signer.publicKey.text),
            ]
            if packed {
                var kept = operations[...]
                var text = PackedPage.pack(Array(kept))
                while text.utf8.count > limitBytes && kept.count > 1 {
                    kept = kept.prefix(kept.count / 2)
                    text = PackedPage.pack(Array(kept))
                }
                if kept.count < operations.count, let last = kept.last { next = ExportCursor(last) }
                page = page.merging(["packed": .string(text), "count": .int(Int64(kept.count))])
            } else {
                page = page.merging(["operations": .array(operations)])
            }
            return page.merging(["next": next.map { .string($0.description) } ?? .null])
        }
    }

    /// Ends the recovery after a restore: hearth-sync after a completed sync, or a person whose
    /// device has no other to take its operations back from (`hearth ops resume`).
    func resumeAfterRestore() throws -> JSONValue {
        try JSONValue(reply: OperationsResumed(resumed: database.resume()))
    }

    /// This store's version vector: per device, the last counter up to which it holds every
    /// operation (1, 2, … n with no hole). A device that holds a:1–2 and a:6–7 claims a:2, so
    /// a peer sends a:3 on (a:6–7 again, which are already had): holes always fill.
    static func vector(in db: Database) throws -> VersionVector {
        var counters: [String: UInt64] = [:]
        // Counters are unique per device and start at 1, so a device holding as many operations
        // as its highest counter has no hole; only a device with holes is looked at closer: the
        // prefix ends at the first counter whose next is missing, if counter 1 is held at all.
        // (A window function ranking every operation took 11–20 ms for 10,000, once per export
        // page; this reads the (device, counter) index: under 1 ms.)
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT device, COUNT(*) AS held, MAX(counter) AS last FROM operation GROUP BY device"))
        for row in rows {
            let (device, held, last): (String, Int64, Int64) = (row["device"], row["held"], row["last"])
            if held == last {
                counters[device] = UInt64(last)
                continue
            }
            let end = try Int64.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT MIN(counter) FROM operation AS o WHERE device = ?1
                        AND EXISTS (SELECT 1 FROM operation WHERE device = ?1 AND counter = 1)
                        AND NOT EXISTS (SELECT 1 FROM operation WHERE device = ?1 AND counter = o.counter + 1)
                        """), arguments: [device])
            if let end { counters[device] = UInt64(end) }
        }
        return VersionVector(counters)
    }
}

/// Where an export page ends: the last operation's (wall, logical, device, counter), and whether
/// it was in the first part of the export, the vouches for keys (`trust`: written `t/…`), or the
/// rest (written as before, four parts).
struct ExportCursor: CustomStringConvertible {
    let trust: Bool
    let wall: Int64
    let logical: Int64
    let device: String
    let counter: Int64

    init(trust: Bool, wall: Int64, logical: Int64, device: String, counter: Int64) {
        (self.trust, self.wall, self.logical, self.device, self.counter) = (trust, wall, logical, device, counter)
    }

    /// Before the first vouch.
    static let start = ExportCursor(trust: true, wall: Int64.min, logical: Int64.min, device: "", counter: Int64.min)
    /// Before the first operation that is not a vouch.
    static let afterTrust = ExportCursor(
        trust: false, wall: Int64.min, logical: Int64.min, device: "", counter: Int64.min)

    init(_ operation: JSONValue) {
        let id = operation["id"]?.stringValue ?? ""
        let parts = id.split(separator: ":")
        self.init(
            trust: operation["entity"]?["kind"]?.stringValue == Devices.keyKind,
            wall: operation["time"]?["wall"]?.intValue ?? 0, logical: operation["time"]?["logical"]?.intValue ?? 0,
            device: parts.first.map(String.init) ?? "", counter: parts.last.flatMap { Int64($0) } ?? 0)
    }

    init(parsing text: String) throws {
        var parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let trust = parts.count == 5 && parts.first == "t"
        if trust { parts.removeFirst() }
        guard parts.count == 4, let wall = Int64(parts[0]), let logical = Int64(parts[1]),
            let counter = Int64(parts[3])
        else { throw CommandError.invalidArgument("after", "must be a cursor from an earlier page's 'next'") }
        self.init(trust: trust, wall: wall, logical: logical, device: String(parts[2]), counter: counter)
    }

    var description: String { "\(trust ? "t/" : "")\(wall)/\(logical)/\(device)/\(counter)" }
}

extension VersionVector {
    var json: JSONValue { .object(counters.mapValues { .int(Int64($0)) }) }
}
