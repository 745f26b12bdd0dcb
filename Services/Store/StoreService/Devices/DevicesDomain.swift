import Foundation
import GRDB
import HearthBus
import HearthCore

/// Device names in the store: `device` operations materialised into the core `device` table
/// (which also keeps this device's own facts: which row is local, when each was first seen and
/// last synced). `device.rename` writes the operation; `device.list` reads the table.
enum DevicesDomain: StoreDomain {
    typealias Rules = Devices

    static func registerMigrations(in migrator: inout DatabaseMigrator) {}

    static func handler(for command: String) -> StoreCommands.Handler? { nil }

    static func describe(_ entity: EntityRef, in db: Database) throws -> [String: JSONValue] {
        let name = try String.fetchOne(db, sql: "SELECT name FROM device WHERE id = ?", arguments: [entity.id])
        return ["device": ["id": .string(entity.id), "name": name.map(JSONValue.string) ?? .null]]
    }

    static func materialize(_ entity: EntityRef, from log: OperationLog, in db: Database) throws {
        guard case .text(let name) = log.entity(entity)["name"]?.value else { return }
        try db.execute(
            sql: """
                INSERT INTO device (id, name, is_local, first_seen_at) VALUES (?, ?, 0, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name
                """, arguments: [entity.id, name, Timestamp.format(Date())])
    }
}
