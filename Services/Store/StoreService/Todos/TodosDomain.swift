import Foundation
import GRDB
import HearthBus
import HearthCore

/// Todos, habits, plans and lists in the store (SPEC part 3): collections, todos, ordered
/// subtasks and the completion instances of recurring todos, materialised into `todo_collection`,
/// `todo`, `todo_subtask` and `todo_completion`. A deleted entity's row goes; its operations stay.
///
/// `reminder_state` is this device's alone (never in the operation log): which reminder fired for
/// which due time, and snoozes, so `hearth-scheduler` never fires one twice, even after a restart.
enum TodosDomain: StoreDomain {
    typealias Rules = Todos

    static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: todos") { db in
            try db.create(table: "todo_collection") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("icon", .text)
                table.column("sort_order", .integer).notNull()
                table.column("show_in_calendar", .boolean).notNull()
                table.column("created_at", .text).notNull()
                table.column("modified_at", .text).notNull()
                table.column("conflicted", .boolean).notNull()
            }
            try db.create(table: "todo") { table in
                table.primaryKey("id", .text)
                table.column("collection", .text).notNull()
                table.column("title", .text).notNull()
                table.column("description", .text)
                table.column("due_date", .text)
                table.column("due_time", .text)
                table.column("priority", .text).notNull()
                table.column("remind", .boolean).notNull()
                table.column("show_in_calendar", .boolean).notNull()
                table.column("completed", .boolean).notNull()
                table.column("repeat", .text).notNull()
                table.column("until", .text)
                table.column("month_end", .text).notNull()
                table.column("created_at", .text).notNull()
                table.column("modified_at", .text).notNull()
                table.column("modified_by", .text).notNull()
                table.column("conflicted", .boolean).notNull()
            }
            try db.create(index: "todo_collection_index", on: "todo", columns: ["collection"])
            try db.create(index: "todo_due", on: "todo", columns: ["due_date"])
            try db.create(index: "todo_reminders", on: "todo", columns: ["remind"])
            try db.create(table: "todo_subtask") { table in
                table.primaryKey("id", .text)
                table.column("todo", .text).notNull()
                table.column("title", .text).notNull()
                table.column("completed", .boolean).notNull()
                table.column("position", .integer).notNull()
            }
            try db.create(index: "todo_subtask_todo", on: "todo_subtask", columns: ["todo", "position"])
            try db.create(table: "todo_completion") { table in
                table.column("template", .text).notNull()
                table.column("date", .text).notNull()
                table.column("completed_by", .text).notNull()
                table.column("completed_at", .text).notNull()
                table.primaryKey(["template", "date"])
            }
            try db.create(table: "daily_note") { table in
                table.primaryKey("date", .text)
                table.column("mood", .text)
                table.column("text", .text)
                table.column("modified_at", .text).notNull()
                table.column("modified_by", .text).notNull()
                table.column("conflicted", .boolean).notNull()
            }
            try db.create(index: "daily_note_mood", on: "daily_note", columns: ["mood"])
            // This device's reminders: never replicated.
            try db.create(table: "reminder_state") { table in
                table.primaryKey("id", .text)
                table.column("fired_due", .integer)
                table.column("snoozed_until", .integer)
                table.column("snoozed_date", .text)
            }
        }
        migrator.registerMigration("todos: skipped days") { db in
            // The days of a repeating todo marked skipped (`todo.skip`, `todo.pause`): they
            // neither break nor extend a habit's streak, and remind nobody. From the same
            // completion instance as `todo_completion` (its `skipped` field), when not done.
            try db.create(table: "todo_skip") { table in
                table.column("template", .text).notNull()
                table.column("date", .text).notNull()
                table.column("skipped_by", .text).notNull()
                table.column("skipped_at", .text).notNull()
                table.primaryKey(["template", "date"])
            }
        }
        migrator.registerMigration("todos: assignee") { db in
            // The member a todo is for (`--for Mum`): its reminder pops only on devices whose
            // profile is that member's. Null: the household's, popping everywhere.
            try db.alter(table: "todo") { table in table.add(column: "assignee", .text) }
            try db.create(index: "todo_assignee", on: "todo", columns: ["assignee"])
        }
    }

    /// The todos commands; those that write hold their reply for the fault-injection delay.
    private static let handlers = StoreDomains.table(
        TodosCommands.self,
        typedReads: [
            StoreDomains.command(TodoCommands.Export.self) { commands, command, _ in
                try await commands.exportTodos(command)
            },
            StoreDomains.command(TodoCommands.Stats.self) { commands, command, _ in
                try await commands.statistics(command)
            },
            StoreDomains.command(TodoCommands.Calendar.self) { commands, command, _ in
                try await commands.calendar(command)
            },
            StoreDomains.command(TodoCommands.List.self) { commands, command, request in
                try await commands.listTodos(command, request)
            },
            StoreDomains.command(TodoCommands.Day.self) { commands, command, _ in try await commands.dayTodos(command)
            },
            StoreDomains.command(TodoCommands.Show.self) { commands, command, _ in try await commands.showTodo(command)
            },
            StoreDomains.command(TodoCommands.History.self) { commands, command, _ in
                try await commands.todoHistory(command)
            },
            StoreDomains.command(TodoCommands.Occurrences.self) { commands, command, _ in
                try await commands.occurrences(command)
            },
            StoreDomains.command(ReminderCommands.Sources.self) { commands, command, _ in
                try await commands.reminderSources(command)
            },
            StoreDomains.command(CollectionCommands.List.self) { commands, _, _ in try await commands.listCollections()
            },
            StoreDomains.command(NoteCommands.Show.self) { commands, command, _ in try await commands.showNote(command)
            },
            StoreDomains.command(NoteCommands.List.self) { commands, command, _ in try await commands.listNotes(command)
            },
        ],
        typedWrites: [
            StoreDomains.command(TodoCommands.ApplyTemplate.self) { commands, command, request in
                try await commands.applyTemplate(command, request)
            },
            StoreDomains.command(TodoCommands.Import.self) { commands, command, request in
                try await commands.importTodos(command, request)
            },
            StoreDomains.command(TodoCommands.Add.self) { commands, command, request in
                try await commands.addTodo(command, request)
            },
            StoreDomains.command(TodoCommands.Edit.self) { commands, command, request in
                try await commands.editTodo(command, request)
            },
            StoreDomains.command(TodoCommands.Remove.self) { commands, command, request in
                try await commands.removeTodo(command, request)
            },
            StoreDomains.command(TodoCommands.Done.self) { commands, command, request in
                try await commands.completeTodo(id: command.id, date: command.date, done: true, request)
            },
            StoreDomains.command(TodoCommands.Undone.self) { commands, command, request in
                try await commands.completeTodo(id: command.id, date: command.date, done: false, request)
            },
            StoreDomains.command(TodoCommands.Skip.self) { commands, command, request in
                try await commands.skipTodo(command, request)
            },
            StoreDomains.command(TodoCommands.Pause.self) { commands, command, request in
                try await commands.pauseTodo(command, request)
            },
            StoreDomains.command(ReminderCommands.Record.self) { commands, command, request in
                try await commands.recordReminder(command, request)
            },
            StoreDomains.command(CollectionCommands.Add.self) { commands, command, request in
                try await commands.addCollection(command, request)
            },
            StoreDomains.command(CollectionCommands.Edit.self) { commands, command, request in
                try await commands.editCollection(command, request)
            },
            StoreDomains.command(CollectionCommands.Remove.self) { commands, command, request in
                try await commands.removeCollection(command, request)
            },
            StoreDomains.command(NoteCommands.Set.self) { commands, command, request in
                try await commands.setNote(command, request)
            },
            StoreDomains.command(SubtaskCommands.Add.self) { commands, command, request in
                try await commands.addSubtask(command, request)
            },
            StoreDomains.command(SubtaskCommands.Done.self) { commands, command, request in
                try await commands.completeSubtask(command.id, request, done: true)
            },
            StoreDomains.command(SubtaskCommands.Undone.self) { commands, command, request in
                try await commands.completeSubtask(command.id, request, done: false)
            },
            StoreDomains.command(SubtaskCommands.Move.self) { commands, command, request in
                try await commands.moveSubtask(command, request)
            },
            StoreDomains.command(SubtaskCommands.Remove.self) { commands, command, request in
                try await commands.removeSubtask(command, request)
            },
        ])

    static func handler(for command: String) -> StoreCommands.Handler? { handlers[command] }

    static func describe(_ entity: EntityRef, in db: Database) throws -> [String: JSONValue] {
        switch entity.kind {
        case Todos.collectionKind:
            return [
                "collection": try TodosCommands.collection(entity.id, in: db).map { try JSONValue(reply: $0) }
                    ?? ["id": .string(entity.id)]
            ]
        case Todos.todoKind:
            return [
                "todo": try TodosCommands.todo(entity.id, in: db).map { try JSONValue(reply: $0) } ?? [
                    "id": .string(entity.id)
                ]
            ]
        case Todos.noteKind:
            return [
                "note": try TodosCommands.note(entity.id, in: db).map { try JSONValue(reply: $0) } ?? [
                    "date": .string(entity.id)
                ]
            ]
        case Todos.subtaskKind:
            let todo = try String.fetchOne(
                db, sql: "SELECT todo FROM todo_subtask WHERE id = ?", arguments: [entity.id])
            return ["subtask": ["id": .string(entity.id)], "todo": todo.map(JSONValue.string) ?? .null]
        default:
            guard let (template, date) = Todos.completionParts(entity.id) else { return [:] }
            let done =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM todo_completion WHERE template = ? AND date = ?",
                    arguments: [template, date.description]) ?? false
            let skipped =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM todo_skip WHERE template = ? AND date = ?",
                    arguments: [template, date.description]) ?? false
            return [
                "completion": [
                    "template": .string(template), "date": .string(date.description), "done": .bool(done),
                    "skipped": .bool(skipped),
                ]
            ]
        }
    }

    // MARK: - Materialising

    static func materialize(_ entity: EntityRef, from log: OperationLog, in db: Database) throws {
        let fields = FieldReader(log.entity(entity))
        let operations = log.operations.values.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        guard let first = operations.first, let last = operations.last else { return }
        let created = Timestamp.format(Date(milliseconds: first.time.wall))
        let modified = Timestamp.format(Date(milliseconds: last.time.wall))
        let conflicted = fields.states.values.contains { $0.isConflict }
        let deleted = fields.bool("deleted") == true
        switch entity.kind {
        case Todos.collectionKind:
            guard !deleted, let name = fields.text("name") else {
                return try db.execute(sql: "DELETE FROM todo_collection WHERE id = ?", arguments: [entity.id])
            }
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO todo_collection
                        (id, name, kind, icon, sort_order, show_in_calendar, created_at, modified_at, conflicted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                entity.id, name, fields.text("kind") ?? Todos.Kind.list.rawValue, fields.text("icon"),
                fields.int("sort_order") ?? 0, fields.bool("show_in_calendar") ?? true, created, modified, conflicted,
            ])
        case Todos.todoKind:
            guard !deleted, let title = fields.text("title"), let collection = fields.text("collection") else {
                return try db.execute(sql: "DELETE FROM todo WHERE id = ?", arguments: [entity.id])
            }
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO todo
                        (id, collection, title, description, due_date, due_time, priority, remind,
                         show_in_calendar, completed, repeat, until, month_end, assignee, created_at,
                         modified_at, modified_by, conflicted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                entity.id, collection, title, fields.text("description"), fields.text("due_date"),
                fields.text("due_time"), fields.text("priority") ?? Todos.Priority.none.rawValue,
                fields.bool("remind") ?? false, fields.bool("show_in_calendar") ?? true,
                fields.bool("completed") ?? false, fields.text("repeat") ?? Todos.Repeat.none.rawValue,
                fields.text("until"), fields.text("month_end") ?? Todos.MonthEnd.skip.rawValue,
                fields.text("assignee"), created, modified, last.author, conflicted,
            ])
        case Todos.noteKind:
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO daily_note (date, mood, text, modified_at, modified_by, conflicted)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                entity.id, fields.text("mood"), fields.text("text"), modified, last.author, conflicted,
            ])
        case Todos.subtaskKind:
            guard !deleted, let title = fields.text("title"), let todo = fields.text("todo") else {
                return try db.execute(sql: "DELETE FROM todo_subtask WHERE id = ?", arguments: [entity.id])
            }
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO todo_subtask (id, todo, title, completed, position) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [
                entity.id, todo, title, fields.bool("completed") ?? false, fields.int("position") ?? 0,
            ])
        default:
            guard let (template, date) = Todos.completionParts(entity.id) else { return }
            func winner(_ field: String) -> Operation? {
                fields.bool(field) == true ? fields.states[field].flatMap { log.operations[$0.winner] } : nil
            }
            let done = winner("done")
            let skipped = done == nil ? winner("skipped") : nil  // done wins over skipped
            for (table, operation, by, at) in [
                ("todo_completion", done, "completed_by", "completed_at"),
                ("todo_skip", skipped, "skipped_by", "skipped_at"),
            ] {
                guard let operation else {
                    try db.cachedStatement(sql: "DELETE FROM \(table) WHERE template = ? AND date = ?")
                        .execute(arguments: [template, date.description])
                    continue
                }
                try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO \(table) (template, date, \(by), \(at)) VALUES (?, ?, ?, ?)"
                ).execute(arguments: [
                    template, date.description, operation.author,
                    Timestamp.format(Date(milliseconds: operation.time.wall)),
                ])
            }
        }
    }
}

