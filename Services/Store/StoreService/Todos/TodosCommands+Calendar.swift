import GRDB
import HearthBus
import HearthCore

/// The calendar: each day's todos in a range, from collections shown in the calendar, filtered,
/// with counts per day.
extension TodosCommands {
    /// `todo.calendar {from, to, priority?, status?, kind?, collection?, for?}` → one object per day:
    /// `date`, `counts {open, done}`, `todos` (a repeating todo on each day it falls on, marked
    /// done where that day is completed, never twice).
    func calendar(_ command: TodoCommands.Calendar) async throws -> JSONValue {
        let from = try StoreCommands.date(command.from, field: "from")
        let to = try StoreCommands.date(command.to, field: "to")
        guard from <= to else { throw CommandError.invalidArgument("to", "must not be before 'from' (\(from))") }
        guard to.dayNumber - from.dayNumber < 62 else {
            throw CommandError.invalidArgument("to", "must be within 62 days of 'from' (a month view at most)")
        }
        let (priority, status, kind) = (command.priority, command.status, command.kind)
        try check { () throws(RuleError) in
            if let priority { _ = try Todos.choice(priority, field: "priority", as: Todos.Priority.self) }
            if let kind { _ = try Todos.choice(kind, field: "kind", as: Todos.Kind.self) }
        }
        if let status, !["open", "done"].contains(status) {
            throw CommandError.invalidArgument("status", "must be open or done, got '\(status)'")
        }
        let (collection, assignee) = (command.collection, command.assignee)
        return try await database.pool.read { db in
            let collectionID = try collection.map { try Self.collectionID($0, in: db) }
            let member = try assignee.map { try HubCommands.member(named: $0, in: db, field: "for").id }
            let items = try TodoAgenda.read(
                from: from, through: to, collection: collectionID, assignee: member, calendarOnly: true, in: db
            ).filter { item in
                (priority.map { $0.lowercased() == item.priority } ?? true)
                    && (kind.map { $0.lowercased() == item.kind } ?? true)
                    && (status.map { ($0 == "done") == item.done } ?? true)
            }
            var byDay: [LocalDate: [TodoAgenda.Item]] = [:]
            for item in items { byDay[item.date, default: []].append(item) }
            var days: [TodoCalendar.Day] = []
            var date = from
            while date <= to {
                let todos = byDay[date] ?? []
                let done = todos.filter(\.done).count
                days.append(
                    TodoCalendar.Day(
                        date: date.description, weekday: date.weekday,
                        counts: .init(open: todos.count - done, done: done),
                        todos: try todos.map { item in
                            // One day (the today view's list): a habit's streak as of that day beside it.
                            var view = item.view
                            if from == to, view.recurring, view.kind == Todos.Kind.habit.rawValue {
                                view.habit = try Self.habitProgress(view.id, today: date, in: db)
                            }
                            return view
                        }))
                date = date.adding(days: 1)
            }
            return try JSONValue(reply: TodoCalendar(from: from.description, to: to.description, days: days))
        }
    }
}
