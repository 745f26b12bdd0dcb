import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTrust

/// Devices in the store: `device` operations (names) materialised into the core `device` table
/// (which also keeps this device's own facts: which row is local, when each was first seen and
/// last synced), and `device_key` operations (signing keys vouched for) into `device_key`, the
/// keys this store verifies operations with (`TrustedKeys`). `device.rename` and `device.trust`
/// write the operations; `device.list` reads the tables.
enum DevicesDomain: StoreDomain {
    typealias Rules = Devices

    static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("devices: signing keys vouched for") { db in
            // Every key here was verified before it was stored: this device's own (written at
            // start), or one a trusted device's signed `device_key` operation vouched for. A key
            // once here is never replaced.
            try db.create(table: "device_key") { table in
                table.primaryKey("device", .text)
                table.column("key", .text).notNull()
                table.column("vouched_by", .text).notNull()
                table.column("at", .text).notNull()
            }
        }
        migrator.registerMigration("devices: a key pinned here over one vouched for") { db in
            // A key another device vouched for, which this device's own pin (pairing, a typed
            // fingerprint) replaced: kept to show a person, who settles it (`device trust` or
            // `device distrust`).
            try db.create(table: "device_key_conflict") { table in
                table.primaryKey("device", .text)
                table.column("vouched_key", .text).notNull()
                table.column("vouched_by", .text).notNull()
                table.column("pinned_key", .text).notNull()
                table.column("at", .text).notNull()
            }
        }
        migrator.registerMigration("devices: a forgotten device's key revoked") { db in
            // The last of the device's operations still taken (`revoked_after`; null: none
            // revoked), the device that revoked it, and the revocation's operation (its time
            // orders it against a revocation or a pairing arriving later).
            try db.alter(table: "device_key") { table in
                table.add(column: "revoked_after", .integer)
                table.add(column: "revoked_by", .text)
                table.add(column: "revoked_op", .text)
            }
        }
    }

    static func handler(for command: String) -> StoreCommands.Handler? { nil }

    static func describe(_ entity: EntityRef, in db: Database) throws -> [String: JSONValue] {
        if entity.kind == Devices.keyKind {
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT k.key, k.vouched_by, \(TrustedKeys.conflictColumns)
                    FROM device_key k LEFT JOIN device_key_conflict c ON c.device = k.device WHERE k.device = ?
                    """, arguments: [entity.id])
            let change = DeviceKeyChange(
                device: entity.id, fingerprint: TrustedKeys.fingerprint(row?["key"]), vouchedBy: row?["vouched_by"],
                keyConflict: row.flatMap(TrustedKeys.keyConflict(in:)))
            return ["device_key": try JSONValue(reply: change)]
        }
        let name = try String.fetchOne(db, sql: "SELECT name FROM device WHERE id = ?", arguments: [entity.id])
        return ["device": ["id": .string(entity.id), "name": name.map(JSONValue.string) ?? .null]]
    }

    static func materialize(_ entity: EntityRef, from log: OperationLog, in db: Database) throws {
        if entity.kind == Devices.keyKind {
            // The first key stays: the import refuses a vouch naming another one.
            let fields = log.entity(entity)
            guard let state = fields["key"], case .text(let key) = state.value else { return }
            try db.execute(
                sql: """
                    INSERT INTO device_key (device, key, vouched_by, at) VALUES (?, ?, ?, ?)
                    ON CONFLICT(device) DO NOTHING
                    """, arguments: [entity.id, key, state.winner.device, Timestamp.format(Date())])
            // The newest revocation (or pairing again, null) wins.
            if let revoked = fields["revoked_after"] {
                let after: Int64? = if case .int(let counter) = revoked.value { counter } else { nil }
                try db.execute(
                    sql: "UPDATE device_key SET revoked_after = ?, revoked_by = ?, revoked_op = ? WHERE device = ?",
                    arguments: [after, revoked.winner.device, revoked.winner.description, entity.id])
            }
            return
        }
        guard case .text(let name) = log.entity(entity)["name"]?.value else { return }
        try db.execute(
            sql: """
                INSERT INTO device (id, name, is_local, first_seen_at) VALUES (?, ?, 0, ?)
                ON CONFLICT(id) DO UPDATE SET name = excluded.name
                """, arguments: [entity.id, name, Timestamp.format(Date())])
    }
}

// MARK: - Names

extension DevicesDomain {
    static let kindNames = [Devices.kind: "device", Devices.keyKind: "signing key"]
}

extension DevicesDomain {
    static func stepName(of entity: EntityRef, reading fields: StepFields) throws -> String? {
        entity.kind == Devices.kind ? try fields.named(["name"]) : nil
    }
}
