import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTrust

/// Applying operations from another device (`hearth ops import`, `hearth-sync`): every operation
/// is checked alone (its form, its domain's rules, its author's signature; `ImportScreening`), and
/// the ones that pass are applied in one transaction. One that fails is refused alone, naming the
/// field and the rule, and never blocks the rest or a later sync.
extension StoreCommands {
    /// How much one source (a peer, a file's exporter) may hold in quarantine at once.
    static let quarantinePerSource = (operations: 1_000, bytes: 1 << 20)
    /// At most this many refusals (and forks) are listed in a reply; all are counted.
    static let refusalsListed = 20
    /// At most this many forked operations are kept to show.
    static let forksKept = 1_000

    /// Applies a page from another device and reports what happened: `received`, `already_had`,
    /// `conflicts` (entities this import put in conflict), `quarantined` (held back, with why),
    /// `refused` (the first few, with `refused_count`), `forked` and `dropped` (released from
    /// quarantine but no longer applicable).
    ///
    /// - `source`: who brought the page (a peer's device id, or a file's exporter): quarantine
    ///   shares are counted by it, and refusals name it.
    /// - `exporter {device, signing_key}` and `trust`: a file names the device that exported it
    ///   and that device's key. An exporter this store does not know is trusted only when `trust`
    ///   is the key's fingerprint, as a person read it on that device (`hearth device list`);
    ///   it is then pinned like a paired device's key.
    ///
    /// An operation stamped beyond the allowed clock drift, once its signature verified, is held
    /// back (`quarantine`) and tried again on each later import. A held-back operation that no
    /// longer applies when released is dropped with its reason.
    func importOperations(_ requestID: String, _ arguments: Arguments) async throws -> JSONValue {
        if let format = try arguments.optionalString("format"), format != Self.exchangeFormat {
            throw CommandError.invalidArgument(
                "format",
                format == "hearth-ops/1"
                    ? "is hearth-ops/1, from a Hearth before signed operations: export again with this version (every device signs its own operations once upgraded)"
                    : "must be \(Self.exchangeFormat), got \(format) (made by a newer Hearth?)")
        }
        let list = try Self.operationList(arguments, maximumBytes: maximumReplyBytes * 8)
        let source = try arguments.optionalString("source") ?? ""
        let announce = try arguments.optionalBool("announce") ?? false
        let exporter = try ImportExporter(arguments)
        let ids = list.compactMap { $0["id"]?.stringValue }
        let local = database.localDevice
        let (keys, heldSigned, vouchesBy, pinnedHere, revocations) = try await database.pool.read { db in
            (
                try TrustedKeys.load(in: db),
                Set(
                    try String.fetchAll(
                        db,
                        sql:
                            "SELECT id FROM operation WHERE signature IS NOT NULL AND id IN (SELECT value FROM json_each(?))",
                        arguments: [JSONValue.array(ids.map(JSONValue.string)).jsonText])),
                try TrustedKeys.vouchCounts(in: db, local: local), try TrustedKeys.pinned(in: db, local: local),
                try TrustedKeys.revocations(in: db)
            )
        }
        let pin = try exporter?.check(against: keys, pinned: pinnedHere)
        // A person's pin beats a key another device vouched for.
        let trusted = keys.merging(pin.map { [$0.device: $0.key] } ?? [:]) { _, pinned in pinned }
        let screening = await offPool { () -> ImportScreening in
            var screening = ImportScreening(
                localDevice: local, keys: trusted, heldSigned: heldSigned, vouchesBy: vouchesBy,
                revocations: pin == nil ? revocations : revocations.filter { $0.key != pin?.device }
            ) { (operation) throws(RuleError) in
                try StoreDomains.domain(of: operation.entity.kind).validate(operation)
            }
            screening.screen(list)
            return screening
        }
        let recovering = database.isRecovering
        return try await writes.once(requestID) { [self] db, outbox in
            var outcome = ImportOutcome(refused: screening.refused)
            if let pin { try self.pin(pin.device, pin.key, in: db, outbox: outbox) }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let released = try Self.releaseQuarantine(now: now, in: db)
            // A key this page vouched for is checked again against the store's: another import
            // may have pinned one for the same device since the page was screened.
            let current = try TrustedKeys.load(in: db)
            var pending: [(index: Int, operation: Operation, signature: String, source: String)] =
                released.map { (-1, $0.operation, $0.signature, $0.source) }
            for accepted in screening.accepted {
                if let known = current[accepted.operation.author], known != accepted.key {
                    outcome.refuse(
                        accepted.operation, field: "operations[\(accepted.index)].sig",
                        rule: "its author's key changed while it was checked; send it again")
                    continue
                }
                pending.append((accepted.index, accepted.operation, accepted.signature, source))
            }
            // Parents before children keeps the feed readable; the fold does not depend on it.
            pending.sort { ($0.operation.time, $0.operation.id) < ($1.operation.time, $1.operation.id) }
            var held = try StoreDatabase.heldIDs(pending.map(\.operation), in: db)
            // Each entity's log, folded once for the whole import and kept current.
            var logs: [EntityRef: OperationLog] = [:]
            var touched: [EntityRef: Bool] = [:]
            var applied: [(operation: Operation, seq: Int64)] = []
            var authors: Set<String> = []
            for (index, operation, signature, from) in pending {
                let id = operation.id.description
                // This device's own operations come back in a peer's export: ones it holds are
                // "already had". One it does not hold is taken only while it recovers after a
                // restore (its signature, verified with this device's own key, proves it made it).
                if operation.author == local, !recovering, !held.contains(id) {
                    outcome.refuse(
                        operation, field: "operations[\(index)].id",
                        rule:
                            "claims to be this device's operation \(operation.id.counter), which this device does not hold"
                    )
                    continue
                }
                // Checked (signature, author, form) before it is held back, so what waits in
                // quarantine can never refuse a later import when it is released.
                if operation.time.wall > now + HybridClock.maximumDrift {
                    try quarantine(operation, signature: signature, source: from, now: now, in: db, outcome: &outcome)
                    continue
                }
                if touched[operation.entity] == nil {
                    touched[operation.entity] = try Self.inConflict(operation.entity, in: db)
                }
                // Taken out while applied: a copy left in `logs` would make each apply copy the
                // whole log (copy on write; perf: a quarter of `apply` for 849 operations).
                var folded =
                    try logs.removeValue(forKey: operation.entity) ?? StoreDatabase.log(of: operation.entity, in: db)
                let seq: Int64?
                do {
                    if index < 0 {
                        // Released from quarantine: whatever it meets now, it never undoes the rest.
                        var result: Int64?
                        try db.inSavepoint {
                            result = try StoreDatabase.apply(
                                operation, signature: signature, in: db, folded: &folded, materializing: false,
                                held: held)
                            return .commit
                        }
                        seq = result
                    } else {
                        seq = try StoreDatabase.apply(
                            operation, signature: signature, in: db, folded: &folded, materializing: false,
                            validated: true, held: held)
                    }
                } catch OperationLogError.conflictingDuplicate {
                    // An id held signed skipped the screening's check ("already had"): a copy
                    // with other content is kept as a fork only if its own signature verifies.
                    guard let key = current[operation.author], let parsed = OperationSignature(text: signature),
                        key.verifies(parsed, of: operation)
                    else {
                        outcome.refuse(
                            operation, field: "operations[\(index)].sig",
                            rule:
                                "another content for operation \(id), held here, whose signature does not verify with its author's key: dropped"
                        )
                        continue
                    }
                    try recordFork(operation, signature: signature, source: from, now: now, in: db, outcome: &outcome)
                    continue
                } catch  where index < 0 {
                    outcome.dropped.append(HeldOperation(id: id, reason: "\(error)"))
                    continue
                }
                logs[operation.entity] = folded
                held.insert(id)
                guard let seq else {
                    outcome.already += 1
                    continue
                }
                outcome.received += 1
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
            // What a person reads of the entities it changes, before (`readable` of the rows
            // not yet settled), when a sync asks.
            let changed = Set(applied.map(\.operation.entity))
            var before: [EntityRef: String] = [:]
            if announce {
                for entity in changed {
                    before[entity] = try StoreDomains.domain(of: entity.kind).readable(entity, in: db)
                }
            }
            // Each entity's row once, then the changes' events (which describe the rows).
            for entity in changed {
                if let folded = logs[entity] { try StoreDatabase.settle(entity, from: folded, in: db) }
            }
            if announce {
                outcome.announced = try Self.announced(applied.map(\.operation), before: before, in: db)
            }
            var descriptions: [EntityRef: [String: JSONValue]] = [:]
            for (operation, seq) in applied {
                let entity = operation.entity
                let description =
                    try descriptions[entity] ?? StoreDomains.domain(of: entity.kind).describe(entity, in: db)
                descriptions[entity] = description
                outbox.add(operation, seq: seq, description: description)
            }
            for (entity, before) in touched where !before {
                if try Self.inConflict(entity, in: db) { outcome.conflicts += 1 }
            }
            return try outcome.json(pinned: pin)
        }
    }

    /// The announced entities (`before`, read before the import settled them) as they read now,
    /// each with the operation that wrote it last.
    private static func announced(
        _ operations: [Operation], before: [EntityRef: String], in db: Database
    ) throws -> [AnnouncedChange] {
        var latest: [EntityRef: Operation] = [:]
        for operation in operations where before[operation.entity] != nil {
            if let known = latest[operation.entity], known.time > operation.time { continue }
            latest[operation.entity] = operation
        }
        return try latest.sorted { $0.key < $1.key }.map { entity, operation in
            let after = try StoreDomains.domain(of: entity.kind).readable(entity, in: db) ?? ""
            let name = try deviceName(operation.author, in: db).stringValue ?? operation.author
            return AnnouncedChange(
                kind: entity.kind, id: entity.id, by: PeerRef(device: operation.author, name: name),
                before: before[entity].flatMap { $0.isEmpty ? nil : $0 }, after: after.isEmpty ? nil : after,
                wall: operation.time.wall, logical: Int64(operation.time.logical))
        }
    }

    /// The page's operations: `packed` (a page from `ops.export`, deflated) or `operations`.
    static func operationList(_ arguments: Arguments, maximumBytes: Int) throws -> [JSONValue] {
        if let packed = try arguments.optionalString("packed") {
            do {
                return try PackedPage.unpack(packed, maximumBytes: maximumBytes)
            } catch {
                throw CommandError.invalidArgument("packed", error.description)
            }
        }
        guard let operations = arguments.values["operations"]?.arrayValue else {
            throw CommandError.invalidArgument(
                "operations", "is required and must be an array (or 'packed': a page from ops.export)")
        }
        return operations
    }

    private static func inConflict(_ entity: EntityRef, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT 1 FROM conflict WHERE entity_kind = ? AND entity_id = ?",
            arguments: [entity.kind, entity.id]) ?? false
    }

