import Foundation
import GRDB
import HearthBus
import HearthCore

/// What `hearth-scheduler` reads and writes: the todos that have reminders, and this device's
/// record of which reminder fired for which due time and which are snoozed (`reminder_state`,
/// never replicated: each device raises its own popups).
extension TodosCommands {
    /// The todos with a reminder (on, with a due date and time), in id order, paged: `after` the
    /// last id of the previous page, or just the todos `ids` names. Each carries its completion
    /// dates from `since` on, this device's reminder state, and `armed_at` (ms): when its reminder
    /// was last set as it is now (turned on, or its day, time or repeat changed; the time of that
    /// operation), since a reminder whose time passed before that never fires.
    ///
    /// Only the reminders this device raises: a todo for one member (`assignee`) pops on devices
    /// whose profile is that member's, and on a device with no profile chosen (a shared one); an
    /// unassigned todo's, or one whose member was removed, on every device. A todo for a member
    /// shown on a device without that member's profile carries the member's name (`for`).
    func reminderSources(_ command: ReminderCommands.Sources) async throws -> JSONValue {
        let after = command.after ?? ""
        let since = try command.since.map { try StoreCommands.date($0, field: "since").description } ?? "0000"
        let ids = command.ids
        if let ids, ids.count > 1_000 {
            throw CommandError.invalidArgument("ids", "must be a list of at most 1000 todo ids")
        }
        return try await database.pool.read { db in
            let filter =
                ids.map { "todo.id IN (\($0.map { _ in "?" }.joined(separator: ",")))" } ?? "todo.id > ?"
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT todo.id, todo.title, todo.due_date, todo.due_time, todo.repeat, todo.until,
                           todo.month_end, todo.completed, s.fired_due, s.snoozed_until, s.snoozed_date,
                           (SELECT name FROM member WHERE id = todo.assignee
                              AND id IS NOT (SELECT member FROM hub_profile WHERE id = 1)) AS for_member
                    FROM todo LEFT JOIN reminder_state AS s ON s.id = todo.id
                    WHERE todo.remind AND todo.due_date IS NOT NULL AND todo.due_time IS NOT NULL AND \(filter)
                      AND (todo.assignee IS NULL
                           OR NOT EXISTS (SELECT 1 FROM member WHERE id = todo.assignee)
                           OR NOT EXISTS (SELECT 1 FROM hub_profile AS p JOIN member AS m ON m.id = p.member)
                           OR todo.assignee = (SELECT member FROM hub_profile WHERE id = 1))
                    ORDER BY todo.id
                    """, arguments: StatementArguments(ids ?? [after]))
            // Done days and skipped ones alike: neither reminds anybody.
            let completions = try db.cachedStatement(
                sql: """
                    SELECT date FROM todo_completion WHERE template = ?1 AND date >= ?2
                    UNION SELECT date FROM todo_skip WHERE template = ?1 AND date >= ?2 ORDER BY date
                    """)
            let armed = try db.cachedStatement(
                sql: """
                    SELECT MAX(o.wall) FROM field_head AS h JOIN operation AS o ON o.id = h.op_id
                    WHERE h.entity_kind = 'todo' AND h.entity_id = ?
                      AND h.field IN ('remind', 'due_date', 'due_time', 'repeat', 'until', 'month_end')
                    """)
            let today = LocalDate(Date(), in: timeZone)
            var reminders: [ReminderSources.Todo] = []
            var bytes = 0
            var next: String?
            while let row = try rows.next() {
                let id: String = row["id"]
                let repeating: String = row["repeat"]
                let done = repeating == "none" ? [] : try String.fetchAll(completions, arguments: [id, since])
                var reminder = ReminderSources.Todo(
                    id: id, title: row["title"], due: row["due_date"], time: row["due_time"], repeat: repeating,
                    until: row["until"], monthEnd: row["month_end"], completed: row["completed"], completions: done,
                    firedDue: row["fired_due"], snoozedUntil: row["snoozed_until"], snoozedDate: row["snoozed_date"],
                    armedAt: try Int64.fetchOne(armed, arguments: [id]))
                reminder.forMember = row["for_member"]
                if repeating != "none", let habit = try Self.habitProgress(id, today: today, leavingToday: true, in: db)
                {
                    reminder.streak = ReminderStreak(
                        through: today.description, current: habit.current, unit: habit.unit)
                }
                bytes += 320 + done.count * 13 + reminder.title.utf8.count
                if bytes > maximumReplyBytes && !reminders.isEmpty {
                    next = reminders.last?.id
                    break
                }
                reminders.append(reminder)
            }
            return try JSONValue(encoding: ReminderSources(reminders: reminders, next: next))
        }
    }

    /// Records, for each of `records`, that a todo's reminder fired for `fired_due` (ms since
    /// 1970; it only grows), and sets or clears its snooze (`snoozed_until` ms and the occurrence
    /// `snoozed_date`, or `null`), all in one transaction.
    func recordReminder(_ command: ReminderCommands.Record, _ request: CommandRequest) async throws -> JSONValue {
        guard (1...10_000).contains(command.records.count) else {
            throw CommandError.invalidArgument("records", "must be a list of 1–10000 records")
        }
        var records: [(id: String, fired: Int64?, snooze: (until: Int64?, date: String?)?)] = []
        for (index, entry) in command.records.enumerated() {
            guard Todos.isEntityID(entry.id) else {
                throw CommandError.invalidArgument("records[\(index)].id", "must be a todo id, got '\(entry.id)'")
            }
            let snooze = try entry.snoozedUntil.map { until in
                (
                    until,
                    try entry.snoozedDate.map {
                        try StoreCommands.date($0, field: "records[\(index)].snoozed_date").description
                    }
                )
            }
            records.append((entry.id, entry.firedDue, snooze))
        }
        let checked = records
        return try await writes.once(request.id) { db, _ in
            for record in checked {
                try db.execute(sql: "INSERT OR IGNORE INTO reminder_state (id) VALUES (?)", arguments: [record.id])
                if let fired = record.fired {
                    try db.execute(
                        sql: "UPDATE reminder_state SET fired_due = MAX(COALESCE(fired_due, 0), ?) WHERE id = ?",
                        arguments: [fired, record.id])
                }
                if let snooze = record.snooze {
                    try db.execute(
                        sql: "UPDATE reminder_state SET snoozed_until = ?, snoozed_date = ? WHERE id = ?",
                        arguments: [snooze.until, snooze.until == nil ? nil : snooze.date, record.id])
                }
            }
            return try JSONValue(reply: RemindersRecorded(recorded: checked.count))
        }
    }
}
