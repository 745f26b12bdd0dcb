import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTrust

/// Checks a file before `hearth restore` puts it in place of the household database.
public enum StoreBackup {
    /// Why a file cannot be restored.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Checks that `path` is a Hearth database this build can open and serve, on a copy so the
    /// file itself is never changed:
    /// - SQLite that passes its integrity check, made only by migrations this build knows (a
    ///   backup from a newer Hearth is refused rather than half-understood);
    /// - once the copy is migrated as the store would at start, every table, column and index is
    ///   exactly what this build's migrations make (a table reshaped by hand would stop the store);
    /// - every operation reads as one, and every signed one verifies with its author's key (the
    ///   backup's own vouched keys, and `ownKey` for this device's), so no row can make every
    ///   later export fail.
    /// - Parameter ownKey: this device's signing key (its home's), for its own operations.
    /// - Returns: how many operations it holds.
    /// - Throws: `Refusal` saying what the file is not.
    public static func check(_ path: String, ownKey: SigningPublicKey? = nil) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let original: DatabaseQueue
        do {
            original = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw Refusal(reason: "\(path) cannot be opened as SQLite: \(error)")
        }
        try original.read { db in
            guard try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok" else {
                throw Refusal(reason: "\(path) fails SQLite's integrity check")
            }
            guard try db.tableExists("grdb_migrations"), try db.tableExists("operation"), try db.tableExists("change")
            else {
                throw Refusal(reason: "\(path) is an SQLite database, but not a Hearth one (no operation log)")
            }
            let known = Set(StoreMigrations.migrator.migrations)
            let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            if let unknown = applied.first(where: { !known.contains($0) }) {
                throw Refusal(reason: "\(path) comes from a newer Hearth (its migration '\(unknown)' is unknown here)")
            }
        }
        // A copy in memory, migrated as the store will migrate the file, beside a fresh reference.
        let copy = try DatabaseQueue()
        try original.backup(to: copy)
        try original.close()
        do {
            try StoreMigrations.migrator.migrate(copy)
        } catch {
            throw Refusal(reason: "\(path) cannot be brought up to this Hearth's schema: \(error)")
        }
        let reference = try DatabaseQueue()
        try StoreMigrations.migrator.migrate(reference)
        let expected = try reference.read(Self.schema)
        let found = try copy.read(Self.schema)
        if let difference = Self.difference(expected: expected, found: found) {
            throw Refusal(reason: "\(path) is not shaped as a Hearth database: \(difference); nothing was replaced")
        }
        return try copy.read { db in try Self.checkOperations(in: db, path: path, ownKey: ownKey) }
    }

    /// Every table's and index's definition, by name, as SQLite reports it (columns with their
    /// types, defaults, keys and constraints).
    private static func schema(_ db: Database) throws -> [String: String] {
        var shape: [String: String] = [:]
        for row in try Row.fetchAll(
            db,
            sql: "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'index')")
        {
            let (type, name): (String, String) = (row["type"], row["name"])
            if type == "table" {
                let columns = try Row.fetchAll(db, sql: "SELECT * FROM pragma_table_xinfo(?)", arguments: [name])
                shape["table \(name)"] = columns.map { column in
                    "\(column["name"] as String) \(column["type"] as String) notnull=\(column["notnull"] as Int) pk=\(column["pk"] as Int) default=\((column["dflt_value"] as String?) ?? "-")"
                }.joined(separator: ", ")
            } else {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [name])
                shape["index \(name)"] = columns.joined(separator: ", ")
            }
        }
        return shape
    }

    /// The first difference between two schemas, in words, or `nil`.
    private static func difference(expected: [String: String], found: [String: String]) -> String? {
        for name in expected.keys.sorted() {
            guard let shape = found[name] else { return "\(name) is missing" }
            if shape != expected[name] { return "\(name) is (\(shape)) where this Hearth makes (\(expected[name]!))" }
        }
        if let extra = found.keys.sorted().first(where: { expected[$0] == nil }) { return "\(extra) is not Hearth's" }
        return nil
    }

    /// Reads every operation and verifies every signed one.
    private static func checkOperations(in db: Database, path: String, ownKey: SigningPublicKey?) throws -> Int {
        var keys = try TrustedKeys.load(in: db)
        let local = try String.fetchOne(db, sql: "SELECT id FROM device WHERE is_local = 1")
        if let local, let ownKey { keys[local] = ownKey }
        let rows = try OperationRecord.fetchCursor(db, sql: "SELECT * FROM operation")
        var count = 0
        var checks: [SignatureCheck] = []
        var ids: [String] = []
        func verify() throws {
            for (valid, id) in zip(SignatureBatch.verify(checks), ids) where !valid {
                throw Refusal(
                    reason:
                        "\(path): operation \(id)'s signature does not verify with its author's key; nothing was replaced"
                )
            }
            (checks, ids) = ([], [])
        }
        while let record = try rows.next() {
            count += 1
            let operation: Operation
            do {
                operation = try record.operation
            } catch {
                throw Refusal(reason: "\(path): operation \(record.id) cannot be read (\(error)); nothing was replaced")
            }
            // One from before signing: kept as it is, never sent (another device's), or signed at
            // start (this device's).
            guard let text = record.signature else { continue }
            guard let signature = OperationSignature(text: text), let key = keys[record.device] else {
                throw Refusal(
                    reason:
                        "\(path): operation \(record.id) is signed, but not by a key this backup knows for its author; nothing was replaced"
                )
            }
            checks.append(SignatureCheck(operation: operation, signature: signature, key: key))
            ids.append(record.id)
            if checks.count == 4_096 { try verify() }
        }
        try verify()
        return count
    }
}
