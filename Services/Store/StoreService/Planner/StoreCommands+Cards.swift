import Foundation
import GRDB
import HearthBus
import HearthCore

/// The year planner's card commands: `event.set`, `event.clear`, `event.list`, `event.show`.
extension StoreCommands {

    /// A card edit's arguments, checked: `year` and `month`, and the fields to set (at least one
    /// of title, location and day; an empty location clears it).
    func cardEdit(_ arguments: Arguments, verb: String) throws -> (year: Int, month: Int, values: [String: FieldValue])
    {
        let year = try arguments.int("year")
        let month = try arguments.int("month")
        let title = try arguments.optionalString("title")
        let location = try arguments.optionalString("location")
        let day = try arguments.optionalInt("day")
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
        return (year, month, values)
    }

    func setEvent(_ request: CommandRequest) async throws -> JSONValue {
        let (year, month, values) = try cardEdit(Arguments(request.arguments), verb: "set")
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
    private func cardAddress(_ request: CommandRequest) throws -> (year: Int, month: Int, entity: EntityRef) {
        let arguments = Arguments(request.arguments)
        let year = try arguments.int("year")
        let month = try arguments.int("month")
        try check { () throws(RuleError) in
            try YearPlanner.validate(year: year, month: month, title: nil, location: nil, day: nil)
        }
        return (year, month, YearPlanner.entity(year: year, month: month))
    }

    func clearEvent(_ request: CommandRequest) async throws -> JSONValue {
        let (year, month, entity) = try cardAddress(request)
        return try await writes.once(request.id) { db, outbox in
            guard try Self.card(year: year, month: month, in: db)?["title"] != .null else {
                throw CommandError(
                    code: "not_found", message: "the card for \(YearPlanner.monthName(month)) \(year) is already empty")
            }
            return try commit(entity, ["title": .null, "location": .null, "day": .null], in: db, outbox: outbox)
        }
    }

    func listEvents(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        let year = try arguments.optionalInt("year") ?? Calendar(identifier: .gregorian).component(.year, from: Date())
        try check { () throws(RuleError) in
            try YearPlanner.validate(year: year, month: 1, title: nil, location: nil, day: nil)
        }
        return try await database.pool.read { db in
            var cards: [JSONValue] = []
            for month in 1...12 {
                cards.append(
                    try Self.card(year: year, month: month, in: db) ?? Self.emptyCard(year: year, month: month))
            }
            return ["year": .int(Int64(year)), "cards": .array(cards)]
        }
    }

    func showEvent(_ request: CommandRequest) async throws -> JSONValue {
        let (year, month, entity) = try cardAddress(request)
        return try await database.pool.read { db in
            guard var card = try Self.card(year: year, month: month, in: db)?.objectValue else {
                return Self.emptyCard(year: year, month: month)
            }
            let log = try StoreDatabase.log(of: entity, in: db)
            var fields: [String: JSONValue] = [:]
            for (name, state) in log.entity(entity) {
                fields[name] = [
                    "value": state.value.json, "conflict": .bool(state.isConflict),
                    "values": .array(state.heads.map { ["op": .string($0.id.description), "value": $0.value.json] }),
                ]
            }
            card["fields"] = .object(fields)
            card["operations"] = .int(
                try Int64.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM operation WHERE entity_kind = ? AND entity_id = ?",
                    arguments: [entity.kind, entity.id]) ?? 0)
            return .object(card)
        }
    }

    static func card(_ entity: EntityRef, in db: Database) throws -> JSONValue? {
        guard let (year, month) = YearPlanner.yearAndMonth(of: entity) else { return nil }
        return try card(year: year, month: month, in: db)
    }

    static func card(year: Int, month: Int, in db: Database) throws -> JSONValue? {
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT * FROM event_card WHERE year = ? AND month = ?"),
                arguments: [year, month])
        else { return nil }
        func text(_ column: String) -> JSONValue { (row[column] as String?).map(JSONValue.string) ?? .null }
        return [
            "year": .int(Int64(year)), "month": .int(Int64(month)), "month_name": .string(YearPlanner.monthName(month)),
            "title": text("title"), "location": text("location"),
            "day": (row["day"] as Int64?).map(JSONValue.int) ?? .null, "colour": text("colour"),
            "created_at": text("created_at"), "modified_at": text("modified_at"), "modified_by": text("modified_by"),
            "modified_by_name": try deviceName(row["modified_by"], in: db),
            "conflicted": .bool(row["conflicted"]), "empty": .bool((row["title"] as String?) == nil),
        ]
    }

    static func emptyCard(year: Int, month: Int) -> JSONValue {
        [
            "year": .int(Int64(year)), "month": .int(Int64(month)), "month_name": .string(YearPlanner.monthName(month)),
            "title": nil, "location": nil, "day": nil, "colour": .string(YearPlanner.defaultColours[month - 1]),
            "conflicted": false, "empty": true,
        ]
    }
}