    // MARK: - Quarantine and forks

    /// Holds `operation` back, within its source's share.
    private func quarantine(
        _ operation: Operation, signature: String, source: String, now: Int64, in db: Database,
        outcome: inout ImportOutcome
    ) throws {
        let text = operation.signed(signature).jsonText
        let share = try Row.fetchOne(
            db, sql: "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM quarantine WHERE source = ? AND id <> ?",
            arguments: [source, operation.id.description])
        let (count, bytes): (Int, Int) = (share?[0] ?? 0, share?[1] ?? 0)
        guard count < Self.quarantinePerSource.operations, bytes + text.utf8.count <= Self.quarantinePerSource.bytes
        else {
            outcome.refuse(
                operation, field: "operations.time.wall",
                rule:
                    "is stamped in the future, and what \(source.isEmpty ? "this source" : "device \(source.prefix(8))") has held back is full (\(Self.quarantinePerSource.operations) operations or \(Self.quarantinePerSource.bytes / 1024) KiB)"
            )
            return
        }
        let reason =
            "stamped \((operation.time.wall - now) / 60_000) min in the future, beyond the \(HybridClock.maximumDrift / 60_000) min a clock may drift"
        try db.execute(
            sql: """
                INSERT INTO quarantine (id, wall, operation, reason, held_at, source, signature, bytes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET reason = excluded.reason
                """,
            arguments: [
                operation.id.description, operation.time.wall, text, reason, Timestamp.format(Date()), source,
                signature,
                text.utf8.count,
            ])
        outcome.quarantined.append(HeldOperation(id: operation.id.description, reason: reason))
    }

