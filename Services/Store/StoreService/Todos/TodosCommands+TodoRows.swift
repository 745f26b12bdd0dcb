import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// Reading the todos domain's rows, finding entities by id prefix, and typed arguments.
extension TodosCommands {
    // MARK: - Reading rows

    /// A todo's repeat rule, or `nil` for a one-off todo.
    static func recurrence(_ row: Row) -> Recurrence? {
        Recurrence(todoRepeat: row["repeat"], due: row["due_date"], until: row["until"], monthEnd: row["month_end"])
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
        // Cached statements: a list of 5,001 todos asks this 5,001 times, and preparing the two
        // statements each time was most of its cost.
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT todo.*, c.name AS collection_name, c.kind AS kind, m.name AS assignee_name FROM todo
                        LEFT JOIN todo_collection AS c ON c.id = todo.collection
                        LEFT JOIN member AS m ON m.id = todo.assignee WHERE todo.id = ?
                        """), arguments: [id])
        else { return nil }
        let subtasks = try Row.fetchAll(
            try db.cachedStatement(sql: "SELECT * FROM todo_subtask WHERE todo = ? ORDER BY position, id"),
            arguments: [id])
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
        try StoreCommands.uniqueID(given, table: "todo", what: "todo", field: field, in: db)
    }
}