extension FieldReader {
    func bool(_ name: String) -> Bool? {
        if case .bool(let value) = states[name]?.value { return value }
        return nil
    }
}

// MARK: - Names and search

extension TodosDomain {
    static let kindNames = [
        Todos.todoKind: "todo", Todos.collectionKind: "collection", Todos.subtaskKind: "subtask",
        Todos.completionKind: "done mark", Todos.noteKind: "note",
    ]

    /// Todos (title, description) and their subtasks, shown as their todo; daily notes.
    static let searchSources = [
        SearchIndex.Source(
            kind: "todo", table: "todo", key: "X.id", link: "X.id", owner: "NULL", title: "X.title",
            body: "coalesce(X.description, '')", columns: ["title", "description"], shown: "todo"),
        SearchIndex.Source(
            kind: "subtask", table: "todo_subtask", key: "X.id", link: "X.todo", owner: "NULL", title: "X.title",
            body: "''", columns: ["title", "todo"], shown: "todo"),
        SearchIndex.Source(
            kind: "note", table: "daily_note", key: "X.date", link: "X.date", owner: "NULL", title: "''",
            body: "coalesce(X.text, '')", columns: ["text"], shown: "note"),
    ]

    static func searchHit(_ shown: String, link: String, in db: Database) throws -> SearchHit? {
        switch shown {
        case "todo":
            guard
                let row = try Row.fetchOne(
                    try db.cachedStatement(
                        sql: """
                            SELECT todo.title, c.name, todo.due_date FROM todo
                            LEFT JOIN todo_collection AS c ON c.id = todo.collection WHERE todo.id = ?
                            """), arguments: [link])
            else { return nil }
            return SearchHit(id: link, title: row[0], detail: row[1] ?? "", date: row[2])
        case "note":
            return SearchHit(id: link, title: "Note of \(link)", detail: link, date: link)
        default:
            return nil
        }
    }
}

extension TodosDomain {
    static func stepName(of entity: EntityRef, reading fields: StepFields) throws -> String? {
        switch entity.kind {
        case Todos.todoKind: return try fields.named(["title"])
        case Todos.collectionKind: return try fields.named(["name"])
        case Todos.subtaskKind:
            if let name = try fields.named(["title"]) { return name }
            guard let todo = try fields.text("todo") else { return nil }
            return try fields.owned(by: EntityRef(kind: Todos.todoKind, id: todo), "on")
        case Todos.completionKind:
            // A day's mark (`template@date`): its todo's title and the day.
            let mark = entity.id.split(separator: "@").map(String.init)
            guard mark.count == 2 else { return nil }
            return try fields.owned(by: EntityRef(kind: Todos.todoKind, id: mark[0]), "on").map {
                "\($0) for \(mark[1])"
            }
        default:
            return nil  // a day's note, by its day
        }
    }
}
