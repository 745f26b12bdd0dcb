import Foundation
import GRDB
import HearthBus
import HearthCore

/// The year planner's card commands: `event.set`, `event.clear`, `event.list`, `event.show`.
extension PlannerCommands {

    /// A card edit's arguments, checked: `year` and `month`, and the fields to set (at least one
    /// of title, location and day; an empty location clears it).
    func cardEdit(
        year: Int, month: Int, title: String?, location: String?, day: Int?, verb: String
    ) throws -> [String: FieldValue] {
        try check { () throws(RuleError) in
            try YearPlanner.validate(year: year, month: month, title: title, location: location, day: day)
        }
        var values: [String: FieldValue] = [:]
        if let title { values["title"] = .text(title) }
        if let location { values["location"] = location.isEmpty ? .null : .text(location) }
        if let day { values["day"] = .int(Int64(day)) }
        guard !values.isEmpty else {
            throw CommandError.invalidArgument(
                "title", "or 'location' or 'day' must be given: there is nothing to \(verb)")
        }
        return values
    }

    func setEvent(_ command: EventCommands.Set, _ request: CommandRequest) async throws -> JSONValue {
        let (year, month) = (command.year, command.month)
        let values = try cardEdit(
            year: year, month: month, title: command.title, location: command.location, day: command.day, verb: "set")
        let title = values["title"]
        let entity = YearPlanner.entity(year: year, month: month)
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            let existing = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT title FROM event_card WHERE year = ? AND month = ?"),
                arguments: [year, month])
            if title == nil, (existing?["title"] as String?) == nil {
                throw CommandError.invalidArgument(
                    "title", "is required: the card for \(YearPlanner.monthName(month)) \(year) is empty")
            }
            return try commit(entity, changes, in: db, outbox: outbox)
        }
    }

    /// The card a request names by `year` and `month`, checked.
    private func cardAddress(year: Int, month: Int) throws -> (year: Int, month: Int, entity: EntityRef) {
        try check { () throws(RuleError) in
            try YearPlanner.validate(year: year, month: month, title: nil, location: nil, day: nil)
        }
        return (year, month, YearPlanner.entity(year: year, month: month))
    }

    func clearEvent(_ command: EventCommands.Clear, _ request: CommandRequest) async throws -> JSONValue {
        let (year, month, entity) = try cardAddress(year: command.year, month: command.month)
        return try await writes.once(request.id) { db, outbox in
            guard try Self.card(year: year, month: month, in: db)?.title != nil else {
                throw CommandError(
                    code: "not_found", message: "the card for \(YearPlanner.monthName(month)) \(year) is already empty")
            }
            return try commit(entity, ["title": .null, "location": .null, "day": .null], in: db, outbox: outbox)
        }
    }

    func listEvents(_ command: EventCommands.List) async throws -> JSONValue {
        let year = command.year ?? Calendar(identifier: .gregorian).component(.year, from: Date())
        try check { () throws(RuleError) in
            try YearPlanner.validate(year: year, month: 1, title: nil, location: nil, day: nil)
        }
        return try await database.pool.read { db in
            let cards = try (1...12).map { month in
                try Self.card(year: year, month: month, in: db) ?? Self.emptyCard(year: year, month: month)
            }
            return try JSONValue(reply: CardList(year: year, cards: cards))
        }
    }

    func showEvent(_ command: EventCommands.Show) async throws -> JSONValue {
        let (year, month, entity) = try cardAddress(year: command.year, month: command.month)
        return try await database.pool.read { db in
            guard var card = try Self.card(year: year, month: month, in: db) else {
                return try JSONValue(reply: Self.emptyCard(year: year, month: month))
            }
            let log = try StoreDatabase.log(of: entity, in: db)
            var fields: [String: CardView.FieldState] = [:]
            for (name, state) in log.entity(entity) {
                fields[name] = CardView.FieldState(
                    value: state.value.fieldJSON, conflict: state.isConflict,
                    values: state.heads.map { .init(op: $0.id.description, value: $0.value.fieldJSON) })
            }
            card.fields = fields
            card.operations =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM operation WHERE entity_kind = ? AND entity_id = ?",
                    arguments: [entity.kind, entity.id]) ?? 0
            return try JSONValue(reply: card)
        }
    }

    static func card(_ entity: EntityRef, in db: Database) throws -> CardView? {
        guard let (year, month) = YearPlanner.yearAndMonth(of: entity) else { return nil }
        return try card(year: year, month: month, in: db)
    }

    static func card(year: Int, month: Int, in db: Database) throws -> CardView? {
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT * FROM event_card WHERE year = ? AND month = ?"),
                arguments: [year, month])
        else { return nil }
        var card = CardView(
            year: year, month: month, monthName: YearPlanner.monthName(month), title: row["title"],
            location: row["location"], day: row["day"], colour: row["colour"], conflicted: row["conflicted"],
            empty: (row["title"] as String?) == nil)
        card.createdAt = row["created_at"]
        card.modifiedAt = row["modified_at"]
        card.modifiedBy = row["modified_by"]
        card.modifiedByName = try StoreCommands.deviceName(row["modified_by"], in: db).stringValue
        return card
    }

    static func emptyCard(year: Int, month: Int) -> CardView {
        CardView(
            year: year, month: month, monthName: YearPlanner.monthName(month), title: nil, location: nil, day: nil,
            colour: YearPlanner.defaultColours[month - 1], conflicted: false, empty: true)
    }
}
