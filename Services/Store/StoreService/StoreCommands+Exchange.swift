import Foundation
import GRDB
import HearthBus
import HearthCore

/// Moving operations between homes: by file today (`hearth ops export/import`), by
/// `hearth-sync` between paired devices. Both read the operations a version vector lacks, in
/// bounded pages in (wall, logical) order, and apply a page in one transaction.
extension StoreCommands {
    /// The version of the exchange format `ops.export` writes and `ops.import` reads.
    static let exchangeFormat = "hearth-ops/1"

    /// This store's version vector alone (what a peer asks first, to send only what is lacking).
    func versionVector() async throws -> JSONValue {
        try await database.pool.read { [database] db in
            [
                "device": .string(database.localDevice), "vector": try Self.vector(in: db).json,
                "restored": .bool(database.isRecovering),
            ]
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
            let start = after ?? ExportCursor(wall: Int64.min, logical: Int64.min, device: "", counter: Int64.min)
            // What the vector holds is skipped in SQL, before a row is read (a peer that lacks
            // nothing costs an index scan, not a decoded row per operation); a vector of more
            // devices than a household has is checked row by row below instead.
            var held = ""
            var arguments: StatementArguments = [start.wall, start.logical, start.device, start.counter]
            if lacking.counters.count <= 64 {
                for (device, counter) in lacking.counters {
                    held += " AND NOT (device = ? AND counter <= ?)"
                    arguments += [device, Int64(clamping: counter)]
                }
            }
            let rows = try OperationRecord.fetchCursor(
                db,
                sql: """
                    SELECT * FROM operation WHERE (wall, logical, device, counter) > (?, ?, ?, ?)\(held)
                    ORDER BY wall, logical, device, counter
                    """, arguments: arguments)
            var operations: [JSONValue] = []
            var bytes = 0
            var next: ExportCursor?
            while let record = try rows.next() {
                if lacking.contains(OperationID(device: record.device, counter: UInt64(record.counter))) { continue }
                let size = record.fields.utf8.count + 200
                if !operations.isEmpty && (operations.count == limit || bytes + size > budget) {
                    next = ExportCursor(operations.last!)
                    break
                }
                bytes += size
                operations.append(try record.json)
            }
            var page: JSONValue = [
                "format": .string(Self.exchangeFormat), "device": .string(database.localDevice),
                "vector": try Self.vector(in: db).json,
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

    /// Applies operations from another home in one transaction and reports what happened:
    /// `received`, `already_had`, `conflicts` (entities this import put in conflict; ones already
    /// in conflict are not counted again) and `quarantined`.
    ///
    /// An operation stamped beyond the allowed clock drift is not applied and does not refuse
    /// the rest: it is held back (`quarantine`, with the reason) and tried again on each later
    /// import, so one device's wrong clock never blocks what a peer relays for others. Anything
    /// else malformed, forged or against its domain's rules refuses the whole import.
    func importOperations(_ requestID: String, _ arguments: Arguments) async throws -> JSONValue {
        if let format = try arguments.optionalString("format"), format != Self.exchangeFormat {
            throw CommandError.invalidArgument(
                "format", "must be \(Self.exchangeFormat), got \(format) (made by a newer Hearth?)")
        }
        let list: [JSONValue]
        if let packed = try arguments.optionalString("packed") {
            do {
                list = try PackedPage.unpack(packed, maximumBytes: maximumReplyBytes * 8)
            } catch {
                throw CommandError.invalidArgument("packed", error.description)
            }
        } else {
            guard let operations = arguments.values["operations"]?.arrayValue else {
                throw CommandError.invalidArgument(
                    "operations", "is required and must be an array (or 'packed': a page from ops.export)")
            }
            list = operations
        }
        let operations = try list.enumerated().map { try Operation(json: $1, at: "operations[\($0)]") }
        for (index, operation) in operations.enumerated() {
            let path = "operations[\(index)]"
            do {
                try operation.validate()
                try StoreDomains.domain(of: operation.entity.kind).validate(operation)
            } catch let error as RuleError {
                let field = error.field.hasPrefix("entity.") ? error.field : "fields.\(error.field)"
                throw CommandError.invalidArgument("\(path).\(field)", error.rule)
            } catch {
                throw CommandError.invalidArgument(path, "\(error)")
            }
            guard operation.author == database.localDevice || DeviceID.isValid(operation.author) else {
                throw CommandError.invalidArgument(
                    "\(path).id", "'\(operation.author)' is not a device id (a device id is a lower-case UUID)")
            }
        }
        let localDevice = database.localDevice
        let recovering = database.isRecovering
        return try await writes.once(requestID) { db, outbox in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            // Held back earlier and now within the bound: tried again first.
            let released = try Self.releaseQuarantine(now: now, in: db)
            var (received, already) = (0, 0)
            var quarantined: [JSONValue] = []
            var touched: [EntityRef: Bool] = [:]
            // Each entity's log, folded once for the whole import and kept current.
            var logs: [EntityRef: OperationLog] = [:]
            var applied: [(operation: Operation, seq: Int64)] = []
            var authors: Set<String> = []
            // Parents before children keeps the feed readable; the fold does not depend on it.
            let ordered = (released.map { (-1, $0) } + operations.enumerated().map { ($0.offset, $0.element) })
                .sorted { ($0.1.time, $0.1.id) < ($1.1.time, $1.1.id) }
            // Which of them the store holds, read once (and kept current as they are applied).
            var held = try StoreDatabase.heldIDs(ordered.map(\.1), in: db)
            for (index, operation) in ordered {
                if operation.time.wall > now + HybridClock.maximumDrift {
                    let reason =
                        "stamped \((operation.time.wall - now) / 60_000) min in the future, beyond the \(HybridClock.maximumDrift / 60_000) min a clock may drift"
                    try Self.quarantine(operation, reason: reason, in: db)
                    quarantined.append(["id": .string(operation.id.description), "reason": .string(reason)])
                    continue
                }
                // This device's own operations come back in a peer's export: ones it holds are
                // "already had"; one it never made is a forgery and is never added (unless it was
                // restored from a backup and is taking back what it made since).
                if operation.author == localDevice, !recovering, !held.contains(operation.id.description) {
                    throw CommandError.invalidArgument(
                        "operations[\(index)].id",
                        "claims to be this device's operation \(operation.id.counter), which this device never made")
                }
                if touched[operation.entity] == nil {
                    touched[operation.entity] = try Self.inConflict(operation.entity, in: db)
                }
                let seq: Int64?
                // Taken out while applied: a copy left in `logs` would make each apply copy the
                // whole log (copy on write; perf: a quarter of `apply` for 849 operations).
                var folded =
                    try logs.removeValue(forKey: operation.entity) ?? StoreDatabase.log(of: operation.entity, in: db)
                do {
                    // Checked above, before the transaction; one released from quarantine again.
                    seq = try StoreDatabase.apply(
                        operation, in: db, folded: &folded, materializing: false, validated: index >= 0,
                        held: held)
                    held.insert(operation.id.description)
                    logs[operation.entity] = folded
                } catch  where index < 0 {
                    // One released from quarantine that no longer applies is dropped, not
                    // allowed to refuse this import (its entity's log is read afresh next).
                    continue
                } catch let error as OperationLogError {
                    throw CommandError.invalidArgument("operations", "\(error)")
                } catch let error as RuleError {
                    let field = error.field.hasPrefix("entity.") ? error.field : "fields.\(error.field)"
                    throw CommandError.invalidArgument("operations[\(index)].\(field)", error.rule)
                }
                guard let seq else {
                    already += 1
                    continue
                }
                received += 1
                if authors.insert(operation.author).inserted {
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO device (id, name, is_local, first_seen_at) VALUES (?, ?, 0, ?)
                            ON CONFLICT(id) DO NOTHING
                            """
                    ).execute(
                        arguments: [operation.author, "Device \(operation.author.prefix(8))", Timestamp.format(Date())])
                }
                applied.append((operation, seq))
            }
            // Each entity's row once, then the changes' events (which describe the rows).
            for entity in Set(applied.map(\.operation.entity)) {
                if let folded = logs[entity] { try StoreDatabase.settle(entity, from: folded, in: db) }
            }
            var descriptions: [EntityRef: [String: JSONValue]] = [:]
            for (operation, seq) in applied {
                let entity = operation.entity
                let description =
                    try descriptions[entity] ?? StoreDomains.domain(of: entity.kind).describe(entity, in: db)
                descriptions[entity] = description
                outbox.add(operation, seq: seq, description: description)
            }
            var conflicts = 0
            for (entity, before) in touched where !before {
                if try Self.inConflict(entity, in: db) { conflicts += 1 }
            }
            return [
                "received": .int(Int64(received)), "already_had": .int(Int64(already)),
                "conflicts": .int(Int64(conflicts)), "quarantined": .array(quarantined),
            ]
        }
    }

    private static func inConflict(_ entity: EntityRef, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT 1 FROM conflict WHERE entity_kind = ? AND entity_id = ?",
            arguments: [entity.kind, entity.id]) ?? false
    }

    private static func quarantine(_ operation: Operation, reason: String, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO quarantine (id, wall, operation, reason, held_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET reason = excluded.reason
                """,
            arguments: [
                operation.id.description, operation.time.wall, operation.json.jsonText, reason,
                Timestamp.format(Date()),
            ])
    }

    /// Takes out of quarantine the operations now within the drift bound.
    private static func releaseQuarantine(now: Int64, in db: Database) throws -> [Operation] {
        let bound = now + HybridClock.maximumDrift
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, operation FROM quarantine WHERE wall <= ? ORDER BY wall", arguments: [bound])
        try db.execute(sql: "DELETE FROM quarantine WHERE wall <= ?", arguments: [bound])
        return rows.compactMap { row in
            try? Operation(json: try JSONValue.parse(Array((row["operation"] as String).utf8)), at: row["id"])
        }
    }

    /// Ends the recovery after a restore: hearth-sync after a completed sync, or a person whose
    /// device has no other to take its operations back from (`hearth ops resume`).
    func resumeAfterRestore() -> JSONValue {
        ["resumed": .bool(database.resume())]
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

/// Where an export page ends: the last operation's (wall, logical, device, counter).
struct ExportCursor: CustomStringConvertible {
    let wall: Int64
    let logical: Int64
    let device: String
    let counter: Int64

    init(wall: Int64, logical: Int64, device: String, counter: Int64) {
        (self.wall, self.logical, self.device, self.counter) = (wall, logical, device, counter)
    }

    init(_ operation: JSONValue) {
        let id = operation["id"]?.stringValue ?? ""
        let parts = id.split(separator: ":")
        self.init(
            wall: operation["time"]?["wall"]?.intValue ?? 0, logical: operation["time"]?["logical"]?.intValue ?? 0,
            device: parts.first.map(String.init) ?? "", counter: parts.last.flatMap { Int64($0) } ?? 0)
    }

    init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, let wall = Int64(parts[0]), let logical = Int64(parts[1]),
            let counter = Int64(parts[3])
        else { throw CommandError.invalidArgument("after", "must be a cursor from an earlier page's 'next'") }
        self.init(wall: wall, logical: logical, device: String(parts[2]), counter: counter)
    }

    var description: String { "\(wall)/\(logical)/\(device)/\(counter)" }
}

extension VersionVector {
    var json: JSONValue { .object(counters.mapValues { .int(Int64($0)) }) }
}
