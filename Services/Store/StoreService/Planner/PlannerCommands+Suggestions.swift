import Foundation
import GRDB
import HearthBus
import HearthCore

extension PlannerCommands {
    /// Records a suggested change to a card for the family to accept or decline. One the card
    /// already holds, or that an open suggestion already makes, is refused saying so.
    func suggest(_ command: EventCommands.Suggest, _ request: CommandRequest) async throws -> JSONValue {
        let (year, month) = (command.year, command.month)
        let edit = try cardEdit(
            year: year, month: month, title: command.title, location: command.location, day: command.day,
            verb: "suggest")
        var values = edit
        values["year"] = .int(Int64(year))
        values["month"] = .int(Int64(month))
        values["status"] = .text("open")
        let suggestion = EntityRef(kind: YearPlanner.suggestionKind, id: UUIDText.make())
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            let card = "the \(YearPlanner.monthName(month)) \(year) card"
            if try Self.card(year: year, month: month, holds: edit, in: db) {
                throw CommandError(code: "already_on_card", message: "\(card) already says that: nothing to suggest")
            }
            for open in try Row.fetchAll(
                db, sql: "SELECT * FROM suggestion WHERE year = ? AND month = ? AND status = 'open'",
                arguments: [year, month])
            where Self.values(of: open) == edit {
                let by = try StoreCommands.deviceName(open["suggested_by"], in: db).stringValue ?? "another device"
                throw CommandError(
                    code: "already_suggested",
                    message:
                        "\(by) already suggested that for \(card) (\((open["id"] as String).prefix(8))): accept or decline it"
                )
            }
            try commit(suggestion, changes, in: db, outbox: outbox)
            return try JSONValue(reply: SuggestionMade(suggestion: try Self.suggestion(suggestion.id, in: db)))
        }
    }

    func suggestions(_ command: EventCommands.Suggestions) async throws -> JSONValue {
        let status = command.status ?? "open"
        guard ["open", "accepted", "declined", "all"].contains(status) else {
            throw CommandError.invalidArgument("status", "must be open, accepted, declined or all")
        }
        return try await database.pool.read { db in
            let ids = try String.fetchAll(
                db,
                sql: "SELECT id FROM suggestion WHERE ? = 'all' OR status = ? ORDER BY suggested_at, id",
                arguments: [status, status])
            return try JSONValue(
                reply: SuggestionList(suggestions: try ids.compactMap { try Self.suggestion($0, in: db) }))
        }
    }

    /// Accepts or declines an open suggestion; accepting applies its values to the card in the
    /// same transaction.
    func decide(_ given: String, _ request: CommandRequest, accept: Bool) async throws -> JSONValue {
        guard !given.isEmpty else { throw CommandError.invalidArgument("id", "is required") }
        return try await writes.once(request.id) { db, outbox in
            let matches = try String.fetchAll(
                db, sql: "SELECT id FROM suggestion WHERE id LIKE ?", arguments: [given.lowercased() + "%"])
            guard matches.count == 1, let id = matches.first,
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM suggestion WHERE id = ?", arguments: [id])
            else {
                throw CommandError(
                    code: matches.isEmpty ? "not_found" : "ambiguous",
                    message: matches.isEmpty
                        ? "no suggestion '\(given)'" : "'\(given)' matches \(matches.count) suggestions")
            }
            let status: String = row["status"]
            guard status == "open" else {
                throw CommandError(code: "already_decided", message: "suggestion \(id.prefix(8)) was already \(status)")
            }
            let entity = EntityRef(kind: YearPlanner.suggestionKind, id: id)
            try commit(entity, ["status": .text(accept ? "accepted" : "declined")], in: db, outbox: outbox)
            var reply: [String: JSONValue] = [:]
            if accept {
                let year: Int = row["year"]
                let month: Int = row["month"]
                let values = Self.values(of: row)
                // Already on the card (an equal suggestion was accepted, or someone set it):
                // closed as accepted, and said so; the card is not touched.
                if try Self.card(year: year, month: month, holds: values, in: db) {
                    var decision = SuggestionDecision(suggestion: try Self.suggestion(id, in: db))
                    decision.alreadyOnCard = true
                    decision.card = try Self.card(year: year, month: month, in: db)
                    return try JSONValue(reply: decision)
                }
                let existing = try String.fetchOne(
                    db, sql: "SELECT title FROM event_card WHERE year = ? AND month = ?", arguments: [year, month])
                if existing == nil, values["title"] == nil {
                    throw CommandError.invalidArgument(
                        "title",
                        "is required: the suggestion has none and the card for \(YearPlanner.monthName(month)) is empty"
                    )
                }
                reply =
                    try commit(YearPlanner.entity(year: year, month: month), values, in: db, outbox: outbox)
                    .objectValue ?? [:]
                // Other open suggestions the card now holds are closed with it (accepted: what
                // they said is on the card), so nobody accepts the same thing twice.
                var closed: [JSONValue] = []
                for other in try Row.fetchAll(
                    db, sql: "SELECT * FROM suggestion WHERE year = ? AND month = ? AND status = 'open' AND id <> ?",
                    arguments: [year, month, id])
                where try Self.card(year: year, month: month, holds: Self.values(of: other), in: db) {
                    let otherID: String = other["id"]
                    try commit(
                        EntityRef(kind: YearPlanner.suggestionKind, id: otherID), ["status": .text("accepted")], in: db,
                        outbox: outbox)
                    closed.append(.string(otherID))
                }
                reply["closed"] = .array(closed)
            }
            reply["suggestion"] = try JSONValue(reply: try Self.suggestion(id, in: db))
            return .object(reply)
        }
    }

    /// The card values a suggestion's row carries (those it set).
    static func values(of row: Row) -> [String: FieldValue] {
        var values: [String: FieldValue] = [:]
        if let title = row["title"] as String? { values["title"] = .text(title) }
        if let location = row["location"] as String? { values["location"] = .text(location) }
        if let day = row["day"] as Int64? { values["day"] = .int(day) }
        return values
    }

    /// Whether the card of `year` and `month` already holds every one of `values`.
    static func card(year: Int, month: Int, holds values: [String: FieldValue], in db: Database) throws -> Bool {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT title, location, day FROM event_card WHERE year = ? AND month = ?",
                arguments: [year, month])
        else { return false }
        let card: [String: FieldValue] = [
            "title": (row["title"] as String?).map(FieldValue.text) ?? .null,
            "location": (row["location"] as String?).map(FieldValue.text) ?? .null,
            "day": (row["day"] as Int64?).map(FieldValue.int) ?? .null,
        ]
        return !values.isEmpty && values.allSatisfy { card[$0.key] == $0.value }
    }

    static func suggestion(_ id: String, in db: Database) throws -> SuggestionView? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM suggestion WHERE id = ?", arguments: [id]) else {
            return nil
        }
        let names = try StoreCommands.deviceNames(in: db)
        let month: Int = row["month"]
        let by: String = row["suggested_by"]
        return SuggestionView(
            id: id, year: row["year"], month: month, monthName: YearPlanner.monthName(month), title: row["title"],
            location: row["location"], day: row["day"], status: row["status"], suggestedBy: by,
            suggestedByName: names[by] ?? String(by.prefix(8)), suggestedAt: row["suggested_at"],
            decidedBy: row["decided_by"], decidedAt: row["decided_at"])
    }
}