    /// Takes out of quarantine the operations now within the drift bound (each verified before
    /// it was held back).
    private static func releaseQuarantine(
        now: Int64, in db: Database
    ) throws -> [(operation: Operation, signature: String, source: String)] {
        let bound = now + HybridClock.maximumDrift
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, operation, signature, source FROM quarantine WHERE wall <= ? ORDER BY wall",
            arguments: [bound])
        try db.execute(sql: "DELETE FROM quarantine WHERE wall <= ?", arguments: [bound])
        return rows.compactMap { row in
            guard let signature = row["signature"] as String?,
                let operation = try? Operation(
                    json: try JSONValue.parse(Array((row["operation"] as String).utf8)), at: row["id"])
            else { return nil }
            return (operation, signature, row["source"])
        }
    }

    /// Keeps both contents of an operation id held here with another (from before signing: a
    /// signed operation cannot have two), and goes on with the rest.
    private func recordFork(
        _ operation: Operation, signature: String, source: String, now: Int64, in db: Database,
        outcome: inout ImportOutcome
    ) throws {
        let id = operation.id.description
        let heldText = try OperationRecord.held(id, in: db).map { try $0.json.jsonText } ?? "null"
        let kept = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM forked_operation") ?? 0
        if kept < Self.forksKept {
            try db.execute(
                sql: """
                    INSERT INTO forked_operation (id, held, other, source, first_seen_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(id, other) DO NOTHING
                    """,
                arguments: [id, heldText, operation.signed(signature).jsonText, source, Timestamp.format(Date())])
        }
        outcome.forked.append(id)
    }
}

/// What an import did, for its reply.
private struct ImportOutcome {
    var refused: [ImportScreening.Refusal]
    var received = 0
    var already = 0
    var conflicts = 0
    var quarantined: [HeldOperation] = []
    var forked: [String] = []
    var dropped: [HeldOperation] = []
    var announced: [AnnouncedChange]?

    mutating func refuse(_ operation: Operation, field: String, rule: String) {
        refused.append(.init(id: operation.id.description, field: field, rule: rule))
    }

    func json(pinned: (device: String, key: SigningPublicKey)?) throws -> JSONValue {
        try JSONValue(
            reply: ImportReport(
                received: received, alreadyHad: already, conflicts: conflicts, quarantined: quarantined,
                refused: refused.prefix(StoreCommands.refusalsListed).map(\.wire), refusedCount: refused.count,
                forked: Array(forked.prefix(StoreCommands.refusalsListed)), forkedCount: forked.count,
                dropped: dropped, pinned: pinned.map { .init(device: $0.device, fingerprint: $0.key.fingerprint) },
                announced: announced))
    }
}
