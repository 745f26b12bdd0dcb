import Foundation
import GRDB
import HearthBus
import HearthCore

/// The store's commands: argument checking, then one transaction each.
struct StoreCommands: Sendable {
    let database: StoreDatabase
    let writes: GroupCommit
    let replyDelay: Duration
    /// Replies are kept under this size (the bus's maximum message, less room for the envelope).
    let maximumReplyBytes: Int

    func handle(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        switch request.command {
        case "event.set": return try await delayed(try await setEvent(request.id, arguments))
        case "event.clear": return try await delayed(try await clearEvent(request.id, arguments))
        case "event.list": return try await listEvents(arguments)
        case "event.show": return try await showEvent(arguments)
        case "event.suggest": return try await delayed(try await suggest(request.id, arguments))
        case "event.suggestions": return try await suggestions(arguments)
        case "event.accept": return try await delayed(try await decide(request.id, arguments, accept: true))
        case "event.decline": return try await delayed(try await decide(request.id, arguments, accept: false))
        case "changes": return try await changes(arguments)
        case "history": return try await history(arguments)
        case "conflicts": return try await conflicts()
        case "conflicts.resolve": return try await delayed(try await resolveConflict(request.id, arguments))
        case "device.list": return try await devices()
        case "device.rename": return try await renameDevice(request.id, arguments)
        case "ops.export": return try await exportOperations(arguments)
        case "ops.import": return try await importOperations(request.id, arguments)
        case "backup": return try await backup(arguments)
        default: throw CommandError.unknownCommand(request.command, service: "store")
        }
    }

    // MARK: - Year planner

