import Foundation
import GRDB
import HearthBus
import HearthCore

/// Todos out, for other apps (`hearth todo export`): every todo of a collection, or of all, with
/// its subtasks and the days a repeating one was done and skipped (or paused). The command line writes them as
/// iCalendar (`TodoFile`), CSV or JSON.
extension TodosCommands {
    func exportTodos(_ command: TodoCommands.Export) async throws -> JSONValue {
        let collection = command.collection
        return try await database.pool.read { db in
            let collectionID = try collection.map { try Self.collectionID($0, in: db) }
            let ids = try String.fetchAll(
                db,
                sql: """
                    SELECT todo.id FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                    WHERE ? IS NULL OR todo.collection = ?
                    ORDER BY c.sort_order, todo.due_date IS NULL, todo.due_date, todo.due_time, todo.title, todo.id
                    """, arguments: [collectionID, collectionID])
            let completions = try db.cachedStatement(
                sql: "SELECT date FROM todo_completion WHERE template = ? ORDER BY date")
            let skips = try db.cachedStatement(sql: "SELECT date FROM todo_skip WHERE template = ? ORDER BY date")
            let todos = try ids.compactMap { id -> TodoView? in
                guard var todo = try Self.todo(id, in: db) else { return nil }
                if todo.repeat != Todos.Repeat.none.rawValue {
                    todo.completions = try String.fetchAll(completions, arguments: [id])
                    let skipped = try String.fetchAll(skips, arguments: [id])
                    todo.skips = skipped.isEmpty ? nil : skipped
                }
                return todo
            }
            return try JSONValue(reply: TodoList(todos: todos))
        }
    }
}
