import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost
import HearthTrust
import Synchronization

/// `$HEARTH_HOME/hearth.sqlite`: the operation log, the change feed and the tables materialised
/// from the log, in one WAL-mode `DatabasePool`.
///
/// Every change goes through `apply`: in one transaction it appends the operation, folds the
/// entity's operations (with HearthCore's `OperationLog`, the single definition of how edits
/// merge) into its materialised row, and appends a change. A commit is durable before anyone is
/// told (`synchronous = FULL`).
final class StoreDatabase: Sendable {
    let pool: DatabasePool
    let localDevice: String
    /// This device's signing key: every operation it writes is signed with it.
    let signer: SigningKey
    /// `hearth.sqlite.restored`, left by `hearth restore`: this device has not yet taken back
    /// from a peer the operations it made after that backup. Until it has, it writes nothing
    /// (its next counters may already be used by operations the peers hold) and an import may
    /// bring it its own operations.
    let restoreMarker: String
    private let recovering: Atomic<Bool>

    /// Whether this device was restored and has not taken its own operations back yet.
    var isRecovering: Bool { recovering.load(ordering: .acquiring) }

    /// Ends the recovery after a restore (a completed sync, or `hearth ops resume`).
    /// - Returns: whether the device was recovering.
    @discardableResult
    func resume() -> Bool {
        unlink(restoreMarker)
        return recovering.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Opens (creating with mode 0600) and migrates the database, records this device's signing
    /// key, and signs this device's own operations written before signing.
    init(path: String, localDevice: String, signer: SigningKey) throws {
        restoreMarker = path + ".restored"
        recovering = Atomic(FileManager.default.fileExists(atPath: path + ".restored"))
        if !FileManager.default.fileExists(atPath: path) {
            // SQLite gives its -wal and -shm files the database file's permissions.
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw StoreError.file(path, String(cString: strerror(errno))) }
            close(fd)
        }
        // A database found readable by others (copied, restored by hand) is made private again.
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            PrivateFile.tighten(path + suffix)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // Each command commits in a savepoint of a shared transaction (GroupCommit), and
            // SQLite keeps a savepoint's sub-journal in a temporary file unless temporary files
            // are in memory: under `hearth-bench store` that file took 24,263 of the store's
            // 33,687 page writes (strace, 2026-12-07). Its pages are the transaction's own and
            // die with it; nothing durable is in them.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            try SearchRanking.register(in: db)
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        // `synchronous = FULL` on the writer, so an answered command survives a power cut. Set
        // here, not in `prepareDatabase`: GRDB's pool turns WAL mode on after that and sets
        // NORMAL with it (a commit then reaches the disk only at the next checkpoint). Until
        // 2026-12-07 the store ran at NORMAL that way (strace under `hearth-bench store`: 12
        // fdatasync calls for about 5,000 commits). Readers never write: their setting is moot.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try StoreMigrations.migrator.migrate(pool)
        // What a migration wrote into indexed tables, into the index.
        try pool.write { db in try SearchIndex.flush(db) }
        self.localDevice = localDevice
        self.signer = signer
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (id, name, is_local, first_seen_at) VALUES (?, ?, 1, ?)
                    ON CONFLICT(id) DO NOTHING
                    """,
                arguments: [localDevice, Self.hostName(), Timestamp.format(Date())])
            // This device's own key is trusted because it is its own, not because anyone vouched.
            try db.execute(
                sql: """
                    INSERT INTO device_key (device, key, vouched_by, at) VALUES (?, ?, ?, ?)
                    ON CONFLICT(device) DO UPDATE SET key = excluded.key, vouched_by = excluded.vouched_by
                    """, arguments: [localDevice, signer.publicKey.text, localDevice, Timestamp.format(Date())])
        }
        try signOwnOperations()
    }

    /// Signs this device's operations written before signing (once, after the upgrade): they
    /// then travel signed like every later one. Another device's operations held from before
    /// signing stay unsigned here and are never exported: each device signs its own, and they
    /// arrive signed from it (`apply` adds the signature to the copy held).
    private func signOwnOperations() throws {
        while true {
            let signed = try pool.write { [localDevice, signer] db -> Int in
                let records = try OperationRecord.fetchAll(
                    db, sql: "SELECT * FROM operation WHERE device = ? AND signature IS NULL LIMIT 2000",
                    arguments: [localDevice])
                for record in records {
                    try db.execute(
                        sql: "UPDATE operation SET signature = ? WHERE id = ?",
                        arguments: [signer.sign(try record.operation).text, record.id])
                }
                return records.count
            }
            if signed < 2_000 { return }
        }
    }

    /// The local device's name until `hearth device rename`: the host's (`DeviceIdentity.hostName`).
    static func hostName() -> String {
        let name = DeviceIdentity.hostName()
        return (try? TextRules.check(name, field: "name", maximumLength: 60)) != nil ? name : "This device"
    }

    // MARK: - Applying operations

    /// Applies `operation` inside the caller's transaction.
    /// - Parameter log: the entity's log as already folded by the caller (`makeOperation`), so it
    ///   is not loaded and folded again; loaded here when `nil`.
    /// - Returns: the change's sequence number, or `nil` if the operation was already applied.
    /// - Throws: `OperationLogError` for a malformed or forged operation, `RuleError` for one its
    ///   domain's rules refuse (or of a kind no domain keeps); nothing is written then.
    static func apply(
        _ operation: Operation, signature: String?, in db: Database, log: OperationLog? = nil
    ) throws -> Int64? {
        var folded = try log ?? Self.log(of: operation.entity, in: db)
        return try apply(operation, signature: signature, in: db, folded: &folded)
    }

    /// Applies `operation` onto `folded`, the entity's log as held (and kept current) by the
    /// caller: an import of many operations on one entity folds its log once, not once each.
    /// `folded` holds the operation afterwards, unless it was already applied.
    ///
    /// The field heads are kept in the same transaction: a write some held operation already
    /// overwrote (it arrived late) is not a head; the writes it overwrites stop being heads. So
    /// `folded`, a log of heads only (`log(of:)`), stays what folding the whole history gives.
    /// - Parameters:
    ///   - materializing: `false` leaves the entity's row and its conflict mark to the caller's
    ///     `settle` (an import settles each entity once, after all its operations).
    ///   - validated: `true` when the caller has checked the operation and its domain's rules
    ///     already (an import checks a whole page before its transaction).
    ///   - held: every id the store holds among those the caller will apply, when the caller
    ///     read them at once (an import, with `heldIDs`); `nil` to look this one up.
    ///   - signature: its author's, verified by the caller (or this device's own, just made);
    ///     added to a copy already held without one.
    static func apply(
        _ operation: Operation, signature: String?, in db: Database, folded: inout OperationLog,
        materializing: Bool = true, validated: Bool = false, held: Set<String>? = nil
    ) throws -> Int64? {
        if !validated {
            try operation.validate()
            try StoreDomains.domain(of: operation.entity.kind).validate(operation)
        }
        let id = operation.id.description
        if held?.contains(id) ?? true, let existing = try OperationRecord.held(id, in: db) {
            guard try existing.operation == operation else {
                throw OperationLogError.conflictingDuplicate(operation.id)
            }
            if existing.signature == nil, let signature {
                try db.execute(sql: "UPDATE operation SET signature = ? WHERE id = ?", arguments: [signature, id])
            }
            return nil
        }
        let entity = operation.entity
        var heads: [String: FieldWrite] = [:]
        var emptied = false
        // A late write that overwrote others changes heads the fold cannot be told about
        // without holding the late write itself: the heads are read back instead.
        var reread = false
        for (name, write) in operation.fields {
            let late =
                try Bool.fetchOne(
                    try db.cachedStatement(
                        sql:
                            "SELECT 1 FROM field_overwritten WHERE entity_kind = ? AND entity_id = ? AND field = ? AND op_id = ?"
                    ),
                    arguments: [entity.kind, entity.id, name, id]) ?? false
            for replaced in write.overwrites {
                let arguments: StatementArguments = [entity.kind, entity.id, name, replaced.description]
                try db.cachedStatement(
                    sql:
                        "INSERT OR IGNORE INTO field_overwritten (entity_kind, entity_id, field, op_id) VALUES (?, ?, ?, ?)"
                ).execute(arguments: arguments)
                try db.cachedStatement(
                    sql: "DELETE FROM field_head WHERE entity_kind = ? AND entity_id = ? AND field = ? AND op_id = ?"
                ).execute(arguments: arguments)
            }
            if late {
                if !write.overwrites.isEmpty { reread = true }
                // Every write of a field overwritten: only a cycle, which honest devices never
                // make; the whole fold settles it (the latest write shows).
                let remaining =
                    try Int.fetchOne(
                        db,
                        sql: "SELECT COUNT(*) FROM field_head WHERE entity_kind = ? AND entity_id = ? AND field = ?",
                        arguments: [entity.kind, entity.id, name]) ?? 0
                if remaining == 0 { emptied = true }
            } else {
                heads[name] = write
                try db.cachedStatement(
                    sql: "INSERT OR IGNORE INTO field_head (entity_kind, entity_id, field, op_id) VALUES (?, ?, ?, ?)"
                ).execute(arguments: [entity.kind, entity.id, name, id])
            }
        }
        try OperationRecord(operation, signature: signature).insertCached(db)
        if emptied || reread {
            if emptied { try rebuildHeads(of: entity, in: db) }
            folded = try log(of: entity, in: db)
        } else if heads.isEmpty {
            folded.record(operation)
        } else {
            try folded.apply(Operation(id: operation.id, time: operation.time, entity: entity, fields: heads))
        }
        if materializing { try settle(entity, from: folded, in: db) }
        try db.cachedStatement(sql: "INSERT INTO change (op_id, entity_kind, entity_id) VALUES (?, ?, ?)")
            .execute(arguments: [id, entity.kind, entity.id])
        return db.lastInsertedRowID
    }

    /// The ids among `operations` the store holds: one query for a whole import, where a lookup
    /// per operation was 15% of applying it (perf, `hearth-bench sync`).
    static func heldIDs(_ operations: [Operation], in db: Database) throws -> Set<String> {
        let ids = JSONValue.array(operations.map { .string($0.id.description) }).jsonText
        return Set(
            try String.fetchAll(
                db, sql: "SELECT id FROM operation WHERE id IN (SELECT value FROM json_each(?))", arguments: [ids]))
    }

    /// Rewrites `entity`'s materialised row from its folded log and marks or clears its conflict.
    static func settle(_ entity: EntityRef, from folded: OperationLog, in db: Database) throws {
        try StoreDomains.domain(of: entity.kind).materialize(entity, from: folded, in: db)
        let conflicted = folded.entity(entity).values.contains(where: \.isConflict)
        try db.cachedStatement(
            sql: conflicted
                ? "INSERT OR IGNORE INTO conflict (entity_kind, entity_id) VALUES (?, ?)"
                : "DELETE FROM conflict WHERE entity_kind = ? AND entity_id = ?"
        ).execute(arguments: [entity.kind, entity.id])
    }

    /// One entity's log as folding its whole history gives it, holding only what that fold shows:
    /// each field's heads (`field_head`: the writes nobody overwrote) and the entity's first
    /// operation (for when it was created). A local write or an arriving operation costs the same
    /// however long the entity's history: reading 6,000 operations to edit one todo is what made
    /// the store's memory and write time grow with history in the soak.
    static func log(of entity: EntityRef, in db: Database) throws -> OperationLog {
        var log = OperationLog()
        let rows = try Row.fetchAll(
            try db.cachedStatement(
                sql: """
                    SELECT h.field AS head_field, o.* FROM field_head AS h JOIN operation AS o ON o.id = h.op_id
                    WHERE h.entity_kind = ? AND h.entity_id = ?
                    """), arguments: [entity.kind, entity.id])
        var fieldsByOperation: [String: (record: OperationRecord, fields: Set<String>)] = [:]
        for row in rows {
            let record = try OperationRecord(row: row)
            fieldsByOperation[record.id, default: (record, [])].fields.insert(row["head_field"])
        }
        for (record, fields) in fieldsByOperation.values {
            let operation = try record.operation
            try log.apply(
                Operation(
                    id: operation.id, time: operation.time, entity: entity,
                    fields: operation.fields.filter { fields.contains($0.key) }))
        }
        if let first = try OperationRecord.fetchOne(
            try db.cachedStatement(
                sql: "SELECT * FROM operation WHERE entity_kind = ? AND entity_id = ? ORDER BY wall, logical LIMIT 1"),
            arguments: [entity.kind, entity.id])
        {
            log.record(try first.operation)
        }
        return log
    }

    /// The log of one entity's operations, every one folded: for history and for rebuilding the
    /// heads.
    static func fullLog(of entity: EntityRef, in db: Database) throws -> OperationLog {
        var log = OperationLog()
        let records = try OperationRecord.fetchAll(
            try db.cachedStatement(sql: "SELECT * FROM operation WHERE entity_kind = ? AND entity_id = ?"),
            arguments: [entity.kind, entity.id])
        for record in records { try log.apply(try record.operation) }
        return log
    }

    /// Writes `entity`'s field heads and overwritten writes afresh from its whole history.
    static func rebuildHeads(of entity: EntityRef, in db: Database) throws {
        let log = try fullLog(of: entity, in: db)
        try db.execute(
            sql: "DELETE FROM field_head WHERE entity_kind = ? AND entity_id = ?", arguments: [entity.kind, entity.id])
        for (name, state) in log.entity(entity) {
            for head in state.heads {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO field_head (entity_kind, entity_id, field, op_id) VALUES (?, ?, ?, ?)",
                    arguments: [entity.kind, entity.id, name, head.id.description])
            }
        }
        for operation in log.operations.values {
            for (name, write) in operation.fields {
                for replaced in write.overwrites {
                    try db.execute(
                        sql: """
                            INSERT OR IGNORE INTO field_overwritten (entity_kind, entity_id, field, op_id)
                            VALUES (?, ?, ?, ?)
                            """, arguments: [entity.kind, entity.id, name, replaced.description])
                }
            }
        }
    }

    /// A new local operation setting `values` on `entity`: the next counter of this device and a
    /// hybrid time after every operation held. Also returns the entity's folded log, for `apply`.
    func makeOperation(
        _ entity: EntityRef, values: [String: FieldValue], in db: Database
    ) throws -> (operation: Operation, log: OperationLog) {
        let counter =
            try Int64.fetchOne(
                try db.cachedStatement(sql: "SELECT MAX(counter) FROM operation WHERE device = ?"),
                arguments: [localDevice]) ?? 0
        guard !isRecovering else {
            throw CommandError(
                code: "restored",
                message:
                    "this device was restored from a backup: it first takes back from a paired device the operations it made since (hearth sync now), so it never numbers two changes alike; with no other device, hearth ops resume"
            )
        }
        // Imports never carry this device's operations, so only its own writes reach the limit.
        guard counter < Int64.max else {
            throw CommandError(code: "internal", message: "this device has used every operation counter")
        }
        let last = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT wall, logical FROM operation ORDER BY wall DESC, logical DESC LIMIT 1"))
        var clock = HybridClock(
            last: last.map { HybridTime(wall: $0["wall"], logical: UInt32($0["logical"] as Int64)) }
                ?? HybridTime(wall: 0))
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let log = try Self.log(of: entity, in: db)
        let operation = log.makeOperation(
            device: localDevice, counter: UInt64(counter + 1), time: clock.tick(now: now), entity: entity,
            values: values)
        return (operation, log)
    }
}

/// Reads a folded entity's current values by field name, for the materialised tables.
struct FieldReader {
    let states: [String: OperationLog.FieldState]

    init(_ states: [String: OperationLog.FieldState]) { self.states = states }

    func text(_ name: String) -> String? {
        if case .text(let value) = states[name]?.value { return value }
        return nil
    }

    func int(_ name: String) -> Int64? {
        if case .int(let value) = states[name]?.value { return value }
        return nil
    }
}

extension Date {
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

/// A store failure that is not the caller's fault.
enum StoreError: Error, CustomStringConvertible {
    case file(String, String)

    var description: String {
        switch self {
        case .file(let path, let reason): "\(path): \(reason)"
        }
    }
}