    /// A card edit's arguments, checked: `year` and `month`, and the fields to set (at least one
    /// of title, location and day; an empty location clears it).
    func cardEdit(_ arguments: Arguments, verb: String) throws -> (year: Int, month: Int, values: [String: FieldValue])
    {
        let year = try arguments.int("year")
        let month = try arguments.int("month")
        let title = try arguments.optionalString("title")
        let location = try arguments.optionalString("location")
        let day = try arguments.optionalInt("day")
        try check { () throws(PlannerError) in
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

    private func setEvent(_ requestID: String, _ arguments: Arguments) async throws -> JSONValue {
        let (year, month, values) = try cardEdit(arguments, verb: "set")
        let title = values["title"]
        let entity = YearPlanner.entity(year: year, month: month)
        let changes = values
        return try await writes.once(requestID) { db, outbox in
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

    private func clearEvent(_ requestID: String, _ arguments: Arguments) async throws -> JSONValue {
        let year = try arguments.int("year")
        let month = try arguments.int("month")
        try check { () throws(PlannerError) in
            try YearPlanner.validate(year: year, month: month, title: nil, location: nil, day: nil)
        }
        let entity = YearPlanner.entity(year: year, month: month)
        return try await writes.once(requestID) { db, outbox in
            guard try Self.card(year: year, month: month, in: db)?["title"] != .null else {
                throw CommandError(
                    code: "not_found", message: "the card for \(YearPlanner.monthName(month)) \(year) is already empty")
            }
            return try commit(entity, ["title": .null, "location": .null, "day": .null], in: db, outbox: outbox)
        }
    }

    private func listEvents(_ arguments: Arguments) async throws -> JSONValue {
        let year = try arguments.optionalInt("year") ?? Calendar(identifier: .gregorian).component(.year, from: Date())
        try check { () throws(PlannerError) in
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

    private func showEvent(_ arguments: Arguments) async throws -> JSONValue {
        let year = try arguments.int("year")
        let month = try arguments.int("month")
        try check { () throws(PlannerError) in
            try YearPlanner.validate(year: year, month: month, title: nil, location: nil, day: nil)
        }
        let entity = YearPlanner.entity(year: year, month: month)
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
            card["operations"] = .int(Int64(log.operations.count))
            return .object(card)
        }
    }

    // MARK: - Change feed

    private func changes(_ arguments: Arguments) async throws -> JSONValue {
        let since = try arguments.optionalInt("since") ?? 0
        let limit = try arguments.optionalInt("limit") ?? 10_000
        guard since >= 0 else { throw CommandError.invalidArgument("since", "must not be negative") }
        guard (1...10_000).contains(limit) else { throw CommandError.invalidArgument("limit", "must be 1–10000") }
        return try await database.pool.read { db in
            let rows = try Row.fetchCursor(
                try db.cachedStatement(
                    sql: """
                        SELECT change.seq, operation.id, operation.wall, operation.logical, operation.entity_kind,
                               operation.entity_id, operation.fields
                        FROM change JOIN operation ON operation.id = change.op_id
                        WHERE change.seq > ? ORDER BY change.seq LIMIT ?
                        """),
                arguments: [since, limit])
            // A page also stops short of the largest message the bus carries (the cursor reads no
            // further); `last_seq` tells the caller to ask again.
            var changes: [JSONValue] = []
            var bytes = 0
            while let row = try rows.next() {
                let fields: String = row[6]
                bytes += fields.utf8.count + 160
                if bytes > maximumReplyBytes && !changes.isEmpty { break }
                changes.append(.encoded(Self.encodedChange(seq: row[0], row: row, fields: fields)))
            }
            let last = try Int64.fetchOne(try db.cachedStatement(sql: "SELECT MAX(seq) FROM change")) ?? 0
            return ["changes": .array(changes), "last_seq": .int(last)]
        }
    }

    // MARK: - Helpers

    /// One change as JSON, written straight from its row: the stored fields text is already in
    /// the exchange format, so it is copied, not parsed and re-encoded (keys in sorted order, as
    /// `JSONWriter` writes them).
    static func encodedChange(seq: Int64, row: Row, fields: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(fields.utf8.count + 160)
        out.append(contentsOf: #"{"operation":{"entity":{"id":"#.utf8)
        JSONWriter.appendString(row[5], to: &out)
        out.append(contentsOf: #","kind":"#.utf8)
        JSONWriter.appendString(row[4], to: &out)
        out.append(contentsOf: #"},"fields":"#.utf8)
        out.append(contentsOf: fields.utf8)
        out.append(contentsOf: #","id":"#.utf8)
        JSONWriter.appendString(row[1], to: &out)
        out.append(contentsOf: #","time":{"logical":"#.utf8)
        out.append(contentsOf: String(row[3] as Int64).utf8)
        out.append(contentsOf: #","wall":"#.utf8)
        out.append(contentsOf: String(row[2] as Int64).utf8)
        out.append(contentsOf: #"}},"seq":"#.utf8)
        out.append(contentsOf: String(seq).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

    private func delayed(_ reply: JSONValue) async throws -> JSONValue {
        if replyDelay > .zero { try await Task.sleep(for: replyDelay) }
        return reply
    }

    /// Appends a local operation and publishes the change once the transaction has committed.
    func commit(
        _ entity: EntityRef, _ values: [String: FieldValue], in db: Database, outbox: ChangeOutbox
    ) throws -> JSONValue {
        let (operation, log) = try database.makeOperation(entity, values: values, in: db)
        guard let seq = try StoreDatabase.apply(operation, in: db, log: log) else {
            throw CommandError(code: "internal", message: "a fresh operation was already in the log")
        }
        let card = try Self.card(entity, in: db) ?? .null
        let data: JSONValue = [
            "entity": ["kind": .string(entity.kind), "id": .string(entity.id)],
            "op": .string(operation.id.description), "card": card, "operation": operation.json,
        ]
        outbox.add(ChangeEvent(topic: "store.\(entity.kind).changed", data: data, seq: UInt64(seq)))
        return ["seq": .int(seq), "op": .string(operation.id.description), "card": card]
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

    func check(_ body: () throws(PlannerError) -> Void) throws {
        do {
            try body()
        } catch {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
    }
}

/// Typed access to command arguments, with errors that name the argument and the rule.
struct Arguments {
    let values: [String: JSONValue]

    init(_ values: [String: JSONValue]) { self.values = values }

    func int(_ name: String) throws -> Int {
        guard let value = values[name], value != .null else { throw CommandError.invalidArgument(name, "is required") }
        guard let number = value.intValue else {
            throw CommandError.invalidArgument(name, "must be a whole number, found \(value.typeName)")
        }
        return Int(number)
    }

    func optionalInt(_ name: String) throws -> Int? {
        guard let value = values[name], value != .null else { return nil }
        return try int(name)
    }

    func optionalString(_ name: String) throws -> String? {
        guard let value = values[name], value != .null else { return nil }
        guard let text = value.stringValue else {
            throw CommandError.invalidArgument(name, "must be a string, found \(value.typeName)")
        }
        return text
    }
}
