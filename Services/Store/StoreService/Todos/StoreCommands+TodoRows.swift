import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// Reading the todos domain's rows, finding entities by id prefix, and typed arguments.
extension StoreCommands {
    // MARK: - Reading rows

    /// A todo's repeat rule, or `nil` for a one-off todo.
    static func recurrence(_ row: Row) -> Recurrence? {
        guard let repeating = (row["repeat"] as String?).flatMap(Recurrence.Frequency.init(rawValue:)),
            let start = (row["due_date"] as String?).flatMap({ try? LocalDate(parsing: $0, field: "due") })
        else { return nil }
        return Recurrence(
            frequency: repeating, start: start,
            until: (row["until"] as String?).flatMap { try? LocalDate(parsing: $0, field: "until") },
            clampsMonthEnd: (row["month_end"] as String?) == Todos.MonthEnd.clamp.rawValue)
    }

    /// A todo's current fields, as the operation log's values (for the rules between fields).
    static func todoState(_ id: String, in db: Database) throws -> [String: FieldValue] {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM todo WHERE id = ?", arguments: [id]) else {
            return [:]
        }
        var state: [String: FieldValue] = [:]
        for column in ["due_date", "due_time", "until", "repeat"] {
            state[column] = (row[column] as String?).map(FieldValue.text) ?? .null
        }
        state["remind"] = .bool(row["remind"])
        return state
    }

    /// A todo as replies show it (`null` when there is none).
    static func todoJSON(_ id: String, in db: Database) throws -> JSONValue {
        try JSONValue(reply: try todo(id, in: db))
    }

    static func todo(_ id: String, in db: Database) throws -> TodoView? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT todo.*, c.name AS collection_name, c.kind AS kind, m.name AS assignee_name FROM todo
                    LEFT JOIN todo_collection AS c ON c.id = todo.collection
                    LEFT JOIN member AS m ON m.id = todo.assignee WHERE todo.id = ?
                    """, arguments: [id])
        else { return nil }
        let subtasks = try Row.fetchAll(
            db, sql: "SELECT * FROM todo_subtask WHERE todo = ? ORDER BY position, id", arguments: [id])
        return TodoView(
            id: id, collection: row["collection"], collectionName: row["collection_name"], kind: row["kind"],
            title: row["title"], description: row["description"], due: row["due_date"],
            time: (row["due_time"] as String?).flatMap { try? LocalTime(parsing: $0, field: "time").short },
            priority: row["priority"], remind: row["remind"], showInCalendar: row["show_in_calendar"],
            completed: row["completed"], repeat: row["repeat"], until: row["until"], monthEnd: row["month_end"],
            modifiedAt: row["modified_at"], conflicted: row["conflicted"],
            assignee: TodoAgenda.assignee(id: row["assignee"], name: row["assignee_name"]),
            subtasks: subtasks.map { .init(id: $0["id"], title: $0["title"], completed: $0["completed"]) })
    }

    // MARK: - Finding by name or id prefix

    /// The todo `given` names: its id, or a unique prefix of it (at least 4 characters).
    static func todoID(_ given: String, in db: Database, field: String = "id") throws -> String {
        try uniqueID(given, table: "todo", what: "todo", field: field, in: db)
    }

    /// The id of the row of `table` a command names by its name (any case), its id or a unique id
    /// prefix: a member, a person.
    static func id(named given: String, table: String, what: String, field: String, in db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT id FROM \(table) WHERE lower(name) = lower(?)", arguments: [given])
            ?? uniqueID(given, table: table, what: what, field: field, in: db)
    }

    /// Refuses `name` for a row of `table` (other than `id`) when another row has it, ignoring case.
    static func refuseTakenName(_ name: String, table: String, what: String, except id: String?, in db: Database) throws
    {
        let taken = try String.fetchOne(
            db, sql: "SELECT id FROM \(table) WHERE lower(name) = lower(?) AND id IS NOT ?", arguments: [name, id])
        if taken != nil {
            throw CommandError.invalidArgument(
                "name", "must be unique ignoring case: a \(what) '\(name)' already exists")
        }
    }

    static func uniqueID(_ given: String, table: String, what: String, field: String, in db: Database) throws -> String
    {
        let prefix = given.lowercased()
        guard prefix.count >= 4,
            prefix.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D })
        else {
            throw CommandError(code: "not_found", message: "'\(field)': no \(what) '\(given)'")
        }
        let matches = try String.fetchAll(
            db, sql: "SELECT id FROM \(table) WHERE id >= ? AND id < ? LIMIT 2", arguments: [prefix, prefix + "~"])
        guard matches.count == 1, let id = matches.first else {
            throw CommandError(
                code: matches.isEmpty ? "not_found" : "ambiguous",
                message: matches.isEmpty
                    ? "'\(field)': no \(what) '\(given)'" : "'\(field)': '\(given)' matches more than one \(what)")
        }
        return id
    }

}

extension Arguments {
    func requiredString(_ name: String) throws -> String {
        guard let text = try optionalString(name) else { throw CommandError.invalidArgument(name, "is required") }
        return text
    }

    /// A date `YYYY-MM-DD`, checked.
    func optionalDate(_ name: String) throws -> LocalDate? {
        guard let text = try optionalString(name) else { return nil }
        do {
            return try LocalDate(parsing: text, field: name)
        } catch {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
    }

    func optionalBool(_ name: String) throws -> Bool? {
        guard let value = values[name], value != .null else { return nil }
        guard case .bool(let flag) = value else {
            throw CommandError.invalidArgument(name, "must be true or false, found \(value.typeName)")
        }
        return flag
    }
}
