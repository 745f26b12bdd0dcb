import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// The todos commands: collections, todos, completion of one-off and recurring todos.
extension StoreCommands {
    // MARK: - Collections

    func addCollection(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        let (nameText, kindText) = (try arguments.requiredString("name"), try arguments.requiredString("kind"))
        let name = try rule { () throws(RuleError) in try Todos.name(nameText) }
        let kind = try rule { () throws(RuleError) in try Todos.choice(kindText, field: "kind", as: Todos.Kind.self) }
        var values: [String: FieldValue] = [
            "name": .text(name), "kind": .text(kind.rawValue),
            "show_in_calendar": .bool(try arguments.optionalBool("show_in_calendar") ?? true),
        ]
        if let icon = try arguments.optionalString("icon"), !icon.isEmpty { values["icon"] = .text(icon) }
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

    func editCollection(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        let given = try arguments.requiredString("collection")
        var values: [String: FieldValue] = [:]
        if let name = try arguments.optionalString("name") {
            values["name"] = .text(try rule { () throws(RuleError) in try Todos.name(name) })
        }
        if let icon = try arguments.optionalString("icon") { values["icon"] = icon.isEmpty ? .null : .text(icon) }
        if let shown = try arguments.optionalBool("show_in_calendar") { values["show_in_calendar"] = .bool(shown) }
        if let order = try arguments.optionalInt("sort_order") { values["sort_order"] = .int(Int64(order)) }
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
    func removeCollection(_ request: CommandRequest) async throws -> JSONValue {
        let given = try Arguments(request.arguments).requiredString("collection")
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

    func listCollections(_ request: CommandRequest) async throws -> JSONValue {
        try await database.pool.read { db in
            let ids = try String.fetchAll(db, sql: "SELECT id FROM todo_collection ORDER BY sort_order, name, id")
            return ["collections": .array(try ids.compactMap { try Self.collection($0, in: db) })]
        }
    }

    private static func refuseTakenName(_ name: String, except id: String?, in db: Database) throws {
        let taken = try String.fetchOne(
            db, sql: "SELECT id FROM todo_collection WHERE lower(name) = lower(?) AND id IS NOT ?",
            arguments: [name, id])
        if taken != nil {
            throw CommandError.invalidArgument("name", "must be unique: a collection '\(name)' already exists")
        }
    }

    // MARK: - Todos

    /// The todo fields a request sets, checked one by one (`todo.add` and `todo.edit`); an empty
    /// text clears an optional field.
    private func todoValues(_ arguments: Arguments) throws -> [String: FieldValue] {
        var texts: [String: String] = [:]
        for name in ["title", "description", "due", "time", "until", "priority", "repeat", "month_end"] {
            texts[name] = try arguments.optionalString(name)
        }
        var values: [String: FieldValue] = [:]
        try rule { () throws(RuleError) in
            if let title = texts["title"] { values["title"] = .text(try Todos.title(title)) }
            if let note = texts["description"] {
                try TextRules.check(
                    note, field: "description", maximumLength: Todos.maximumDescriptionLength, multiline: true)
                values["description"] = note.isEmpty ? .null : .text(note)
            }
            if let due = texts["due"] {
                values["due_date"] = due.isEmpty ? .null : .text(try LocalDate(parsing: due, field: "due").description)
            }
            if let time = texts["time"] {
                values["due_time"] =
                    time.isEmpty ? .null : .text(try LocalTime(parsing: time, field: "time").description)
            }
            if let until = texts["until"] {
                values["until"] =
                    until.isEmpty ? .null : .text(try LocalDate(parsing: until, field: "until").description)
            }
            if let priority = texts["priority"] {
                values["priority"] = .text(
                    try Todos.choice(priority, field: "priority", as: Todos.Priority.self).rawValue)
            }
            if let repeating = texts["repeat"] {
                values["repeat"] = .text(try Todos.choice(repeating, field: "repeat", as: Todos.Repeat.self).rawValue)
            }
            if let monthEnd = texts["month_end"] {
                values["month_end"] = .text(
                    try Todos.choice(monthEnd, field: "month_end", as: Todos.MonthEnd.self).rawValue)
            }
        }
        if let remind = try arguments.optionalBool("remind") { values["remind"] = .bool(remind) }
        if let shown = try arguments.optionalBool("show_in_calendar") { values["show_in_calendar"] = .bool(shown) }
        return values
    }

    /// Checks the rules between a todo's fields on the state it will have.
    private static func checkTodo(_ state: [String: FieldValue]) throws {
        func text(_ name: String) -> String? {
            if case .text(let value) = state[name] { return value }
            return nil
        }
        let due = text("due_date")
        if text("due_time") != nil, due == nil {
            throw CommandError.invalidArgument("time", "needs a due date ('due')")
        }
        if let repeating = text("repeat"), repeating != Todos.Repeat.none.rawValue, due == nil {
            throw CommandError.invalidArgument("repeat", "needs a due date ('due'): it is the first occurrence")
        }
        if let until = text("until") {
            guard let repeating = text("repeat"), repeating != Todos.Repeat.none.rawValue else {
                throw CommandError.invalidArgument("until", "is the end of a repeating todo: give 'repeat' too")
            }
            if let due, until < due {
                throw CommandError.invalidArgument("until", "must not be before the due date \(due), got \(until)")
            }
        }
        if state["remind"] == .bool(true), due == nil || text("due_time") == nil {
            throw CommandError.invalidArgument("remind", "needs a due date and time ('due' and 'time')")
        }
    }

    func addTodo(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        guard try arguments.optionalString("title") != nil else {
            throw CommandError.invalidArgument("title", "is required and must not be blank")
        }
        let given = try arguments.requiredString("collection")
        var values = try todoValues(arguments)
        let defaults: [String: FieldValue] = [
            "priority": .text(Todos.Priority.none.rawValue), "repeat": .text(Todos.Repeat.none.rawValue),
            "month_end": .text(Todos.MonthEnd.skip.rawValue), "remind": .bool(false), "show_in_calendar": .bool(true),
            "completed": .bool(false),
        ]
        values.merge(defaults) { given, _ in given }
        try Self.checkTodo(values)
        let entity = EntityRef(kind: Todos.todoKind, id: UUIDText.make())
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            var all = changes
            all["collection"] = .text(try Self.collectionID(given, in: db, field: "collection"))
            return try commit(entity, all, in: db, outbox: outbox)
        }
    }

    func editTodo(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        let given = try arguments.requiredString("id")
        var values = try todoValues(arguments)
        let collection = try arguments.optionalString("collection")
        if let completed = try arguments.optionalBool("completed") { values["completed"] = .bool(completed) }
        guard !values.isEmpty || collection != nil else {
            throw CommandError.invalidArgument("title", "or another field must be given: there is nothing to edit")
        }
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.todoID(given, in: db)
            var all = changes
            if let collection { all["collection"] = .text(try Self.collectionID(collection, in: db)) }
            let entity = EntityRef(kind: Todos.todoKind, id: id)
            var state = try Self.todoState(id, in: db)
            state.merge(all) { _, new in new }
            try Self.checkTodo(state)
            return try commit(entity, all, in: db, outbox: outbox)
        }
    }

    func removeTodo(_ request: CommandRequest) async throws -> JSONValue {
        let given = try Arguments(request.arguments).requiredString("id")
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.todoID(given, in: db)
            return try commit(EntityRef(kind: Todos.todoKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
        }
    }

    /// Completes or reopens a one-off todo, or one date of a recurring one (its completion
    /// instance, one per template and date).
    func completeTodo(_ request: CommandRequest, done: Bool) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        let given = try arguments.requiredString("id")
        let date = try arguments.optionalDate("date")
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.todoID(given, in: db)
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM todo WHERE id = ?", arguments: [id]) else {
                throw CommandError(code: "not_found", message: "'id': no todo '\(given)'")
            }
            guard let recurrence = Self.recurrence(row) else {
                return try commit(
                    EntityRef(kind: Todos.todoKind, id: id), ["completed": .bool(done)], in: db, outbox: outbox)
            }
            guard let date else {
                throw CommandError.invalidArgument(
                    "date", "is required for a repeating todo: which day's occurrence (YYYY-MM-DD)?")
            }
            guard recurrence.occurs(on: date) else {
                throw CommandError.invalidArgument(
                    "date",
                    "must be a day the todo falls on (\(recurrence.frequency.rawValue) from "
                        + "\(recurrence.start)\(recurrence.until.map { " until \($0)" } ?? "")), got \(date)")
            }
            var reply =
                try commit(Todos.completion(of: id, on: date), ["done": .bool(done)], in: db, outbox: outbox)
                .objectValue ?? [:]
            reply["todo"] = try Self.todo(id, in: db) ?? .null
            return .object(reply)
        }
    }

    func showTodo(_ request: CommandRequest) async throws -> JSONValue {
        let given = try Arguments(request.arguments).requiredString("id")
        return try await database.pool.read { db in
            let id = try Self.todoID(given, in: db)
            guard var todo = try Self.todo(id, in: db)?.objectValue else {
                throw CommandError(code: "not_found", message: "'id': no todo '\(given)'")
            }
            let completions = try String.fetchAll(
                db, sql: "SELECT date FROM todo_completion WHERE template = ? ORDER BY date", arguments: [id])
            todo["completions"] = .array(completions.map(JSONValue.string))
            return .object(todo)
        }
    }

    /// Every change to a todo, its subtasks and its completions, oldest first (a removed todo's
    /// too, by its full id).
    func todoHistory(_ request: CommandRequest) async throws -> JSONValue {
        let given = try Arguments(request.arguments).requiredString("id")
        return try await database.pool.read { db in
            let known =
                Todos.isEntityID(given)
                ? try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM operation WHERE entity_kind = 'todo' AND entity_id = ?", arguments: [given])
                    ?? false : false
            let id = known ? given : try Self.todoID(given, in: db)
            var entities = [EntityRef(kind: Todos.todoKind, id: id)]
            let related = try Row.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT entity_kind, entity_id FROM operation
                    WHERE (entity_kind = ? AND entity_id >= ? AND entity_id < ?)
                       OR (entity_kind = ? AND fields LIKE ?)
                    """,
                arguments: [Todos.completionKind, id + "@", id + "A", Todos.subtaskKind, "%\"\(id)\"%"])
            entities += related.map { EntityRef(kind: $0[0], id: $0[1]) }
            return ["id": .string(id), "changes": .array(try Self.entityHistory(entities, in: db))]
        }
    }

    /// Todos, by collection order then due date (with `today`, repeating todos that ended before
    /// it are left out); with `date`, the todos of that day (recurring ones on the days they fall
    /// on, marked done where that day's instance exists).
    func listTodos(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        let collection = try arguments.optionalString("collection")
        let date = try arguments.optionalDate("date")
        let today = try arguments.optionalDate("today")
        return try await database.pool.read { db in
            let collectionID = try collection.map { try Self.collectionID($0, in: db) }
            if let date {
                let day = try TodoAgenda.read(from: date, through: date, collection: collectionID, in: db)
                return ["date": .string(date.description), "todos": .array(day.map(\.json))]
            }
            // A repeating todo whose end date is before `today` has left the lists.
            let ids = try String.fetchAll(
                db,
                sql: """
                    SELECT todo.id FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                    WHERE (? IS NULL OR todo.collection = ?)
                      AND NOT (todo.repeat != 'none' AND todo.until IS NOT NULL AND todo.until < ?)
                    ORDER BY c.sort_order, todo.completed, todo.due_date IS NULL, todo.due_date, todo.due_time,
                             todo.title, todo.id
                    """, arguments: [collectionID, collectionID, today?.description ?? ""])
            return ["todos": .array(try ids.compactMap { try Self.todo($0, in: db) })]
        }
    }

    /// The dates a todo falls on between `from` and `to`, each with whether it is done.
    func occurrences(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        let given = try arguments.requiredString("id")
        guard let from = try arguments.optionalDate("from") else {
            throw CommandError.invalidArgument("from", "is required")
        }
        guard let to = try arguments.optionalDate("to") else { throw CommandError.invalidArgument("to", "is required") }
        guard from <= to else { throw CommandError.invalidArgument("to", "must not be before 'from' (\(from))") }
        guard to.dayNumber - from.dayNumber <= 3_660 else {
            throw CommandError.invalidArgument("to", "must be at most ten years after 'from'")
        }
        return try await database.pool.read { db in
            let id = try Self.todoID(given, in: db)
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM todo WHERE id = ?", arguments: [id]) else {
                throw CommandError(code: "not_found", message: "'id': no todo '\(given)'")
            }
            guard let recurrence = Self.recurrence(row) else {
                guard let due = (row["due_date"] as String?).flatMap({ try? LocalDate(parsing: $0, field: "due") }),
                    (from...to).contains(due)
                else { return ["occurrences": []] }
                return ["occurrences": [["date": .string(due.description), "done": .bool(row["completed"])]]]
            }
            let done = Set(
                try String.fetchAll(
                    db, sql: "SELECT date FROM todo_completion WHERE template = ? AND date BETWEEN ? AND ?",
                    arguments: [id, from.description, to.description]))
            let dates = recurrence.occurrences(from: from, through: to)
            return [
                "occurrences": .array(
                    dates.map { ["date": .string($0.description), "done": .bool(done.contains($0.description))] })
            ]
        }
    }

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
    private static func todoState(_ id: String, in db: Database) throws -> [String: FieldValue] {
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

    static func collection(_ id: String, in db: Database) throws -> JSONValue? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT c.*, (SELECT COUNT(*) FROM todo WHERE todo.collection = c.id) AS todos,
                           (SELECT COUNT(*) FROM todo WHERE todo.collection = c.id AND completed) AS done
                    FROM todo_collection AS c WHERE c.id = ?
                    """, arguments: [id])
        else { return nil }
        return [
            "id": .string(id), "name": .string(row["name"]), "kind": .string(row["kind"]),
            "icon": (row["icon"] as String?).map(JSONValue.string) ?? .null, "sort_order": .int(row["sort_order"]),
            "show_in_calendar": .bool(row["show_in_calendar"]), "todos": .int(row["todos"]), "done": .int(row["done"]),
            "conflicted": .bool(row["conflicted"]),
        ]
    }

    static func todo(_ id: String, in db: Database) throws -> JSONValue? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT todo.*, c.name AS collection_name, c.kind AS kind FROM todo
                    LEFT JOIN todo_collection AS c ON c.id = todo.collection WHERE todo.id = ?
                    """, arguments: [id])
        else { return nil }
        func text(_ column: String) -> JSONValue { (row[column] as String?).map(JSONValue.string) ?? .null }
        let subtasks = try Row.fetchAll(
            db, sql: "SELECT * FROM todo_subtask WHERE todo = ? ORDER BY position, id", arguments: [id])
        return [
            "id": .string(id), "collection": text("collection"), "collection_name": text("collection_name"),
            "kind": text("kind"), "title": text("title"), "description": text("description"), "due": text("due_date"),
            "time": (row["due_time"] as String?).flatMap { try? LocalTime(parsing: $0, field: "time").short }
                .map(JSONValue.string) ?? .null,
            "priority": text("priority"), "remind": .bool(row["remind"]),
            "show_in_calendar": .bool(row["show_in_calendar"]), "completed": .bool(row["completed"]),
            "repeat": text("repeat"), "until": text("until"), "month_end": text("month_end"),
            "modified_at": text("modified_at"), "conflicted": .bool(row["conflicted"]),
            "subtasks": .array(
                subtasks.map { subtask in
                    [
                        "id": .string(subtask["id"]), "title": .string(subtask["title"]),
                        "completed": .bool(subtask["completed"]),
                    ]
                }),
        ]
    }

    // MARK: - Finding by name or id prefix

    /// The todo `given` names: its id, or a unique prefix of it (at least 4 characters).
    static func todoID(_ given: String, in db: Database, field: String = "id") throws -> String {
        try uniqueID(given, table: "todo", what: "todo", field: field, in: db)
    }

    /// The collection `given` names: its name (any case), its id, or a unique prefix of the id.
    static func collectionID(_ given: String, in db: Database, field: String = "collection") throws -> String {
        if let id = try String.fetchOne(
            db, sql: "SELECT id FROM todo_collection WHERE lower(name) = lower(?)", arguments: [given])
        {
            return id
        }
        return try uniqueID(given, table: "todo_collection", what: "collection", field: field, in: db)
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

    func rule<T>(_ body: () throws(RuleError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
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
