import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// The todos that fall on the days of a range: one-off todos on their due date, recurring ones on
/// every date their rule gives (each template expanded once, not per day), each marked done where
/// it was completed (a recurring one where that date's completion instance exists). The calendar
/// views and `todo list --date` read this.
enum TodoAgenda {
    struct Item {
        let id: String
        let date: LocalDate
        let title: String
        let time: String?
        let priority: String
        let collection: String
        let kind: String?
        let recurring: Bool
        let done: Bool

        var json: JSONValue {
            [
                "id": .string(id), "date": .string(date.description), "title": .string(title),
                "time": time.flatMap { try? LocalTime(parsing: $0, field: "time").short }.map(JSONValue.string)
                    ?? .null,
                "priority": .string(priority), "collection": .string(collection),
                "kind": kind.map(JSONValue.string) ?? .null, "recurring": .bool(recurring), "done": .bool(done),
            ]
        }
    }

    /// Every item from `from` through `through`, by date, then time (untimed last), priority, title.
    static func read(
        from: LocalDate, through: LocalDate, collection: String?, calendarOnly: Bool = false, in db: Database
    ) throws -> [Item] {
        let (first, last) = (from.description, through.description)
        let shownOnly = calendarOnly ? "AND todo.show_in_calendar AND c.show_in_calendar" : ""
        var items: [Item] = []
        let oneOff = try Row.fetchCursor(
            db,
            sql: """
                SELECT todo.id, todo.due_date, todo.title, todo.due_time, todo.priority, todo.collection, c.kind,
                       todo.completed
                FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                WHERE todo.repeat = 'none' AND todo.due_date BETWEEN ? AND ? AND (? IS NULL OR todo.collection = ?)
                \(shownOnly)
                """, arguments: [first, last, collection, collection])
        while let row = try oneOff.next() {
            guard let date = try? LocalDate(parsing: row[1], field: "due") else { continue }
            items.append(
                Item(
                    id: row[0], date: date, title: row[2], time: row[3], priority: row[4], collection: row[5],
                    kind: row[6], recurring: false, done: row[7]))
        }
        var done: Set<String> = []
        let completions = try Row.fetchCursor(
            db, sql: "SELECT template, date FROM todo_completion WHERE date BETWEEN ? AND ?", arguments: [first, last])
        while let row = try completions.next() {
            done.insert((row[0] as String) + "@" + (row[1] as String))
        }
        let templates = try Row.fetchCursor(
            db,
            sql: """
                SELECT todo.id, todo.due_date, todo.title, todo.due_time, todo.priority, todo.collection, c.kind,
                       todo.repeat, todo.until, todo.month_end
                FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                WHERE todo.repeat != 'none' AND todo.due_date <= ? AND (todo.until IS NULL OR todo.until >= ?)
                      AND (? IS NULL OR todo.collection = ?) \(shownOnly)
                """, arguments: [last, first, collection, collection])
        while let row = try templates.next() {
            guard let start = try? LocalDate(parsing: row[1], field: "due"),
                let frequency = Recurrence.Frequency(rawValue: row[7])
            else { continue }
            let rule = Recurrence(
                frequency: frequency, start: start,
                until: (row[8] as String?).flatMap { try? LocalDate(parsing: $0, field: "until") },
                clampsMonthEnd: (row[9] as String) == Todos.MonthEnd.clamp.rawValue)
            let id: String = row[0]
            for date in rule.occurrences(from: from, through: through) {
                items.append(
                    Item(
                        id: id, date: date, title: row[2], time: row[3], priority: row[4], collection: row[5],
                        kind: row[6], recurring: true, done: done.contains(id + "@" + date.description)))
            }
        }
        return items.sorted { a, b in
            let rankA = Todos.Priority(rawValue: a.priority)?.rank ?? 3
            let rankB = Todos.Priority(rawValue: b.priority)?.rank ?? 3
            return (a.date, a.time ?? "~", rankA, a.title, a.id) < (b.date, b.time ?? "~", rankB, b.title, b.id)
        }
    }
}
