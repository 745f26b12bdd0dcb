import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore
import Synchronization

/// The todos that fall on the days of a range: one-off todos on their due date, recurring ones on
/// every date their rule gives (each template expanded once, not per day), each marked done where
/// it was completed (a recurring one where that date's completion instance exists). The calendar
/// views and `todo list --date` read this.
public enum TodoAgenda {
    public struct Item: Sendable {
        public let id: String
        public let date: LocalDate
        public let title: String
        public let time: String?
        public let priority: String
        public let collection: String
        public let kind: String?
        public let recurring: Bool
        public let done: Bool
        /// The member it is for (id and name), if it is one member's.
        public let assignee: (id: String, name: String)?

        /// As replies show it.
        var view: AgendaItem {
            AgendaItem(
                id: id, date: date.description, title: title,
                time: time.flatMap { try? LocalTime(parsing: $0, field: "time").short }, priority: priority,
                collection: collection, kind: kind, recurring: recurring, done: done,
                assignee: TodoAgenda.assignee(id: assignee?.id, name: assignee?.name))
        }
    }

    /// A todo's assignee as replies give it: `nil` when it is the household's (or its member was
    /// removed).
    static func assignee(id: String?, name: String?) -> AssigneeView? {
        guard let id, let name else { return nil }
        return AssigneeView(id: id, name: name)
    }

    /// Every item from `from` through `through`, by date, then time (untimed last), priority, title;
    /// with `assignee` (a member id), only that member's.
    public static func read(
        from: LocalDate, through: LocalDate, collection: String?, assignee: String? = nil, calendarOnly: Bool = false,
        in db: Database
    ) throws -> [Item] {
        let (first, last) = (from.description, through.description)
        let shownOnly = calendarOnly ? "AND todo.show_in_calendar AND c.show_in_calendar" : ""
        var items: [Item] = []
        let oneOff = try TodoRow.fetchCursor(
            db,
            sql: """
                SELECT \(TodoRow.columns)
                FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                LEFT JOIN member AS m ON m.id = todo.assignee
                WHERE todo.repeat = 'none' AND todo.due_date BETWEEN ? AND ? AND (? IS NULL OR todo.collection = ?)
                      AND (? IS NULL OR todo.assignee = ?) \(shownOnly)
                """, arguments: [first, last, collection, collection, assignee, assignee])
        while let todo = try oneOff.next() {
            guard let date = try? LocalDate(parsing: todo.due, field: "due") else { continue }
            items.append(todo.item(on: date, recurring: false, done: todo.completed))
        }
        struct Completion: Hashable {
            let template: String
            let date: LocalDate
        }
        var done: Set<Completion> = []
        let completions = try Row.fetchCursor(
            db, sql: "SELECT template, date FROM todo_completion WHERE date BETWEEN ? AND ?", arguments: [first, last])
        while let row = try completions.next() {
            guard let date = try? LocalDate(parsing: row["date"], field: "date") else { continue }
            done.insert(Completion(template: row["template"], date: date))
        }
        // Templates are read first, then expanded in parallel: libical's iterator costs about
        // 3 µs an occurrence (a month of 250 daily todos is 23 ms), and each rule is independent.
        var templates: [(todo: TodoRow, rule: Recurrence)] = []
        let rows = try TodoRow.fetchCursor(
            db,
            sql: """
                SELECT \(TodoRow.columns)
                FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                LEFT JOIN member AS m ON m.id = todo.assignee
                WHERE todo.repeat != 'none' AND todo.due_date <= ? AND (todo.until IS NULL OR todo.until >= ?)
                      AND (? IS NULL OR todo.collection = ?) AND (? IS NULL OR todo.assignee = ?) \(shownOnly)
                """, arguments: [last, first, collection, collection, assignee, assignee])
        while let todo = try rows.next() {
            guard let rule = todo.recurrence else { continue }
            templates.append((todo, rule))
        }
        let expanded = Self.expand(templates.map(\.rule), from: from, through: through)
        for (template, dates) in zip(templates, expanded) {
            for date in dates {
                items.append(
                    template.todo.item(
                        on: date, recurring: true,
                        done: done.contains(Completion(template: template.todo.id, date: date))))
            }
        }
        // Sorted on whole-number keys (day, second of the day, priority), titles only on a tie.
        var seconds: [String: Int] = [:]
        let keys = items.map { item in
            let second =
                item.time.map { time in
                    if let known = seconds[time] { return known }
                    let parsed = (try? LocalTime(parsing: time, field: "time").secondsIntoDay) ?? 86_400
                    seconds[time] = parsed
                    return parsed
                } ?? 86_400
            return (
                item.date.year * 10_000 + item.date.month * 100 + item.date.day, second,
                Todos.Priority(rawValue: item.priority)?.rank ?? 3
            )
        }
        let order = items.indices.sorted { a, b in
            if keys[a] != keys[b] { return keys[a] < keys[b] }
            return (items[a].title, items[a].id) < (items[b].title, items[b].id)
        }
        return order.map { items[$0] }
    }

    /// A todo as the agenda reads it, by column name (`columns`).
    private struct TodoRow: FetchableRecord {
        static let columns = """
            todo.id, todo.due_date, todo.title, todo.due_time, todo.priority, todo.collection, c.kind,
            todo.completed, todo.repeat, todo.until, todo.month_end, todo.assignee, m.name AS assignee_name
            """
        let id: String
        let due: String
        let title: String
        let time: String?
        let priority: String
        let collection: String
        let kind: String?
        let completed: Bool
        let recurrence: Recurrence?
        /// The member it is for, when it is one member's and that member still exists.
        let assignee: (id: String, name: String)?

        init(row: Row) {
            (id, due, title, time) = (row["id"], row["due_date"], row["title"], row["due_time"])
            (priority, collection, kind, completed) = (
                row["priority"], row["collection"], row["kind"], row["completed"]
            )
            recurrence = Recurrence(
                todoRepeat: row["repeat"], due: due, until: row["until"], monthEnd: row["month_end"])
            let (member, name): (String?, String?) = (row["assignee"], row["assignee_name"])
            assignee = member.flatMap { member in name.map { (member, $0) } }
        }

        func item(on date: LocalDate, recurring: Bool, done: Bool) -> Item {
            Item(
                id: id, date: date, title: title, time: time, priority: priority, collection: collection, kind: kind,
                recurring: recurring, done: done, assignee: assignee)
        }
    }

    /// Each rule's occurrences in the range, expanded on every core.
    private static func expand(_ rules: [Recurrence], from: LocalDate, through: LocalDate) -> [[LocalDate]] {
        guard rules.count > 64 else { return rules.map { $0.occurrences(from: from, through: through) } }
        let chunks = min(ProcessInfo.processInfo.activeProcessorCount, 8)
        let size = (rules.count + chunks - 1) / chunks
        let results = Mutex([[LocalDate]](repeating: [], count: rules.count))
        // Runs on the database reader's dispatch queue (GRDB's), not the cooperative pool.
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let range = (chunk * size)..<min(rules.count, (chunk + 1) * size)
            guard !range.isEmpty else { return }
            let dates = range.map { rules[$0].occurrences(from: from, through: through) }
            results.withLock { all in
                for (offset, index) in range.enumerated() { all[index] = dates[offset] }
            }
        }
        return results.withLock { $0 }
    }
}
