import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore
import HearthHost

/// Todos in, from Thunderbird, Tasks.org, Nextcloud Tasks or Hearth's own export
/// (`hearth todo import FILE.ics`): a preview, then with `confirm` every todo, subtask and day done,
/// in transactions of a few hundred todos that other writes go between (one step to undo). A todo already here (by UID: Hearth's export uses the todo's id; another
/// app's UID names the same todo on every import) is updated, never duplicated; nothing is
/// deleted.
extension TodosCommands {
    /// The largest file read.
    static let maximumTodoFileBytes = 8 * 1024 * 1024

    func importTodos(_ command: TodoCommands.Import, _ request: CommandRequest) async throws -> JSONValue {
        let path = command.path
        guard path.hasPrefix("/") else { throw CommandError.invalidArgument("path", "must be an absolute path") }
        let fallback = command.collection
        let confirm = command.confirm ?? false
        let zone = timeZone
        let reading = try await offPool { () throws(CommandError) -> TodoFile.Reading in
            // Read no further than the limit: a 1 GB file was read whole before this check.
            let data: Data
            do throws(BoundedFile.Failure) {
                data = try BoundedFile.contents(atPath: path, atMost: Self.maximumTodoFileBytes)
            } catch .tooLarge {
                throw CommandError.invalidArgument("path", "is over \(Self.maximumTodoFileBytes / 1_048_576) MiB")
            } catch {
                throw CommandError(code: "not_found", message: "'path': cannot read \(path)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CommandError.invalidArgument("path", "\(path) is not UTF-8 text")
            }
            do {
                return try TodoFile.read(text, zone: zone)
            } catch {
                throw CommandError.invalidArgument("path", "\((path as NSString).lastPathComponent) \(error)")
            }
        }
        let file = (path as NSString).lastPathComponent
        let ids = Self.ids(reading)
        guard confirm else {
            return try await database.pool.read { db in
                try JSONValue(
                    reply: Self.apply(
                        Part(reading, ids: ids), ids: ids, fallback: fallback, file: file, in: db, outbox: nil,
                        commands: self))
            }
        }
        // A transaction a part, so other writes go between them: one of 86,708 todos held every
        // write for 67 s (issue 62). Each part's request id is the import's with its number, so
        // the import asked again (a retry, or after a failure) skips the parts written and goes
        // on; a todo is matched by UID whichever part writes it.
        let parts = Part.split(reading, ids: ids)
        var reports: [TodoImportReport] = []
        for (number, part) in parts.enumerated() {
            do {
                let reply = try await writes.once("\(request.id)/\(number)") { db, outbox in
                    try JSONValue(
                        reply: Self.apply(
                            part, ids: ids, fallback: fallback, file: file, in: db, outbox: outbox, commands: self))
                }
                reports.append(try reply.decode(TodoImportReport.self))
            } catch let error as CommandError where number > 0 {
                let written = reports.reduce(0) { $0 + $1.added + $1.updated }
                throw CommandError(
                    code: error.code,
                    message: "\(error.message) (after \(written) todos were imported: importing the file again goes on "
                        + "from there)")
            }
        }
        // One import is one step to undo, however many transactions wrote it.
        _ = try await writes.once("\(request.id)/undo") { db, _ in
            try UndoLog.merge(requests: parts.indices.map { "\(request.id)/\($0)" }, in: db)
            return .null
        }
        return try JSONValue(reply: TodoImportReport(summing: reports, file: file))
    }

    /// How many todos (with their days done) one transaction writes, and how many subtasks: about
    /// 0.4 s of writing on the test machine (86,708 todos took 67 s in one).
    static let todosPerPart = 500
    static let subtasksPerPart = 2_000

    /// One transaction's share of an import: top-level todos, or subtasks (after every todo, so
    /// their todos are there), and the file's own problems with the first.
    struct Part: Sendable {
        var todos: ArraySlice<TodoFile.Imported> = []
        var subtasks: ArraySlice<TodoFile.Imported> = []
        var problems: [TodoImportReport.Problem] = []

        /// The whole file as one part (the preview).
        init(_ reading: TodoFile.Reading, ids: [String: String]) {
            todos = ArraySlice(reading.todos.filter { !Self.isSubtask($0, ids: ids) })
            subtasks = ArraySlice(reading.todos.filter { Self.isSubtask($0, ids: ids) })
            problems = reading.problems.map { TodoImportReport.Problem(todo: $0.todo, reason: $0.reason) }
        }

        private init() {}

        static func split(_ reading: TodoFile.Reading, ids: [String: String]) -> [Part] {
            let whole = Part(reading, ids: ids)
            var parts: [Part] = []
            for start in stride(from: whole.todos.startIndex, to: whole.todos.endIndex, by: todosPerPart) {
                var part = Part()
                part.todos = whole.todos[start..<min(start + todosPerPart, whole.todos.endIndex)]
                parts.append(part)
            }
            for start in stride(from: whole.subtasks.startIndex, to: whole.subtasks.endIndex, by: subtasksPerPart) {
                var part = Part()
                part.subtasks = whole.subtasks[start..<min(start + subtasksPerPart, whole.subtasks.endIndex)]
                parts.append(part)
            }
            if parts.isEmpty { parts.append(Part()) }
            parts[0].problems = whole.problems
            return parts
        }

        /// A subtask: a todo whose parent (RELATED-TO) is in the file.
        static func isSubtask(_ todo: TodoFile.Imported, ids: [String: String]) -> Bool {
            todo.parent.map { ids[$0] != nil } ?? false
        }
    }

    /// Each todo's id here by its UID: Hearth's own ids kept, another app's UID named alike on
    /// every import.
    private static func ids(_ reading: TodoFile.Reading) -> [String: String] {
        var ids: [String: String] = [:]
        for todo in reading.todos { ids[todo.uid] = Todos.isEntityID(todo.uid) ? todo.uid : UUIDText.named(todo.uid) }
        return ids
    }

    /// Checks every todo of `reading` against what is here and, with an `outbox` (confirmed),
    /// writes them.
    private static func apply(
        _ part: Part, ids: [String: String], fallback: String?, file: String, in db: Database,
        outbox: ChangeOutbox?, commands: TodosCommands
    ) throws -> TodoImportReport {
        var problems = part.problems
        let fallbackID = try fallback.map { try collectionID($0, in: db) }
        var newCollections: [String: String] = [:]
        var names: [String] = []
        var (added, updated, subtasks, completions, skips) = (0, 0, 0, 0, 0)
        var positions: [String: Int64] = [:]
        func write(_ todo: TodoFile.Imported, id: String, exists: Bool, collection: String?) throws {
            let title: String
            do {
                title = try Todos.title(todo.title)
            } catch {
                problems.append(
                    .init(todo: "todo '\(todo.title)' (UID \(todo.uid))", reason: "'\(error.field)' \(error.rule)"))
                return
            }
            var values: [String: FieldValue] = [
                "title": .text(title), "priority": .text(todo.priority), "completed": .bool(todo.completed),
                "repeat": .text(todo.repeat), "month_end": .text(todo.monthEnd),
                "description": todo.description.map(FieldValue.text) ?? .null,
                "due_date": todo.due.map { .text($0.description) } ?? .null,
                "due_time": todo.time.map { .text($0.description) } ?? .null,
                "until": todo.until.map { .text($0.description) } ?? .null,
            ]
            if let collection { values["collection"] = .text(collection) }
            if !exists { values.merge(["remind": .bool(false), "show_in_calendar": .bool(true)]) { $1 } }
            // An alarm turns the reminder on; a file without one (most apps write none) leaves a
            // todo's as it is.
            if todo.remind { values["remind"] = .bool(true) }
            if let member = todo.member {
                if let id = (try? HubCommands.member(named: member, in: db, field: "for"))?.id {
                    values["assignee"] = .text(id)
                } else {
                    problems.append(
                        .init(
                            todo: "todo '\(todo.title)' (UID \(todo.uid))",
                            reason: "is for '\(member)', who is not a member here: imported for everyone"))
                }
            }
            var state = exists ? try todoState(id, in: db) : [:]
            state.merge(values) { $1 }
            do {
                try Todos.checkTodo(state, whole: true)
            } catch {
                problems.append(
                    .init(todo: "todo '\(todo.title)' (UID \(todo.uid))", reason: "'\(error.field)' \(error.rule)"))
                return
            }
            // Only what changes is counted: an unchanged export imported again reported "17
            // updated, 64 days done" (issue 63).
            let entity = EntityRef(kind: Todos.todoKind, id: id)
            if !exists {
                added += 1
            } else if try StoreCommands.wouldChange(entity, values, in: db) {
                updated += 1
            }
            for day in todo.completions
            where try StoreCommands.wouldChange(Todos.completion(of: id, on: day), ["done": .bool(true)], in: db) {
                completions += 1
            }
            for day in todo.skips
            where try StoreCommands.wouldChange(Todos.completion(of: id, on: day), ["skipped": .bool(true)], in: db) {
                skips += 1
            }
            guard let outbox else { return }
            try commands.commit(EntityRef(kind: Todos.todoKind, id: id), values, in: db, outbox: outbox)
            for day in todo.completions {
                try commands.commit(Todos.completion(of: id, on: day), ["done": .bool(true)], in: db, outbox: outbox)
            }
            for day in todo.skips {
                try commands.commit(Todos.completion(of: id, on: day), ["skipped": .bool(true)], in: db, outbox: outbox)
            }
        }
        for todo in part.todos {
            let name = "todo '\(todo.title)' (UID \(todo.uid))"
            guard let id = ids[todo.uid] else { continue }
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM todo WHERE id = ?", arguments: [id]) == true
            var collection = try todo.category.flatMap { category in
                try Self.collection(named: category, in: db) ?? newCollections[category.lowercased()]
            }
            // A todo's CATEGORIES picks its collection, made when missing; `collection` is for
            // todos whose file names none (it took a CATEGORIES:Shopping todo to Home: issue 63).
            if collection == nil, let category = todo.category {
                let made = UUIDText.make()
                newCollections[category.lowercased()] = made
                names.append(category)
                if let outbox {
                    let order = (try Int64.fetchOne(db, sql: "SELECT MAX(sort_order) FROM todo_collection") ?? -1) + 1
                    try commands.commit(
                        EntityRef(kind: Todos.collectionKind, id: made),
                        [
                            "name": .text(try commands.check { () throws(RuleError) in try Todos.name(category) }),
                            "kind": .text(Todos.Kind.list.rawValue), "show_in_calendar": .bool(true),
                            "sort_order": .int(order),
                        ], in: db, outbox: outbox)
                }
                collection = made
            }
            guard let collection = collection ?? fallbackID else {
                if !exists {
                    problems.append(
                        .init(todo: name, reason: "has no CATEGORIES naming a collection: give --collection"))
                    continue
                }
                try write(todo, id: id, exists: exists, collection: nil)
                continue
            }
            try write(todo, id: id, exists: exists, collection: collection)
        }
        for todo in part.subtasks {
            guard let parent = todo.parent, let parentID = ids[parent] else { continue }
            let todoExists =
                try Bool.fetchOne(db, sql: "SELECT 1 FROM todo WHERE id = ?", arguments: [parentID]) == true
            guard todoExists || outbox == nil, let id = ids[todo.uid] else { continue }
            let position =
                try positions[parentID]
                ?? (Int64.fetchOne(
                    db, sql: "SELECT MAX(position) FROM todo_subtask WHERE todo = ?", arguments: [parentID])
                    ?? -1)
            let existing = try Int64.fetchOne(
                db, sql: "SELECT position FROM todo_subtask WHERE id = ?", arguments: [id])
            if existing == nil { positions[parentID] = position + 1 }
            let entity = EntityRef(kind: Todos.subtaskKind, id: id)
            let values: [String: FieldValue] = [
                "todo": .text(parentID), "title": .text(todo.title), "completed": .bool(todo.completed),
                "position": .int(existing ?? position + 1),
            ]
            // Counted when it is new or changes, as todos are.
            if try StoreCommands.wouldChange(entity, values, in: db) { subtasks += 1 }
            guard let outbox else { continue }
            try commands.commit(entity, values, in: db, outbox: outbox)
        }
        var report = TodoImportReport(
            file: file, added: added, updated: updated, subtasks: subtasks, completions: completions,
            collections: names.sorted(), problems: Array(problems.prefix(100)), confirmed: outbox != nil)
        report.skips = skips > 0 ? skips : nil
        return report
    }
}

extension TodoImportReport {
    /// The reports of an import's parts as one.
    init(summing reports: [TodoImportReport], file: String) {
        self.init(
            file: file, added: reports.reduce(0) { $0 + $1.added }, updated: reports.reduce(0) { $0 + $1.updated },
            subtasks: reports.reduce(0) { $0 + $1.subtasks }, completions: reports.reduce(0) { $0 + $1.completions },
            collections: reports.flatMap(\.collections).sorted(),
            problems: Array(reports.flatMap(\.problems).prefix(100)), confirmed: true)
        let skipped = reports.reduce(0) { $0 + ($1.skips ?? 0) }
        skips = skipped > 0 ? skipped : nil
    }
}
