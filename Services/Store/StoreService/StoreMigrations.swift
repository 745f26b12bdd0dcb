import GRDB
import HearthCore

/// The store's schema: the core's tables (the log, the change feed, requests, devices), then each
/// domain's (`StoreDomain.registerMigrations`). Named migrations are never edited once landed:
/// add a new one instead. (v1 also made the planner's cards table, before domains had folders.)
enum StoreMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: operation log, change feed, event cards, requests, devices") { db in
            // Every operation ever applied: the history, and the source of every materialised row.
            try db.create(table: "operation") { table in
                table.primaryKey("id", .text)
                table.column("device", .text).notNull()
                table.column("counter", .integer).notNull()
                table.column("wall", .integer).notNull()
                table.column("logical", .integer).notNull()
                table.column("entity_kind", .text).notNull()
                table.column("entity_id", .text).notNull()
                table.column("fields", .text).notNull()
                table.uniqueKey(["device", "counter"])
            }
            try db.create(index: "operation_entity", on: "operation", columns: ["entity_kind", "entity_id"])
            try db.create(index: "operation_time", on: "operation", columns: ["wall", "logical"])

            // The durable change feed: `seq` is the store's event sequence on the bus.
            try db.create(table: "change") { table in
                table.autoIncrementedPrimaryKey("seq")
                table.column("op_id", .text).notNull().references("operation")
                table.column("entity_kind", .text).notNull()
                table.column("entity_id", .text).notNull()
            }

            // The year planner's cards, materialised from the log for plain SQL queries.
            try db.create(table: "event_card") { table in
                table.column("year", .integer).notNull()
                table.column("month", .integer).notNull()
                table.column("title", .text)
                table.column("location", .text)
                table.column("day", .integer)
                table.column("colour", .text).notNull()
                table.column("created_at", .text).notNull()
                table.column("modified_at", .text).notNull()
                table.column("modified_by", .text).notNull()
                table.column("conflicted", .boolean).notNull().defaults(to: false)
                table.primaryKey(["year", "month"])
            }

            // Replies to mutating commands by request id, written in the command's own transaction,
            // so a command retried after a crash is answered, not run twice.
            try db.create(table: "request") { table in
                table.primaryKey("id", .text)
                table.column("reply", .text).notNull()
            }

            try db.create(table: "device") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("is_local", .boolean).notNull().defaults(to: false)
                table.column("last_sync_at", .text)
                table.column("first_seen_at", .text).notNull()
            }
        }
        migrator.registerMigration("core: open conflicts of every domain") { db in
            // The entities with a field in conflict, whatever their domain: `conflicts` lists them
            // and `conflicts.resolve` finds an entity's kind here. Kept by `StoreDatabase.apply`.
            try db.create(table: "conflict") { table in
                table.column("entity_kind", .text).notNull()
                table.column("entity_id", .text).notNull()
                table.primaryKey(["entity_kind", "entity_id"])
            }
            try db.create(index: "conflict_entity_id", on: "conflict", columns: ["entity_id"])
            // Those already in conflict: every entity's log folded once.
            let entities = try Row.fetchAll(db, sql: "SELECT DISTINCT entity_kind, entity_id FROM operation")
            for row in entities {
                let entity = EntityRef(kind: row[0], id: row[1])
                if try StoreDatabase.fullLog(of: entity, in: db).entity(entity).values.contains(where: \.isConflict) {
                    try db.execute(
                        sql: "INSERT INTO conflict (entity_kind, entity_id) VALUES (?, ?)",
                        arguments: [entity.kind, entity.id])
                }
            }
        }
        migrator.registerMigration("core: quarantined operations") { db in
            // Operations from other devices held back (stamped beyond the allowed clock drift),
            // with why; tried again on each later import.
            try db.create(table: "quarantine") { table in
                table.primaryKey("id", .text)
                table.column("wall", .integer).notNull()
                table.column("operation", .text).notNull()
                table.column("reason", .text).notNull()
                table.column("held_at", .text).notNull()
            }
        }
        migrator.registerMigration("core: field heads") { db in
            // Each field's current heads, and every write some operation overwrote: what a local
            // write or an arriving operation needs, so neither folds the entity's whole history
            // (`StoreDatabase.log(of:)`). Filled once from the log folded whole.
            try db.create(table: "field_head") { table in
                table.column("entity_kind", .text).notNull()
                table.column("entity_id", .text).notNull()
                table.column("field", .text).notNull()
                table.column("op_id", .text).notNull()
                table.primaryKey(["entity_kind", "entity_id", "field", "op_id"])
            }
            try db.create(table: "field_overwritten") { table in
                table.column("entity_kind", .text).notNull()
                table.column("entity_id", .text).notNull()
                table.column("field", .text).notNull()
                table.column("op_id", .text).notNull()
                table.primaryKey(["entity_kind", "entity_id", "field", "op_id"])
            }
            try db.create(
                index: "operation_entity_time", on: "operation",
                columns: ["entity_kind", "entity_id", "wall", "logical"])
            let entities = try Row.fetchAll(db, sql: "SELECT DISTINCT entity_kind, entity_id FROM operation")
            for row in entities {
                try StoreDatabase.rebuildHeads(of: EntityRef(kind: row[0], id: row[1]), in: db)
            }
        }
        migrator.registerMigration("core: signed operations, forked operations, quarantine by source") { db in
            // Each operation's signature by its author (`OperationSignature`, base64); null only
            // for another device's operation held from before signing, which is never exported.
            try db.alter(table: "operation") { table in table.add(column: "signature", .text) }
            // Who brought each held-back operation (a peer, or a file's exporter), so one source
            // can fill only its own share; its signature and size.
            try db.alter(table: "quarantine") { table in
                table.add(column: "source", .text).notNull().defaults(to: "")
                table.add(column: "signature", .text)
                table.add(column: "bytes", .integer).notNull().defaults(to: 0)
            }
            try db.create(index: "quarantine_source", on: "quarantine", columns: ["source"])
            // One operation id held with two contents (possible only from before signing): both
            // kept here, named, while everything else syncs.
            try db.create(table: "forked_operation") { table in
                table.column("id", .text).notNull()
                table.column("held", .text).notNull()
                table.column("other", .text).notNull()
                table.column("source", .text).notNull()
                table.column("first_seen_at", .text).notNull()
                table.primaryKey(["id", "other"])
            }
        }
        // Then each domain's own, in registration order.
        for domain in StoreDomains.all { domain.registerMigrations(in: &migrator) }
        // Then what spans the domains: the search index over their tables.
        SearchIndex.registerMigration(in: &migrator)
        UndoLog.registerMigration(in: &migrator)
        return migrator
    }
}
