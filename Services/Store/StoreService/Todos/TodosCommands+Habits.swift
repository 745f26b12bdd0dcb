import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// Habits: skipping a day, pausing for a range, and the streak and strength replies carry.
extension TodosCommands {
    /// The most days one pause may cover.
    static let maximumPauseDays = 366

    /// `todo.skip {id, date, skipped?}`: one day of a repeating todo marked skipped (not
    /// applicable: the pool was closed), or with `skipped: false` no longer. A skipped day neither
    /// breaks nor extends a streak and reminds nobody; a day done stays done.
    func skipTodo(_ command: TodoCommands.Skip, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.id
        let date = try StoreCommands.date(command.date, field: "date")
        let skipped = command.skipped ?? true
        return try await writes.once(request.id) { db, outbox in
            let (id, recurrence) = try Self.repeating(given, in: db)
            guard recurrence.occurs(on: date) else {
                throw CommandError.invalidArgument(
                    "date",
                    "must be a day the todo falls on (\(recurrence.frequency.rawValue) from \(recurrence.start)), got \(date)"
                )
            }
            var reply =
                try commit(Todos.completion(of: id, on: date), ["skipped": .bool(skipped)], in: db, outbox: outbox)
                .objectValue ?? [:]
            reply["todo"] = try Self.todoJSON(id, in: db)
            return .object(reply)
        }
    }

    /// `todo.pause {id, from, to, resume?}`: every day the todo falls on from `from` through `to`
    /// skipped (a holiday), in one transaction; with `resume: true`, those days no longer skipped.
    /// - Throws: for a range of more than 366 days, or one the todo does not fall in.
    func pauseTodo(_ command: TodoCommands.Pause, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.id
        let resume = command.resume ?? false
        let from = try command.from.map { try StoreCommands.date($0, field: "from") }
        let to = try command.to.map { try StoreCommands.date($0, field: "to") }
        // A resume without days: every day skipped from today on (the habit is back today).
        let resumeAll = resume && from == nil && to == nil
        if !resumeAll {
            guard let from else {
                throw CommandError.invalidArgument("from", "is required: the first day of the pause")
            }
            guard let to else { throw CommandError.invalidArgument("to", "is required: the last day of the pause") }
            guard from <= to else { throw CommandError.invalidArgument("to", "must not be before 'from' (\(from))") }
            guard to.dayNumber - from.dayNumber < Self.maximumPauseDays else {
                throw CommandError.invalidArgument("to", "must be within \(Self.maximumPauseDays) days of 'from'")
            }
        }
        let today = LocalDate(Date(), in: timeZone)
        return try await writes.once(request.id) { db, outbox in
            let (id, recurrence) = try Self.repeating(given, in: db)
            let dates: [LocalDate]
            if let from, let to {
                dates = recurrence.occurrences(from: from, through: to)
                guard !dates.isEmpty else {
                    throw CommandError.invalidArgument("from", "the todo falls on no day from \(from) to \(to)")
                }
            } else {
                dates = try String.fetchAll(
                    db, sql: "SELECT date FROM todo_skip WHERE template = ? AND date >= ? ORDER BY date",
                    arguments: [id, today.description]
                ).compactMap { try? LocalDate(parsing: $0, field: "date") }
                guard !dates.isEmpty else {
                    throw CommandError.invalidArgument("id", "no day from today (\(today)) on is paused or skipped")
                }
            }
            for date in dates {
                _ = try commit(Todos.completion(of: id, on: date), ["skipped": .bool(!resume)], in: db, outbox: outbox)
            }
            return try JSONValue(
                reply: TodoPaused(
                    todo: try Self.todo(id, in: db), days: dates.map(\.description), resumed: resume))
        }
    }

    /// A repeating todo's id and rule.
    /// - Throws: `not_found`, or for a one-off todo (nothing to skip: it has one day).
    static func repeating(_ given: String, in db: Database) throws -> (String, Recurrence) {
        let id = try todoID(given, in: db)
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM todo WHERE id = ?", arguments: [id]) else {
            throw CommandError(code: "not_found", message: "'id': no todo '\(given)'")
        }
        guard let recurrence = recurrence(row) else {
            throw CommandError.invalidArgument("id", "must be a repeating todo (a habit): '\(given)' happens once")
        }
        return (id, recurrence)
    }

    /// A repeating todo's streak and strength as of `today` (`HabitProgress`), over its due dates
    /// of the last ten years at most; `nil` for a one-off todo or one not started yet. With
    /// `leavingToday`, today's own mark is left out (the streak a reminder for today shows).
    static func habitProgress(
        _ id: String, today: LocalDate, leavingToday: Bool = false, in db: Database
    ) throws -> HabitProgress? {
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT repeat, due_date, until, month_end FROM todo WHERE id = ?"),
                arguments: [id]),
            let recurrence = recurrence(row), recurrence.start <= today
        else { return nil }
        var marks = try habitMarks(id, from: max(recurrence.start, today.adding(days: -3_660)), through: today, in: db)
        if leavingToday { marks[today] = nil }
        return progress(of: recurrence, marks: marks, today: today)
    }

    /// The days of habit `id` done and skipped from `from` through `through` (done wins over
    /// skipped). Each table's dates come as one string (`group_concat`), read in place: reading
    /// them a row a date through GRDB, each parsed as a `String`, was 7.3 ms of the 11.6 that
    /// `todo.stats` computed for 50 habits over a year.
    static func habitMarks(_ id: String, from: LocalDate, through: LocalDate, in db: Database) throws -> HabitMarks {
        var marks = HabitMarks(from: from, through: through)
        for (table, mark) in [("todo_skip", HabitProgress.Mark.skipped), ("todo_completion", .done)] {
            guard
                var dates = try String.fetchOne(
                    try db.cachedStatement(
                        sql: "SELECT group_concat(date, ',') FROM \(table) WHERE template = ? AND date BETWEEN ? AND ?"),
                    arguments: [id, from.description, through.description])
            else { continue }
            dates.withUTF8 { bytes in
                for date in bytes.split(separator: UInt8(ascii: ",")) {
                    if let day = LocalDate.dayNumber(iso: UnsafeBufferPointer(rebasing: date)) {
                        marks[day: day] = mark
                    }
                }
            }
        }
        return marks
    }

    /// A habit's progress as of `today` from its days done and skipped (`marks`), over its due
    /// dates of the last ten years at most.
    static func progress(
        of recurrence: Recurrence, marks: HabitMarks, today: LocalDate
    ) -> HabitProgress {
        let dates = recurrence.occurrences(from: max(recurrence.start, today.adding(days: -3_660)), through: today)
        let (period, unit): (Int, String) =
            switch recurrence.frequency {
            case .daily: (1, "day")
            case .weekly: (7, "week")
            case .monthly: (30, "month")
            case .yearly: (365, "year")
            }
        return HabitProgress.of(dates: dates, marks: marks, period: period, unit: unit)
    }
}
