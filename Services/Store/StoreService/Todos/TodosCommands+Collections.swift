import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// The todos domain's collections: habits, plans and lists.
extension TodosCommands {
    func addCollection(_ command: CollectionCommands.Add, _ request: CommandRequest) async throws -> JSONValue {
        let (nameText, kindText) = (command.name, command.kind)
        let name = try check { () throws(RuleError) in try Todos.name(nameText) }
        let kind = try check { () throws(RuleError) in try Todos.choice(kindText, field: "kind", as: Todos.Kind.self) }
        var values: [String: FieldValue] = [
            "name": .text(name), "kind": .text(kind.rawValue),
            "show_in_calendar": .bool(command.showInCalendar ?? true),
        ]
        if let icon = command.icon, !icon.isEmpty { values["icon"] = .text(icon) }
        let entity = EntityRef(kind: Todos.collectionKind, id: UUIDText.make())
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            try Self.refuseTakenName(name, except: nil, in: db)
            var all = changes
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(sort_order) FROM todo_collection") ?? -1
            all["sort_order"] = .int(last + 1)
            return try commit(entity, all, in: db, outbox: outbox)
        }
    }

    func editCollection(_ command: CollectionCommands.Edit, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.collection
        var values: [String: FieldValue] = [:]
        if let name = command.name {
            values["name"] = .text(try check { () throws(RuleError) in try Todos.name(name) })
        }
        if let icon = command.icon { values["icon"] = icon.isEmpty ? .null : .text(icon) }
        if let shown = command.showInCalendar { values["show_in_calendar"] = .bool(shown) }
        if let order = command.sortOrder { values["sort_order"] = .int(Int64(order)) }
        guard !values.isEmpty else {
            throw CommandError.invalidArgument("name", "or 'icon', 'show_in_calendar' or 'sort_order' must be given")
        }
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.collectionID(given, in: db)
            if case .text(let name) = changes["name"] { try Self.refuseTakenName(name, except: id, in: db) }
            return try commit(EntityRef(kind: Todos.collectionKind, id: id), changes, in: db, outbox: outbox)
        }
    }

    /// Removes a collection and every todo in it, in one transaction (history keeps them).
    func removeCollection(_ command: CollectionCommands.Remove, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.collection
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.collectionID(given, in: db)
            let todos = try String.fetchAll(db, sql: "SELECT id FROM todo WHERE collection = ?", arguments: [id])
            for todo in todos {
                try commit(EntityRef(kind: Todos.todoKind, id: todo), ["deleted": .bool(true)], in: db, outbox: outbox)
            }
            var reply =
                try commit(
                    EntityRef(kind: Todos.collectionKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox
                )
                .objectValue ?? [:]
            reply["removed_todos"] = .int(Int64(todos.count))
            return .object(reply)
        }
    }

    func listCollections() async throws -> JSONValue {
        try await database.pool.read { db in
            let ids = try String.fetchAll(db, sql: "SELECT id FROM todo_collection ORDER BY sort_order, name, id")
            return try JSONValue(
                reply: CollectionList(collections: try ids.compactMap { try Self.collection($0, in: db) }))
        }
    }

    static func refuseTakenName(_ name: String, except id: String?, in db: Database) throws {
        let taken = try String.fetchOne(
            db, sql: "SELECT id FROM todo_collection WHERE lower(name) = lower(?) AND id IS NOT ?",
            arguments: [name, id])
        if taken != nil {
            throw CommandError.invalidArgument("name", "must be unique: a collection '\(name)' already exists")
        }
    }

    static func collection(_ id: String, in db: Database) throws -> CollectionView? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT c.*, (SELECT COUNT(*) FROM todo WHERE todo.collection = c.id) AS todos,
                           (SELECT COUNT(*) FROM todo WHERE todo.collection = c.id AND completed) AS done
                    FROM todo_collection AS c WHERE c.id = ?
                    """, arguments: [id])
        else { return nil }
        return CollectionView(
            id: id, name: row["name"], kind: row["kind"], icon: row["icon"], sortOrder: row["sort_order"],
            showInCalendar: row["show_in_calendar"], todos: row["todos"], done: row["done"],
            conflicted: row["conflicted"])
    }

    /// The collection `given` names: its name (any case), its id, or a unique prefix of the id.
    static func collectionID(_ given: String, in db: Database, field: String = "collection") throws -> String {
        if let id = try collection(named: given, in: db) { return id }
        return try StoreCommands.uniqueID(given, table: "todo_collection", what: "collection", field: field, in: db)
    }

    /// The id of the collection called `name` (any case), if there is one.
    static func collection(named name: String, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT id FROM todo_collection WHERE lower(name) = lower(?)", arguments: [name])
    }
}
