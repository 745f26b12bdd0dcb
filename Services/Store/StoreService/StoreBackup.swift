import Foundation
import GRDB

/// Checks a file before `hearth restore` puts it in place of the household database.
public enum StoreBackup {
    /// Why a file cannot be restored.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Checks that `path` is a Hearth database this build can open: SQLite that passes its
    /// integrity check, with the store's tables, and made only by migrations this build knows (a
    /// backup from a newer Hearth is refused rather than half-understood).
    /// - Returns: how many operations it holds.
    /// - Throws: `Refusal` saying what the file is not.
    public static func check(_ path: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw Refusal(reason: "\(path) cannot be opened as SQLite: \(error)")
        }
        return try queue.read { db in
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
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation") ?? 0
        }
    }
}
