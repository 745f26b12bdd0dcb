import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// Planned check-ins: "Plan my week" (prune, then fill the horizon), "What's next", and what a
/// person does with a check-in — done, cancel, snooze, reschedule, snooze tonight.
///
/// Snoozing or rescheduling closes the check-in in its slot (`snoozed`, `rescheduled`) and
/// plans a new one that names it (`previous`): the slot's outcome is what learning counts, and
/// history shows the move.
extension SocialCommands {
    /// "Plan my week": marks past pending check-ins missed, then places everyone who needs one.
    /// The daily refresh (`hearth-scheduler`) runs the same.
    func planWeek(_ command: PlanCommands.Week, _ request: CommandRequest) async throws -> JSONValue {
        let now = try now(command.now)
        return try await writes.once(request.id) { db, outbox in
            let missed = try String.fetchAll(
                db, sql: "SELECT id FROM plan_item WHERE status = 'pending' AND start + duration * 60000 <= ?",
                arguments: [Self.milliseconds(now)])
            for item in missed {
                try commit(
                    EntityRef(kind: Social.itemKind, id: item), ["status": .text("missed")], in: db, outbox: outbox)
            }
            let preferences = try Self.preferences(in: db)
            var planner = try planner(in: db, now: now, preferences: preferences)
            let people = try plannerPeople(in: db)
            let planned = Set(
                try String.fetchAll(db, sql: "SELECT DISTINCT person FROM plan_item WHERE status = 'pending'"))
            let today = household.today(at: now)
            let plan = planner.plan(people: people, planned: planned, today: today, now: wallMinute(now))
            let names = Dictionary(people.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            var placed: [PlanItemView] = []
            for placement in plan.placed {
                let id = UUIDText.make()
                try commit(
                    EntityRef(kind: Social.itemKind, id: id),
                    [
                        "person": .text(placement.person), "start": .int(Self.milliseconds(instant(placement.start))),
                        "duration": .int(Int64(placement.duration)), "status": .text("pending"),
                        "origin": .text("auto"),
                    ], in: db, outbox: outbox)
                guard var item = try Self.item(id, in: db) else { continue }
                item.score = placement.score
                placed.append(item)
            }
            let reasons = { (list: [SocialPlanner.Unplaced]) in
                list.map { PlanWeek.Unplaced(person: $0.person, name: names[$0.person] ?? "", reason: $0.reason) }
            }
            return try JSONValue(
                reply: PlanWeek(
                    placed: placed, unplaced: reasons(plan.unplaced), skipped: reasons(plan.skipped),
                    missed: missed.count, today: today.description, horizon: preferences.horizon))
        }
    }

    /// A check-in a person chose (`origin: manual`): refused when it clashes.
    func addItem(_ command: PlanCommands.Add, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.person
        let at = try instant(command.at, "at")
        let durationText = command.duration
        let now = try now(command.now)
        return try await writes.once(request.id) { db, outbox in
            let person = try Self.person(named: given, in: db)
            let duration =
                try durationText.map { text in try check { () throws(RuleError) in try Social.duration(text) } }
                ?? Int.fetchOne(db, sql: "SELECT duration FROM social_goal WHERE person = ?", arguments: [person]) ?? 30
            let planner = try planner(in: db, now: now, preferences: try Self.preferences(in: db))
            try refuseClash(planner, at: at, duration: duration, field: "at")
            let id = UUIDText.make()
            return try commit(
                EntityRef(kind: Social.itemKind, id: id),
                [
                    "person": .text(person), "start": .int(Self.milliseconds(at)), "duration": .int(Int64(duration)),
                    "status": .text("pending"), "origin": .text("manual"),
                ], in: db, outbox: outbox)
        }
    }

    /// Done: the check-in happened; it is logged as an interaction (`outcome`, default `met`),
    /// which restarts the person's cadence.
    func itemDone(_ command: PlanCommands.Done, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.item
        let outcomeText = command.outcome ?? Social.Outcome.met.rawValue
        let outcome = try check { () throws(RuleError) in
            try Todos.choice(outcomeText, field: "outcome", as: Social.Outcome.self)
        }
        let now = try now(command.now)
        return try await writes.once(request.id) { db, outbox in
            let open = try Self.openItem(given, in: db)
            let (id, row) = (open.id, open.row)
            let reply = try commit(
                EntityRef(kind: Social.itemKind, id: id), ["status": .text("done")], in: db, outbox: outbox)
            try commit(
                EntityRef(kind: Social.interactionKind, id: UUIDText.make()),
                [
                    "person": .text(row["person"]), "at": .int(Self.milliseconds(now)),
                    "outcome": .text(outcome.rawValue),
                    "item": .text(id),
                ], in: db, outbox: outbox)
            return try Self.noting(reply, open)
        }
    }

    func cancelItem(_ command: PlanCommands.Cancel, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.item
        return try await writes.once(request.id) { db, outbox in
            let open = try Self.openItem(given, in: db)
            return try Self.noting(
                try commit(
                    EntityRef(kind: Social.itemKind, id: open.id), ["status": .text("canceled")], in: db,
                    outbox: outbox), open)
        }
    }

    /// Snooze by `minutes` (the popup offers 60, 1440 and 4320): from the check-in's start (or
    /// now, if that has passed), moved on to the next valid slot if that time clashes.
    func snoozeItem(_ command: PlanCommands.Snooze, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.item
        let minutes = command.minutes ?? 60
        try Self.require(minutes, in: 5...(14 * 1440), "minutes", unit: "minutes")
        let now = try now(command.now)
        return try await writes.once(request.id) { db, outbox in
            let open = try Self.openItem(given, in: db)
            let start = max(Date(milliseconds: open.row["start"]), now).addingTimeInterval(Double(minutes) * 60)
            var moved = try move(
                open.id, row: open.row, to: start, status: .snoozed, exact: false, now: now, in: db, outbox: outbox)
            moved.movedFrom = open.movedFrom
            return try JSONValue(reply: moved)
        }
    }

    /// Reschedule to `to`, which must be free (`plan.slots` offers valid times).
    func rescheduleItem(_ command: PlanCommands.Reschedule, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.item
        let to = try instant(command.to, "to")
        let now = try now(command.now)
        return try await writes.once(request.id) { db, outbox in
            let open = try Self.openItem(given, in: db)
            var moved = try move(
                open.id, row: open.row, to: to, status: .rescheduled, exact: true, now: now, in: db, outbox: outbox)
            moved.movedFrom = open.movedFrom
            return try JSONValue(reply: moved)
        }
    }

    /// The times a check-in may be rescheduled to: the earliest valid slot on each of the next
    /// days that have one (five at most, three or more when they exist).
    func rescheduleSlots(_ command: PlanCommands.Slots) async throws -> JSONValue {
        let given = command.item
        let now = try now(command.now)
        return try await database.pool.read { db in
            let (id, row, _) = try Self.openItem(given, in: db)
            let preferences = try Self.preferences(in: db)
            let planner = try planner(in: db, now: now, preferences: preferences, excluding: [id])
            guard let person = try plannerPeople(in: db, only: row["person"], duration: row["duration"]).first else {
                throw CommandError(
                    code: "not_found", message: "'item': its person has no goal with windows to choose from")
            }
            let slots = planner.slots(
                for: person, after: wallMinute(now), count: 5, days: max(preferences.horizon, 14))
            return try JSONValue(
                reply: PlanSlots(item: try Self.item(id, in: db), slots: slots.map { Timestamp.format(instant($0)) }))
        }
    }

    /// "Snooze tonight": today's pending check-ins to tomorrow morning (`morning`), each moved
    /// on to the next valid slot if that clashes.
    func snoozeTonight(_ command: PlanCommands.SnoozeTonight, _ request: CommandRequest) async throws -> JSONValue {
        let now = try now(command.now)
        return try await writes.once(request.id) { db, outbox in
            let today = household.today(at: now)
            let (from, to) = (
                household.instant(today, LocalTime(hour: 0, minute: 0)!),
                household.instant(today.adding(days: 1), LocalTime(hour: 0, minute: 0)!)
            )
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM plan_item WHERE status = 'pending' AND start >= ? AND start < ? ORDER BY start",
                arguments: [Self.milliseconds(from), Self.milliseconds(to)])
            let morning = household.instant(today.adding(days: 1), try Self.preferences(in: db).morning)
            var moved: [PlanItemView] = []
            for row in rows {
                let id: String = row["id"]
                moved.append(
                    try move(
                        id, row: row, to: morning, status: .snoozed, exact: false, now: now, in: db, outbox: outbox))
            }
            return try JSONValue(reply: PlanMoved(moved: moved))
        }
    }

