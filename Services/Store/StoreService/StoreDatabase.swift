import Foundation
import GRDB
import HearthBus
import HearthCore

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

    /// Opens (creating with mode 0600) and migrates the database.
    init(path: String, localDevice: String) throws {
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
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try StoreMigrations.migrator.migrate(pool)
        self.localDevice = localDevice
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (id, name, is_local, first_seen_at) VALUES (?, ?, 1, ?)
                    ON CONFLICT(id) DO NOTHING
                    """,
                arguments: [localDevice, Self.hostName(), Timestamp.format(Date())])
        }
    }

    /// This machine's host name, the local device's name until `hearth device rename` (issue 9:
    /// the family sees "dads-laptop", not "This device"); "This device" if it has none.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "This device" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 60, (try? TextRules.check(name, field: "name", maximumLength: 60)) != nil
        else { return "This device" }
        return name
    }

    // MARK: - Applying operations

    /// Applies `operation` inside the caller's transaction.
    /// - Parameter log: the entity's log as already folded by the caller (`makeOperation`), so it
    ///   is not loaded and folded again; loaded here when `nil`.
    /// - Returns: the change's sequence number, or `nil` if the operation was already applied.
    /// - Throws: `OperationLogError` for a malformed or forged operation, `RuleError` for one its
    ///   domain's rules refuse (or of a kind no domain keeps); nothing is written then.
    static func apply(_ operation: Operation, in db: Database, log: OperationLog? = nil) throws -> Int64? {
        var folded = try log ?? Self.log(of: operation.entity, in: db)
        return try apply(operation, in: db, folded: &folded)
    }

    /// Applies `operation` onto `folded`, the entity's log as held (and kept current) by the
    /// caller: an import of many operations on one entity folds its log once, not once each.
    /// `folded` holds the operation afterwards, unless it was already applied.
    /// - Parameter materializing: `false` leaves the entity's row and its conflict mark to the
    ///   caller's `settle` (an import settles each entity once, after all its operations).
    static func apply(
        _ operation: Operation, in db: Database, folded: inout OperationLog, materializing: Bool = true
    ) throws -> Int64? {
        try operation.validate()
        let domain = try StoreDomains.domain(of: operation.entity.kind)
        try domain.validate(operation)
        if let existing = try OperationRecord.fetchOne(db, key: operation.id.description) {
            guard try existing.operation == operation else {
                throw OperationLogError.conflictingDuplicate(operation.id)
            }
            return nil
        }
        try folded.apply(operation)
        try OperationRecord(operation).insert(db)
        if materializing { try settle(operation.entity, from: folded, in: db) }
        try db.cachedStatement(sql: "INSERT INTO change (op_id, entity_kind, entity_id) VALUES (?, ?, ?)")
            .execute(arguments: [operation.id.description, operation.entity.kind, operation.entity.id])
        return db.lastInsertedRowID
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

    /// The log of one entity's operations, folded.
    static func log(of entity: EntityRef, in db: Database) throws -> OperationLog {
        var log = OperationLog()
        let records = try OperationRecord.fetchAll(
            try db.cachedStatement(sql: "SELECT * FROM operation WHERE entity_kind = ? AND entity_id = ?"),
            arguments: [entity.kind, entity.id])
        for record in records { try log.apply(try record.operation) }
        return log
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
