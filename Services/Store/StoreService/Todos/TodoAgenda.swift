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
        let oneOff = try Row.fetchCursor(
            db,
            sql: """
                SELECT todo.id, todo.due_date, todo.title, todo.due_time, todo.priority, todo.collection, c.kind,
                       todo.completed, todo.assignee, m.name
                FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                LEFT JOIN member AS m ON m.id = todo.assignee
                WHERE todo.repeat = 'none' AND todo.due_date BETWEEN ? AND ? AND (? IS NULL OR todo.collection = ?)
                      AND (? IS NULL OR todo.assignee = ?) \(shownOnly)
                """, arguments: [first, last, collection, collection, assignee, assignee])
        while let row = try oneOff.next() {
            guard let date = try? LocalDate(parsing: row[1], field: "due") else { continue }
            items.append(
                Item(
                    id: row[0], date: date, title: row[2], time: row[3], priority: row[4], collection: row[5],
                    kind: row[6], recurring: false, done: row[7], assignee: Self.pair(row[8], row[9])))
        }
        struct Completion: Hashable {
            let template: String
            let date: LocalDate
        }
        var done: Set<Completion> = []
        let completions = try Row.fetchCursor(
            db, sql: "SELECT template, date FROM todo_completion WHERE date BETWEEN ? AND ?", arguments: [first, last])
        while let row = try completions.next() {
            guard let date = try? LocalDate(parsing: row[1], field: "date") else { continue }
            done.insert(Completion(template: row[0], date: date))
        }
        // Templates are read first, then expanded in parallel: libical's iterator costs about
        // 3 µs an occurrence (a month of 250 daily todos is 23 ms), and each rule is independent.
        struct Template {
            let id: String
            let title: String
            let time: String?
            let priority: String
            let collection: String
            let kind: String?
            let rule: Recurrence
            let assignee: (id: String, name: String)?
        }
        var templates: [Template] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT todo.id, todo.due_date, todo.title, todo.due_time, todo.priority, todo.collection, c.kind,
                       todo.repeat, todo.until, todo.month_end, todo.assignee, m.name
                FROM todo LEFT JOIN todo_collection AS c ON c.id = todo.collection
                LEFT JOIN member AS m ON m.id = todo.assignee
                WHERE todo.repeat != 'none' AND todo.due_date <= ? AND (todo.until IS NULL OR todo.until >= ?)
                      AND (? IS NULL OR todo.collection = ?) AND (? IS NULL OR todo.assignee = ?) \(shownOnly)
                """, arguments: [last, first, collection, collection, assignee, assignee])
        while let row = try rows.next() {
            guard let start = try? LocalDate(parsing: row[1], field: "due"),
                let frequency = Recurrence.Frequency(rawValue: row[7])
            else { continue }
            let rule = Recurrence(
                frequency: frequency, start: start,
                until: (row[8] as String?).flatMap { try? LocalDate(parsing: $0, field: "until") },
                clampsMonthEnd: (row[9] as String) == Todos.MonthEnd.clamp.rawValue)
            templates.append(
                Template(
                    id: row[0], title: row[2], time: row[3], priority: row[4], collection: row[5], kind: row[6],
                    rule: rule, assignee: Self.pair(row[10], row[11])))
        }
        let expanded = Self.expand(templates.map(\.rule), from: from, through: through)
        for (template, dates) in zip(templates, expanded) {
            for date in dates {
                items.append(
                    Item(
                        id: template.id, date: date, title: template.title, time: template.time,
                        priority: template.priority, collection: template.collection, kind: template.kind,
                        recurring: true, done: done.contains(Completion(template: template.id, date: date)),
                        assignee: template.assignee))
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

    /// An assignee's id and name from a row, when both are there (its member still exists).
    private static func pair(_ id: String?, _ name: String?) -> (id: String, name: String)? {
        guard let id, let name else { return nil }
        return (id, name)
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