    /// The pending check-ins still to come that now clash with a busy time or quiet hours (after
    /// busy times changed: an import, a subscription's refresh): each moved to the next valid
    /// slot after its time by the planner's rules, or, when none is free, left and named.
    func recheckPlanned(
        now: Date, in db: Database, outbox: ChangeOutbox
    ) throws -> (
        moved: [PlanItemView], unplaced: [BusyImport.Problem]
    ) {
        let rows = try Row.fetchAll(
            db, sql: "SELECT * FROM plan_item WHERE status = 'pending' AND start >= ? ORDER BY start",
            arguments: [Self.milliseconds(now)])
        guard !rows.isEmpty else { return ([], []) }
        let preferences = try Self.preferences(in: db)
        var moved: [PlanItemView] = []
        var unplaced: [BusyImport.Problem] = []
        for row in rows {
            let id: String = row["id"]
            let start = Date(milliseconds: row["start"])
            let duration: Int = row["duration"]
            let planner = try planner(in: db, now: now, preferences: preferences, excluding: [id])
            let minute = wallMinute(start)
            guard let clash = planner.clash(minute, minute + duration) else { continue }
            do {
                moved.append(
                    try move(
                        id, row: row, to: start, status: .rescheduled, exact: false, now: now, in: db, outbox: outbox))
            } catch let error as CommandError where error.code == "no_slot" {
                let name =
                    try String.fetchOne(
                        db, sql: "SELECT name FROM person WHERE id = ?", arguments: [row["person"] as String])
                    ?? "someone"
                unplaced.append(
                    .init(
                        event: "check-in with \(name) at \(Self.wallText(minute))",
                        reason: "\(clash), and no other time is free in the \(preferences.horizon) days after"))
            }
        }
        return (moved, unplaced)
    }

