import GRDB
import HearthBus
import HearthCore

/// A todo's ordered subtasks: add, tick, move, remove. Positions are rewritten on a move (only
/// those that change), so every device orders them the same way.
extension TodosCommands {
    func addSubtask(_ command: SubtaskCommands.Add, _ request: CommandRequest) async throws -> JSONValue {
        let (given, titleText) = (command.todo, command.title)
        let title = try check { () throws(RuleError) in try Todos.title(titleText) }
        let entity = EntityRef(kind: Todos.subtaskKind, id: UUIDText.make())
        return try await writes.once(request.id) { db, outbox in
            let todo = try Self.todoID(given, in: db, field: "todo")
            let last =
                try Int64.fetchOne(
                    db, sql: "SELECT MAX(position) FROM todo_subtask WHERE todo = ?", arguments: [todo]) ?? -1
            let values: [String: FieldValue] = [
                "todo": .text(todo), "title": .text(title), "completed": .bool(false), "position": .int(last + 1),
            ]
            var reply = try commit(entity, values, in: db, outbox: outbox).objectValue ?? [:]
            reply["todo"] = try Self.todoJSON(todo, in: db)
            return .object(reply)
        }
    }

    func completeSubtask(_ given: String, _ request: CommandRequest, done: Bool) async throws -> JSONValue {
        return try await writes.once(request.id) { db, outbox in
            let (id, todo) = try Self.subtask(given, in: db)
            var reply =
                try commit(
                    EntityRef(kind: Todos.subtaskKind, id: id), ["completed": .bool(done)], in: db, outbox: outbox
                )
                .objectValue ?? [:]
            reply["todo"] = try Self.todoJSON(todo, in: db)
            return .object(reply)
        }
    }

    func removeSubtask(_ command: SubtaskCommands.Remove, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.id
        return try await writes.once(request.id) { db, outbox in
            let (id, todo) = try Self.subtask(given, in: db)
            var reply =
                try commit(EntityRef(kind: Todos.subtaskKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
                .objectValue ?? [:]
            reply["todo"] = try Self.todoJSON(todo, in: db)
            return .object(reply)
        }
    }

    /// Moves a subtask to `position` (1 is first) among its todo's subtasks.
    func moveSubtask(_ command: SubtaskCommands.Move, _ request: CommandRequest) async throws -> JSONValue {
        let (given, position) = (command.id, command.position)
        return try await writes.once(request.id) { db, outbox in
            let (id, todo) = try Self.subtask(given, in: db)
            var order = try String.fetchAll(
                db, sql: "SELECT id FROM todo_subtask WHERE todo = ? ORDER BY position, id", arguments: [todo])
            guard (1...order.count).contains(position) else {
                throw CommandError.invalidArgument("position", "must be 1–\(order.count), got \(position)")
            }
            order.removeAll { $0 == id }
            order.insert(id, at: position - 1)
            let current = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT id, position FROM todo_subtask WHERE todo = ?", arguments: [todo]
                ).map { ($0["id"] as String, $0["position"] as Int64) })
            for (index, subtask) in order.enumerated() where current[subtask] != Int64(index) {
                try commit(
                    EntityRef(kind: Todos.subtaskKind, id: subtask), ["position": .int(Int64(index))], in: db,
                    outbox: outbox)
            }
            return ["todo": try Self.todoJSON(todo, in: db)]
        }
    }

    /// The subtask `given` names (its id or a unique prefix) and its todo.
    private static func subtask(_ given: String, in db: Database) throws -> (id: String, todo: String) {
        let id = try StoreCommands.uniqueID(given, table: "todo_subtask", what: "subtask", field: "id", in: db)
        let todo = try String.fetchOne(db, sql: "SELECT todo FROM todo_subtask WHERE id = ?", arguments: [id])!
        return (id, todo)
    }
}
