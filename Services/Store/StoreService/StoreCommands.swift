import Foundation
import GRDB
import HearthBus
import HearthCore

/// The store's commands: argument checking, then one transaction each.
struct StoreCommands: Sendable {
    let database: StoreDatabase
    let writes: GroupCommit
    /// None in real use (`StoreFaults`).
    let faults: StoreFaults
    /// Replies are kept under this size (the bus's maximum message, less room for the envelope).
    let maximumReplyBytes: Int
    /// The household's time zone (`[household] time_zone`), for commands that read the wall
    /// clock (the social planner's windows and days).
    var timeZone = TimeZone.current
    /// How far along the long commands are (a timetable import, a calendar file), for the
    /// terminal's progress line (`progress {token}`).
    let progress = ProgressBoard()
    /// At most two searches read at once (`search`); the others wait their turn.
    let searches = ConcurrencyLimit(2)

    /// Runs one command: the core's own, or one a domain answers (`StoreDomain.handler`).
    typealias Handler = @Sendable (StoreCommands, CommandRequest) async throws -> JSONValue

    func handle(_ request: CommandRequest) async throws -> JSONValue {
        // The command labels the undo step its writes make (`UndoLog`).
        try await UndoLog.$command.withValue(request.command) { try await run(request) }
    }

    private func run(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = Arguments(request.arguments)
        do {
            switch request.command {
            case HistoryCommands.Changes.name:
                return try await changes(try request.decode(HistoryCommands.Changes.self))
            case ServiceCommands.Progress.name:
                return progress.json(try request.decode(ServiceCommands.Progress.self).token)
            case HistoryCommands.History.name:
                return try await history(try request.decode(HistoryCommands.History.self))
            case HistoryCommands.Conflicts.name: return try await conflicts()
            case HistoryCommands.Resolve.name:
                return try await delayed(
                    try await resolveConflict(request.id, try request.decode(HistoryCommands.Resolve.self)))
            case DeviceCommands.List.name: return try await devices()
            case DeviceCommands.Rename.name:
                return try await renameDevice(request.id, try request.decode(DeviceCommands.Rename.self))
            case DeviceCommands.Synced.name:
                return try await deviceSynced(try request.decode(DeviceCommands.Synced.self))
            case "ops.export": return try await exportOperations(arguments)
            case ExchangeCommands.Vector.name: return try await versionVector()
            case "ops.import": return try await importOperations(request.id, arguments)
            case ExchangeCommands.Quarantine.name:
                // Emptying it is a command of its own now: one name, one reply.
                if request.arguments["purge"] != nil {
                    throw CommandError.invalidArgument(
                        "purge", "is not ops.quarantine's: emptying the quarantine is ops.quarantine.purge")
                }
                return try await quarantineList()
            case ExchangeCommands.PurgeQuarantine.name: return try await purgeQuarantine()
            case ExchangeCommands.Forks.name: return try await forkedOperations()
            case DeviceCommands.Trust.name:
                return try await trustDevice(request.id, try request.decode(DeviceCommands.Trust.self))
            case DeviceCommands.Distrust.name:
                return try await distrustDevice(try request.decode(DeviceCommands.Distrust.self))
            case DeviceCommands.Revoke.name:
                return try await revokeDevice(request.id, try request.decode(DeviceCommands.Revoke.self))
            case ExchangeCommands.Resume.name: return try resumeAfterRestore()
            case ExchangeCommands.Backup.name: return try await backup(try request.decode(ExchangeCommands.Backup.self))
            case SearchCommands.Search.name: return try await search(try request.decode(SearchCommands.Search.self))
            case HistoryCommands.Undo.name: return try await undo(request.id, redo: false)
            case HistoryCommands.Redo.name: return try await undo(request.id, redo: true)
            case HistoryCommands.UndoSteps.name:
                return try await undoList(try request.decode(HistoryCommands.UndoSteps.self))
            default:
                guard let handler = StoreDomains.handler(for: request.command) else {
                    throw CommandError.unknownCommand(request.command, service: "store")
                }
                return try await handler(self, request)
            }
        } catch let error as RuleError {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
    }

    // MARK: - Change feed

    private func changes(_ command: HistoryCommands.Changes) async throws -> JSONValue {
        let since = command.since ?? 0
        let limit = command.limit ?? 10_000
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

    func delayed(_ reply: JSONValue) async throws -> JSONValue {
        if faults.replyDelay > .zero { try await Task.sleep(for: faults.replyDelay) }
        return reply
    }

    /// Appends a local operation and publishes the change once the transaction has committed.
    /// - Parameter overwriting: for a field, the writes it overwrites, instead of all the field's
    ///   current ones (undo reopening a conflict writes each side over the resolution alone, so
    ///   the sides stand beside each other again); such a write is made even of a value held.
    /// - Returns: the change's `seq`, the operation's id, and what its domain says of the entity.
    @discardableResult
    func commit(
        _ entity: EntityRef, _ values: [String: FieldValue], overwriting: [String: Set<OperationID>] = [:],
        in db: Database, outbox: ChangeOutbox
    ) throws -> JSONValue {
        let made = try database.makeOperation(entity, values: values, in: db)
        var operation = made.operation
        let log = made.log
        if !overwriting.isEmpty {
            var fields = operation.fields
            for (name, replaced) in overwriting where fields[name] != nil {
                fields[name] = FieldWrite(value: fields[name]!.value, overwrites: replaced)
            }
            operation = Operation(id: operation.id, time: operation.time, entity: entity, fields: fields)
        }
        // Saving what is already there writes nothing: no operation, no history line, no event.
        if overwriting.isEmpty && Self.holds(values, of: entity, log) {
            let description = try StoreDomains.domain(of: entity.kind).describe(entity, in: db)
            return .object(description.merging(["unchanged": true]) { $1 })
        }
        let signature = database.signer.sign(operation).text
        guard let seq = try StoreDatabase.apply(operation, signature: signature, in: db, log: log) else {
            throw CommandError(code: "internal", message: "a fresh operation was already in the log")
        }
        let description = try outbox.add(operation, seq: seq, in: db)
        outbox.wrote(operation)
        return .object(description.merging(["seq": .int(seq), "op": .string(operation.id.description)]) { $1 })
    }

    /// Whether `entity`'s log already holds every one of `values` (a field in conflict never
    /// does: setting it resolves the conflict), so saving them would write nothing.
    static func holds(_ values: [String: FieldValue], of entity: EntityRef, _ log: OperationLog) -> Bool {
        values.allSatisfy { name, value in
            guard let state = log.field(entity, name) else { return value == .null }
            return !state.isConflict && state.value == value
        }
    }

    /// Whether saving `values` on `entity` would change it (`commit` writes nothing otherwise).
    static func wouldChange(_ entity: EntityRef, _ values: [String: FieldValue], in db: Database) throws -> Bool {
        !holds(values, of: entity, try StoreDatabase.log(of: entity, in: db))
    }

    /// Runs a domain rule check, turning its `RuleError` into the command's refusal naming the
    /// field; returns what the check returns (a parsed date, a trimmed title…).
    @discardableResult
    func check<T>(_ body: () throws(RuleError) -> T) throws -> T {
        do {
            return try body()
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