    /// Closes `id` with `status` and plans its successor at `start`: there if free, else (unless
    /// `exact`, which refuses a clash) at the next valid slot after it.
    private func move(
        _ id: String, row: Row, to start: Date, status: Social.Status, exact: Bool, now: Date, in db: Database,
        outbox: ChangeOutbox
    ) throws -> PlanItemView {
        let preferences = try Self.preferences(in: db)
        let planner = try planner(in: db, now: now, preferences: preferences, excluding: [id])
        let duration: Int = row["duration"]
        var target = wallMinute(start)
        // A person with no goal (removed since) may be met any time outside quiet hours and busy times.
        let person =
            try plannerPeople(in: db, only: row["person"], duration: duration).first
            ?? SocialPlanner.Person(
                id: row["person"], name: "", cadence: 1, importance: 1, duration: duration,
                windows: [AvailabilityWindow(days: Set(1...7), start: 0, end: 1440)!])
        if exact {
            if let rule = planner.refusal(for: person, at: target) {
                throw CommandError.invalidArgument(
                    "to", "\(Self.wallText(target)) for \(Social.durationText(duration)): \(rule)")
            }
        } else {
            guard let free = planner.moved(person, duration: duration, to: target, days: max(preferences.horizon, 14))
            else {
                throw CommandError(
                    code: "no_slot",
                    message: "'item': no free time for it in the \(preferences.horizon) days after that")
            }
            target = free
        }
        let next = UUIDText.make()
        try commit(EntityRef(kind: Social.itemKind, id: id), ["status": .text(status.rawValue)], in: db, outbox: outbox)
        try commit(
            EntityRef(kind: Social.itemKind, id: next),
            [
                "person": .text(row["person"]), "start": .int(Self.milliseconds(instant(target))),
                "duration": .int(Int64(duration)), "status": .text("pending"),
                "origin": .text(status == .rescheduled ? "manual" : row["origin"] as String), "previous": .text(id),
            ], in: db, outbox: outbox)
        guard let item = try Self.item(next, in: db) else {
            throw CommandError(code: "internal", message: "the moved check-in \(next) was not stored")
        }
        return item
    }

    private func refuseClash(_ planner: SocialPlanner, at: Date, duration: Int, field: String) throws {
        let start = wallMinute(at)
        if let clash = planner.clash(start, start + duration) {
            throw CommandError.invalidArgument(
                field, "\(Self.wallText(start)) for \(Social.durationText(duration)): \(clash)")
        }
    }

