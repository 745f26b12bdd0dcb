import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// People, their goals and the interaction log: who matters, how often to see them, and when
/// we last did.
extension SocialCommands {
    func addPerson(_ command: PeopleCommands.Add, _ request: CommandRequest) async throws -> JSONValue {
        var values = try personValues(name: command.name, tags: command.tags, purpose: command.purpose)
        values["deleted"] = nil
        let name = values["name"]?.description ?? ""
        let entity = EntityRef(kind: Social.personKind, id: UUIDText.make())
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            try StoreCommands.refuseTakenName(name, table: "person", what: "person", except: nil, in: db)
            return try commit(entity, changes, in: db, outbox: outbox)
        }
    }

    func editPerson(_ command: PeopleCommands.Edit, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.person
        let values = try personValues(name: command.name, tags: command.tags, purpose: command.purpose)
        guard !values.isEmpty else {
            throw CommandError.invalidArgument("name", "nothing to change: give a name, tags or purpose")
        }
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.person(named: given, in: db)
            if case .text(let name) = values["name"] {
                try StoreCommands.refuseTakenName(name, table: "person", what: "person", except: id, in: db)
            }
            return try commit(EntityRef(kind: Social.personKind, id: id), values, in: db, outbox: outbox)
        }
    }

    /// Removes a person, their goal and their pending check-ins (cancelled), in one transaction;
    /// history and the interaction log keep what was.
    func removePerson(_ command: PeopleCommands.Remove, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.person
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.person(named: given, in: db)
            let pending = try String.fetchAll(
                db, sql: "SELECT id FROM plan_item WHERE person = ? AND status = 'pending'", arguments: [id])
            for item in pending {
                try commit(
                    EntityRef(kind: Social.itemKind, id: item), ["status": .text("canceled")], in: db, outbox: outbox)
            }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM social_goal WHERE person = ?", arguments: [id]) == true {
                try commit(EntityRef(kind: Social.goalKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
            }
            var reply =
                try commit(EntityRef(kind: Social.personKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
                .objectValue ?? [:]
            reply["canceled_items"] = .int(Int64(pending.count))
            return .object(reply)
        }
    }

    /// Sets a person's goal: how often (`every` days), how much it matters (`importance` 1–5),
    /// how long (`duration`), when (`windows`), never on (`exclude`), and optionally when they
    /// were last seen (`last`).
    func setGoal(_ command: PeopleCommands.Goal, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.person
        var values: [String: FieldValue] = [:]
        if let every = command.every {
            try Self.require(every, in: Social.cadenceRange, "every", unit: "days")
            values["every"] = .int(Int64(every))
        }
        if let importance = command.importance {
            try Self.require(importance, in: Social.importanceRange, "importance", unit: "")
            values["importance"] = .int(Int64(importance))
        }
        if let text = command.duration {
            values["duration"] = .int(Int64(try check { () throws(RuleError) in try Social.duration(text) }))
        }
        if let texts = command.windows {
            let windows = try check { () throws(RuleError) in
                try texts.map { text throws(RuleError) in
                    try AvailabilityWindow(parsing: text, field: "window")
                }
            }
            values["windows"] = .text(AvailabilityWindow.text(windows))
        }
        if let list = command.exclude {
            let dates = try check { () throws(RuleError) in try Social.excluded(list, field: "exclude") }
            values["exclude"] = dates.isEmpty ? .null : .text(Social.excludedText(dates))
        }
        if let text = command.last {
            values["last"] = .text(try StoreCommands.date(text, field: "last").description)
        }
        let changes = values
        let today = household.today(at: try now(command.now))
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.person(named: given, in: db)
            let exists =
                try Bool.fetchOne(db, sql: "SELECT 1 FROM social_goal WHERE person = ?", arguments: [id]) == true
            var goal = changes
            try check { () throws(RuleError) in try Social.checkGoal(goal, whole: !exists) }
            if !exists {
                goal["importance"] = goal["importance"] ?? .int(3)
                goal["duration"] = goal["duration"] ?? .int(30)
                goal["deleted"] = .bool(false)
            }
            guard !goal.isEmpty else {
                throw CommandError.invalidArgument(
                    "every", "nothing to change: give every, importance, duration, windows, exclude or last")
            }
            try commit(EntityRef(kind: Social.goalKind, id: id), goal, in: db, outbox: outbox)
            return try JSONValue(reply: try person(id, in: db, today: today))
        }
    }

    /// Logs an interaction (`met`, `call`, `text`, `other`) at `when` (default now): it restarts
    /// the person's cadence.
    func logInteraction(_ command: PeopleCommands.Log, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.person
        let outcomeText = command.outcome
        let outcome = try check { () throws(RuleError) in
            try Todos.choice(outcomeText, field: "outcome", as: Social.Outcome.self)
        }
        let at = try instant(command.when, "when") ?? now(command.now)
        let note = command.note
        if let note {
            try check { () throws(RuleError) in
                try TextRules.check(note, field: "note", maximumLength: Social.maximumNoteLength, multiline: true)
            }
        }
        return try await writes.once(request.id) { db, outbox in
            let id = try Self.person(named: given, in: db)
            var values: [String: FieldValue] = [
                "person": .text(id), "at": .int(Self.milliseconds(at)), "outcome": .text(outcome.rawValue),
            ]
            if let note, !note.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                values["note"] = .text(note.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            try commit(EntityRef(kind: Social.interactionKind, id: UUIDText.make()), values, in: db, outbox: outbox)
            return try JSONValue(reply: try person(id, in: db, today: household.today(at: at)))
        }
    }

    func listPeople(_ command: PeopleCommands.List) async throws -> JSONValue {
        let today = household.today(at: try now(command.now))
        return try await database.pool.read { db in
            let ids = try String.fetchAll(db, sql: "SELECT id FROM person ORDER BY lower(name), id")
            let people = try ids.compactMap { try person($0, in: db, today: today) }
            // Highest score first; people without a goal last.
            let sorted = people.sorted { first, second in
                (first.standing?.score ?? -1, second.name) > (second.standing?.score ?? -1, first.name)
            }
            return try JSONValue(reply: PeopleList(people: sorted, today: today.description))
        }
    }

    func showPerson(_ command: PeopleCommands.Show) async throws -> JSONValue {
        let given = command.person
        let today = household.today(at: try now(command.now))
        return try await database.pool.read { db in
            let id = try Self.person(named: given, in: db)
            guard var person = try self.person(id, in: db, today: today) else { return .null }
            let interactions = try Row.fetchAll(
                db, sql: "SELECT * FROM interaction WHERE person = ? ORDER BY at DESC LIMIT 20", arguments: [id])
            person.interactions = interactions.map { row in
                PersonView.Interaction(
                    id: row["id"], at: Timestamp.format(Date(milliseconds: row["at"])), outcome: row["outcome"],
                    note: row["note"])
            }
            let items = try String.fetchAll(
                db, sql: "SELECT id FROM plan_item WHERE person = ? ORDER BY start DESC LIMIT 20", arguments: [id])
            person.items = try items.compactMap { try Self.item($0, in: db) }
            return try JSONValue(reply: person)
        }
    }

    // MARK: - Reading

    /// A person as stored.
    static func person(_ id: String, in db: Database) throws -> PersonView? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM person WHERE id = ?", arguments: [id]) else {
            return nil
        }
        return PersonView(
            id: id, name: row["name"], tags: row["tags"], purpose: row["purpose"], conflicted: row["conflicted"])
    }

    /// A person with their goal, their priority on `today` and their next check-in.
    func person(_ id: String, in db: Database, today: LocalDate) throws -> PersonView? {
        guard var person = try Self.person(id, in: db) else { return nil }
        if let goal = try Row.fetchOne(db, sql: "SELECT * FROM social_goal WHERE person = ?", arguments: [id]) {
            let last = try Self.lastCompleted(id, goal: goal, household: household, in: db)
            let (every, importance): (Int, Int) = (goal["every"], goal["importance"])
            let priority = SocialPlanner.priority(
                cadence: every, importance: importance, lastCompleted: last, today: today)
            person.standing = PersonView.Standing(
                goal: PersonView.Goal(
                    every: every, importance: importance, duration: goal["duration"], windows: goal["windows"],
                    exclude: goal["exclude"]),
                last: last?.description, due: priority.due.description, overdueDays: priority.overdueDays,
                urgency: priority.urgency, score: priority.score)
        }
        if let next = try String.fetchOne(
            db, sql: "SELECT id FROM plan_item WHERE person = ? AND status = 'pending' ORDER BY start LIMIT 1",
            arguments: [id])
        {
            person.next = try Self.item(next, in: db)
        }
        return person
    }

    /// The last check-in: the goal's `last` date or the latest logged interaction's day, whichever
    /// is later (logging restarts the cadence).
    static func lastCompleted(
        _ person: String, goal: Row, household: HouseholdTime, in db: Database
    ) throws -> LocalDate? {
        let set = (goal["last"] as String?).flatMap { try? LocalDate(parsing: $0, field: "last") }
        let latest = try Int64.fetchOne(
            db, sql: "SELECT MAX(at) FROM interaction WHERE person = ?", arguments: [person])
        let loggedDay = latest.map { household.today(at: Date(milliseconds: $0)) }
        return [set, loggedDay].compactMap { $0 }.max()
    }

    /// A person as commands name them: by name (any case), id or unique id prefix.
    static func person(named given: String, in db: Database, field: String = "person") throws -> String {
        try StoreCommands.id(named: given, table: "person", what: "person", field: field, in: db)
    }

    private func personValues(name: String?, tags: String?, purpose: String?) throws -> [String: FieldValue] {
        var values: [String: FieldValue] = [:]
        if let text = name {
            values["name"] = .text(try check { () throws(RuleError) in try Social.name(text) })
        }
        if let text = tags {
            values["tags"] = try check { () throws(RuleError) in try Social.tags(text) }.map(FieldValue.text) ?? .null
        }
        if let text = purpose {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            try check { () throws(RuleError) in
                try TextRules.check(
                    trimmed, field: "purpose", maximumLength: Social.maximumPurposeLength, multiline: true)
            }
            values["purpose"] = trimmed.isEmpty ? .null : .text(trimmed)
        }
        return values
    }

    static func require(_ value: Int, in range: ClosedRange<Int64>, _ field: String, unit: String) throws {
        guard range.contains(Int64(value)) else {
            throw CommandError.invalidArgument(
                field, "must be \(range.lowerBound)–\(range.upperBound)\(unit.isEmpty ? "" : " \(unit)"), got \(value)")
        }
    }
}
