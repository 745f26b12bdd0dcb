import GRDB
import HearthBus
import HearthCore

/// Applying a gallery template: the collection and every todo in one transaction, all or nothing.
extension TodosCommands {
    /// `template.apply {name, start, collection_name?}`: a new collection named after the
    /// template (or `collection_name`), made distinct (" (2)", " (3)"…) if the name is taken, so
    /// applying twice never merges; habits repeat from `start`, plan steps are due over the
    /// weeks after it, list items have no date.
    func applyTemplate(_ command: TodoCommands.ApplyTemplate, _ request: CommandRequest) async throws -> JSONValue {
        let name = command.name
        guard let template = TodoTemplate.named(name) else {
            throw CommandError.invalidArgument(
                "name", "must be a template (see `hearth templates`), got '\(name)'")
        }
        let start = try StoreCommands.date(command.start, field: "start")
        let requested = try command.collectionName.map { text in
            try check { () throws(RuleError) in try Todos.name(text, field: "collection_name") }
        }
        return try await writes.once(request.id) { db, outbox in
            let base = requested ?? template.name
            var collectionName = base
            var copy = 1
            while try String.fetchOne(
                db, sql: "SELECT id FROM todo_collection WHERE lower(name) = lower(?)", arguments: [collectionName])
                != nil
            {
                copy += 1
                collectionName = "\(base) (\(copy))"
            }
            let collection = EntityRef(kind: Todos.collectionKind, id: UUIDText.make())
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(sort_order) FROM todo_collection") ?? -1
            try commit(
                collection,
                [
                    "name": .text(collectionName), "kind": .text(template.kind.rawValue), "icon": .text(template.icon),
                    "sort_order": .int(last + 1), "show_in_calendar": .bool(true),
                ], in: db, outbox: outbox)
            let failAfter = faults.templateFailAfter
            for (index, item) in template.items.enumerated() {
                if let failAfter, index == failAfter {
                    throw CommandError(code: "internal", message: "injected fault after \(index) todos")
                }
                var values: [String: FieldValue] = [
                    "collection": .text(collection.id), "title": .text(item.title),
                    "priority": .text(item.priority.rawValue), "repeat": .text(item.repeating.rawValue),
                    "month_end": .text(Todos.MonthEnd.skip.rawValue), "remind": .bool(item.remind && item.time != nil),
                    "show_in_calendar": .bool(true), "completed": .bool(false),
                ]
                let due = item.repeating != .none ? start : item.day.map { start.adding(days: $0) }
                if let due {
                    values["due_date"] = .text(due.description)
                    if let time = item.time {
                        values["due_time"] = .text(
                            try check { () throws(RuleError) in
                                try LocalTime(parsing: time, field: "time").description
                            })
                    }
                }
                try commit(EntityRef(kind: Todos.todoKind, id: UUIDText.make()), values, in: db, outbox: outbox)
            }
            return try JSONValue(
                reply: TemplateApplied(
                    collection: try Self.collection(collection.id, in: db), todos: template.items.count,
                    template: template.name))
        }
    }
}
