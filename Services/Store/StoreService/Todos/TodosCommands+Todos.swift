import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// The todos commands: todos, their completion (one-off and recurring), history, lists and occurrences.
extension TodosCommands {
    /// The todo fields a request sets, checked one by one (`todo.add` and `todo.edit`); an empty
    /// text clears an optional field.
    private func todoValues(
        _ given: [String: String?], remind: Bool?, showInCalendar: Bool?
    ) throws -> [String: FieldValue] {
        let texts = given.compactMapValues { $0 }
        var values: [String: FieldValue] = [:]
        try check { () throws(RuleError) in
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
        if let remind { values["remind"] = .bool(remind) }
        if let showInCalendar { values["show_in_calendar"] = .bool(showInCalendar) }
        return values
    }

    /// The field values `add` and `edit` set (their text fields by their names on the wire).
    private func todoValues(_ command: some TodoFieldsCommand) throws -> [String: FieldValue] {
        try todoValues(
            [
                "title": command.givenTitle, "description": command.description, "due": command.due,
                "time": command.time, "until": command.until, "priority": command.priority,
                "repeat": command.repeating, "month_end": command.monthEnd,
            ], remind: command.remind, showInCalendar: command.showInCalendar)
    }

    /// Checks the rules between a todo's fields on the state it will have (`Todos.checkTodo`,
    /// which imported operations meet too).
    private static func checkTodo(_ state: [String: FieldValue]) throws {
        do {
            try Todos.checkTodo(state, whole: true)
        } catch {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
    }

    func addTodo(_ command: TodoCommands.Add, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.collection
        var values = try todoValues(command)
        let defaults: [String: FieldValue] = [
            "priority": .text(Todos.Priority.none.rawValue), "repeat": .text(Todos.Repeat.none.rawValue),
            "month_end": .text(Todos.MonthEnd.skip.rawValue), "remind": .bool(false), "show_in_calendar": .bool(true),
            "completed": .bool(false),
        ]
        values.merge(defaults) { given, _ in given }
        try Self.checkTodo(values)
        let entity = EntityRef(kind: Todos.todoKind, id: UUIDText.make())
        let changes = values
        let assignee = command.assignee
        return try await writes.once(request.id) { db, outbox in
            var all = changes
            all["collection"] = .text(try Self.collectionID(given, in: db, field: "collection"))
            if let assignee, !assignee.isEmpty { all["assignee"] = try Self.assignee(assignee, in: db) }
            return try commit(entity, all, in: db, outbox: outbox)
        }
    }

    func editTodo(_ command: TodoCommands.Edit, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.id
        var values = try todoValues(command)
        let (collection, assignee) = (command.collection, command.assignee)
        if let completed = command.completed { values["completed"] = .bool(completed) }
        guard !values.isEmpty || collection != nil || assignee != nil else {
            throw CommandError.invalidArgument("title", "or another field must be given: there is nothing to edit")
        }
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.todoID(given, in: db)
            var all = changes
            if let collection { all["collection"] = .text(try Self.collectionID(collection, in: db)) }
            if let assignee { all["assignee"] = assignee.isEmpty ? .null : try Self.assignee(assignee, in: db) }
            let entity = EntityRef(kind: Todos.todoKind, id: id)
            var state = try Self.todoState(id, in: db)
            state.merge(all) { _, new in new }
            try Self.checkTodo(state)
            return try commit(entity, all, in: db, outbox: outbox)
        }
    }

    /// The member a todo is for (`for`: a name, id or id prefix), as the `assignee` field.
    private static func assignee(_ given: String, in db: Database) throws -> FieldValue {
        .text(try HubCommands.member(named: given, in: db, field: "for").id)
    }

    func removeTodo(_ command: TodoCommands.Remove, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.id
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.todoID(given, in: db)
            return try commit(EntityRef(kind: Todos.todoKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
        }
    }

    /// Completes or reopens a one-off todo, or one date of a recurring one (its completion
    /// instance, one per template and date).
    func completeTodo(
        id given: String, date: String?, done: Bool, _ request: CommandRequest
    ) async throws -> JSONValue {
        let date = try date.map { try StoreCommands.date($0, field: "date") }
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
            reply["todo"] = try Self.todoJSON(id, in: db)
            return .object(reply)
        }
    }

    /// One todo with its subtasks, a repeating one's days done and skipped, and its streak as of
    /// `today` (the household's day unless given).
    func showTodo(_ command: TodoCommands.Show) async throws -> JSONValue {
        let given = command.id
        let today =
            try command.today.map { try StoreCommands.date($0, field: "today") } ?? LocalDate(Date(), in: timeZone)
        return try await database.pool.read { db in
            let id = try Self.todoID(given, in: db)
            guard var todo = try Self.todo(id, in: db) else {
                throw CommandError(code: "not_found", message: "'id': no todo '\(given)'")
            }
            todo.completions = try String.fetchAll(
                db, sql: "SELECT date FROM todo_completion WHERE template = ? ORDER BY date", arguments: [id])
            let skips = try String.fetchAll(
                db, sql: "SELECT date FROM todo_skip WHERE template = ? ORDER BY date", arguments: [id])
            todo.skips = skips.isEmpty ? nil : skips
            todo.habit = try Self.habitProgress(id, today: today, in: db)
            return try JSONValue(reply: todo)
        }
    }

    /// Every change to a todo, its subtasks and its completions, oldest first (a removed todo's
    /// too, by its full id).
    func todoHistory(_ command: TodoCommands.History) async throws -> JSONValue {
        let given = command.id
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
            return try JSONValue(reply: TodoHistory(id: id, changes: try StoreCommands.entityHistory(entities, in: db)))
        }
    }