    func nextItems(_ command: PlanCommands.Next) async throws -> JSONValue {
        let now = try now(command.now)
        let count = command.count ?? 3
        try Self.require(count, in: 1...100, "count", unit: "")
        return try await database.pool.read { db in
            let ids = try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM plan_item WHERE status = 'pending' AND start + duration * 60000 > ?
                    ORDER BY start, id LIMIT ?
                    """, arguments: [Self.milliseconds(now), count])
            return try JSONValue(reply: PlanItems(items: try ids.compactMap { try Self.item($0, in: db) }))
        }
    }

    /// Check-ins from `from` to `to` (dates, default this week), every status.
    func listItems(_ command: PlanCommands.List) async throws -> JSONValue {
        let today = household.today(at: try now(command.now))
        let from =
            try command.from.map { try StoreCommands.date($0, field: "from") } ?? today.adding(days: 1 - today.weekday)
        let to = try command.to.map { try StoreCommands.date($0, field: "to") } ?? from.adding(days: 6)
        let midnight = LocalTime(hour: 0, minute: 0)!
        return try await database.pool.read { db in
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM plan_item WHERE start >= ? AND start < ? ORDER BY start, id",
                arguments: [
                    Self.milliseconds(household.instant(from, midnight)),
                    Self.milliseconds(household.instant(to.adding(days: 1), midnight)),
                ])
            return try JSONValue(
                reply: PlanItems(
                    items: try ids.compactMap { try Self.item($0, in: db) }, from: from.description,
                    to: to.description))
        }
    }

    // MARK: - Reading

    /// A check-in with its person's name and the summary other calendars show.
    static func item(_ id: String, in db: Database) throws -> PlanItemView? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT i.*, p.name FROM plan_item AS i LEFT JOIN person AS p ON p.id = i.person WHERE i.id = ?",
                arguments: [id])
        else { return nil }
        let start = Date(milliseconds: row["start"])
        let duration: Int = row["duration"]
        let name = (row["name"] as String?) ?? "someone"
        return PlanItemView(
            id: id, person: row["person"], name: name, title: "Catch up with \(name)", start: Timestamp.format(start),
            end: Timestamp.format(start.addingTimeInterval(Double(duration) * 60)), duration: duration,
            status: row["status"], origin: row["origin"], previous: row["previous"], conflicted: row["conflicted"])
    }

    /// A check-in still to happen, by id or unique id prefix.
    /// The pending check-in `given` names (an id or its first characters). One that was snoozed
    /// or rescheduled names the check-in it moved to (followed on through later moves), so the id
    /// a person just used still works: `movedFrom` says so.
    static func openItem(_ given: String, in db: Database) throws -> (id: String, row: Row, movedFrom: String?) {
        let first = try StoreCommands.uniqueID(given, table: "plan_item", what: "check-in", field: "item", in: db)
        var id = first
        // A chain of moves is at most one a snooze; the bound only guards against a cycle forged
        // in synced data.
        for _ in 0..<1_000 {
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM plan_item WHERE id = ?", arguments: [id]) else {
                throw CommandError(code: "not_found", message: "'item': no check-in '\(given)'")
            }
            let status: String = row["status"]
            if status == Social.Status.pending.rawValue { return (id, row, id == first ? nil : first) }
            guard status == Social.Status.snoozed.rawValue || status == Social.Status.rescheduled.rawValue,
                let next = try String.fetchOne(
                    db, sql: "SELECT id FROM plan_item WHERE previous = ? ORDER BY id LIMIT 1", arguments: [id])
            else {
                let what = id == first ? "is \(status)" : "moved to \(id.prefix(8)), which is \(status)"
                throw CommandError(code: "conflict", message: "'item': that check-in \(what), no longer pending")
            }
            id = next
        }
        throw CommandError(code: "conflict", message: "'item': check-in '\(given)' moves in a loop")
    }

    /// A reply about the check-in `open` found, saying which it moved from when the id given was
    /// an earlier one (at the top and in its `item`).
    static func noting(_ reply: JSONValue, _ open: (id: String, row: Row, movedFrom: String?)) throws -> JSONValue {
        guard let from = open.movedFrom else { return reply }
        var change = try reply.decode(PlanItemChange.self)
        change.movedFrom = from
        change.item.movedFrom = from
        return try JSONValue(reply: change)
    }
}