    /// The todos of one day (recurring ones on the days they fall on, marked done where that
    /// day's instance exists); with `for`, only those for that member.
    func dayTodos(_ command: TodoCommands.Day) async throws -> JSONValue {
        let date = try StoreCommands.date(command.date, field: "date")
        let (collection, assignee) = (command.collection, command.assignee)
        return try await database.pool.read { db in
            let collectionID = try collection.map { try Self.collectionID($0, in: db) }
            let member = try assignee.map { try HubCommands.member(named: $0, in: db, field: "for").id }
            let day = try TodoAgenda.read(from: date, through: date, collection: collectionID, assignee: member, in: db)
            return try JSONValue(reply: TodoDay(date: date.description, todos: day.map(\.view)))
        }
    }

    /// Todos, by collection order then due date (with `today`, repeating todos that ended before
    /// it are left out); with `for`, only those for that member. A `date` is refused: one day's
    /// todos are `todo.day`'s.
    func listTodos(_ command: TodoCommands.List, _ request: CommandRequest) async throws -> JSONValue {
        if request.arguments["date"] != nil {
            throw CommandError.invalidArgument("date", "is not todo.list's: the todos of one day are todo.day's")
        }
        let (collection, assignee) = (command.collection, command.assignee)
        let today = try command.today.map { try StoreCommands.date($0, field: "today") }
        return try await database.pool.read { db in
            let collectionID = try collection.map { try Self.collectionID($0, in: db) }
            let member = try assignee.map { try HubCommands.member(named: $0, in: db, field: "for").id }
            // A repeating todo whose end date is before `today` has left the lists.
            let ids = try String.fetchAll(
                db,
                sql: """
                    SELECT todo.id FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                    WHERE (? IS NULL OR todo.collection = ?) AND (? IS NULL OR todo.assignee = ?)
                      AND NOT (todo.repeat != 'none' AND todo.until IS NOT NULL AND todo.until < ?)
                    ORDER BY c.sort_order, todo.completed, todo.due_date IS NULL, todo.due_date, todo.due_time,
                             todo.title, todo.id
                    """, arguments: [collectionID, collectionID, member, member, today?.description ?? ""])
            // A habit's streak and strength beside it (on the household's day, or the one asked for).
            let day = today ?? LocalDate(Date(), in: timeZone)
            let todos = try ids.compactMap { id -> TodoView? in
                guard var todo = try Self.todo(id, in: db) else { return nil }
                if todo.kind == Todos.Kind.habit.rawValue {
                    todo.habit = try Self.habitProgress(id, today: day, in: db)
                }
                return todo
            }
            return try JSONValue(reply: TodoList(todos: todos))
        }
    }

    /// The dates a todo falls on between `from` and `to`, each with whether it is done.
    func occurrences(_ command: TodoCommands.Occurrences) async throws -> JSONValue {
        let given = command.id
        let from = try StoreCommands.date(command.from, field: "from")
        let to = try StoreCommands.date(command.to, field: "to")
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
                else { return try JSONValue(reply: TodoOccurrences(occurrences: [])) }
                return try JSONValue(
                    reply: TodoOccurrences(occurrences: [.init(date: due.description, done: row["completed"])]))
            }
            let done = Set(
                try String.fetchAll(
                    db, sql: "SELECT date FROM todo_completion WHERE template = ? AND date BETWEEN ? AND ?",
                    arguments: [id, from.description, to.description]))
            let skipped = Set(
                try String.fetchAll(
                    db, sql: "SELECT date FROM todo_skip WHERE template = ? AND date BETWEEN ? AND ?",
                    arguments: [id, from.description, to.description]))
            let dates = recurrence.occurrences(from: from, through: to)
            return try JSONValue(
                reply: TodoOccurrences(
                    occurrences: dates.map {
                        .init(
                            date: $0.description, done: done.contains($0.description),
                            skipped: skipped.contains($0.description) ? true : nil)
                    }))
        }
    }

}

/// What `todo.add` and `todo.edit` both carry: the todo's own fields.
protocol TodoFieldsCommand {
    /// The title (required to add, optional to edit).
    var givenTitle: String? { get }
    var description: String? { get }
    var due: String? { get }
    var time: String? { get }
    var priority: String? { get }
    var repeating: String? { get }
    var until: String? { get }
    var monthEnd: String? { get }
    var remind: Bool? { get }
    var showInCalendar: Bool? { get }
}

extension TodoCommands.Add: TodoFieldsCommand {
    var givenTitle: String? { title }
}

extension TodoCommands.Edit: TodoFieldsCommand {
    var givenTitle: String? { title }
}
