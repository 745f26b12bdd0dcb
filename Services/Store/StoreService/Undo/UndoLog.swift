import Foundation
import GRDB
import HearthBus
import HearthCore

/// This device's undo history: each command that wrote operations here is one step (a timetable
/// import, a copy of a week, a template applied: one step however many entities), kept in
/// `undo_step`, a local table that never syncs. What undo writes is new operations
/// (`StoreCommands+Undo`), so the undo itself syncs and keeps history.
enum UndoLog {
    /// The command being handled, set by `StoreCommands.handle` for the group commit to label the
    /// step with.
    @TaskLocal static var command: String?

    /// Commands whose operations are not a person's change to take back: undo and redo
    /// themselves, what arrives from other devices, and the services' bookkeeping (a reminder
    /// or class notification recorded as raised, a calendar that failed to fetch).
    static let notRecorded: Set<String> = [
        "undo", "redo", "ops.import", "device.trust", "device.revoke", "device.rename", "reminder.record",
        "class.record",
        "plan.record", "plan.busy.failed", "member.use",
    ]

    /// This many steps are kept (up to 50 more between trims); older ones are forgotten, their
    /// changes staying.
    static let kept = 200

    static func registerMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("core: this device's undo steps") { db in
            try db.create(table: "undo_step") { table in
                table.autoIncrementedPrimaryKey("seq")
                table.column("request", .text).notNull()
                table.column("command", .text).notNull()
                table.column("summary", .text).notNull()
                /// A JSON array of `entity: fields` lines.
                table.column("changes", .text).notNull()
                table.column("entities", .integer).notNull()
                table.column("at", .integer).notNull()
                /// The operations that undo takes back, in the order written: the command's, or
                /// after a redo the redo's (a JSON array of ids).
                table.column("ops", .text).notNull()
                /// `done`, `undone` or `dropped`.
                table.column("state", .text).notNull()
                /// The undo's operations, which redo takes back.
                table.column("undo_ops", .text)
                /// The order of undoing, so redo brings back the last undone first.
                table.column("undone_order", .integer)
                /// When it was undone (ms since 1970), while it is.
                table.column("undone_at", .integer)
            }
            try db.create(index: "undo_step_state", on: "undo_step", columns: ["state"])
        }
    }

    /// Records a command's operations as one step, in its transaction; a new change ends what
    /// could be redone, as in every editor.
    static func record(command: String, request: String, operations: [Operation], in db: Database) throws {
        guard !notRecorded.contains(command), !operations.isEmpty else { return }
        let (summary, changes, entities) = try describe(operations, in: db)
        // Cached statements: this runs in every command's transaction (`hearth-bench store`).
        try db.cachedStatement(sql: "UPDATE undo_step SET state = 'dropped' WHERE state = 'undone'").execute()
        try db.cachedStatement(
            sql: """
                INSERT INTO undo_step (request, command, summary, changes, entities, at, ops, state)
                VALUES (?, ?, ?, ?, ?, ?, ?, 'done')
                """
        ).execute(arguments: [
            request, command, summary, JSONValue.array(changes.map { .string($0) }).jsonText, entities,
            Int64(Date().timeIntervalSince1970 * 1000), ids(operations),
        ])
        // The oldest forgotten now and then, not on every change.
        let seq = db.lastInsertedRowID
        if seq % 50 == 0 {
            try db.cachedStatement(sql: "DELETE FROM undo_step WHERE seq <= ?").execute(arguments: [seq - Int64(kept)])
        }
    }

    /// Makes the steps one command wrote in several transactions (a big import, each part its
    /// own `requests` id) one step, in the last one's place: undo takes it back whole.
    static func merge(requests: [String], in db: Database) throws {
        guard requests.count > 1 else { return }
        let marks = Array(repeating: "?", count: requests.count).joined(separator: ", ")
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT * FROM undo_step WHERE state = 'done' AND request IN (\(marks)) ORDER BY seq",
            arguments: StatementArguments(requests))
        guard let first = rows.first, let last = rows.last, rows.count > 1 else { return }
        func strings(_ row: Row, _ column: String) throws -> [JSONValue] {
            try JSONValue.parse(row[column] as String).arrayValue ?? []
        }
        let operations = try rows.flatMap { try strings($0, "ops") }
        let changes = try rows.flatMap { try strings($0, "changes") }.prefix(20)
        let entities = rows.reduce(0) { $0 + ($1["entities"] as Int) }
        // The first part's summary names the first entity (`todo 'Milk' and 499 more`).
        let firstSummary: String = first["summary"]
        let firstEntities: Int = first["entities"]
        let suffix = firstEntities > 1 ? " and \(firstEntities - 1) more" : ""
        let name = firstSummary.hasSuffix(suffix) ? String(firstSummary.dropLast(suffix.count)) : firstSummary
        try db.execute(
            sql: "UPDATE undo_step SET summary = ?, changes = ?, entities = ?, ops = ? WHERE seq = ?",
            arguments: [
                name + (entities > 1 ? " and \(entities - 1) more" : ""), JSONValue.array(Array(changes)).jsonText,
                entities, JSONValue.array(operations).jsonText, last["seq"] as Int64,
            ])
        for row in rows.dropLast() {
            try db.execute(sql: "DELETE FROM undo_step WHERE seq = ?", arguments: [row["seq"] as Int64])
        }
    }

    static func ids(_ operations: [Operation]) -> String {
        JSONValue.array(operations.map { .string($0.id.description) }).jsonText
    }

    /// A step's summary (`todo 'Buy milk'`, `… and 60 more`), its changes (an entity and its
    /// fields a line, at most 20) and how many entities.
    static func describe(_ operations: [Operation], in db: Database) throws -> (String, [String], Int) {
        var order: [EntityRef] = []
        var fields: [EntityRef: [String]] = [:]
        for operation in operations {
            if fields[operation.entity] == nil { order.append(operation.entity) }
            for name in operation.fields.keys.sorted() where !(fields[operation.entity]?.contains(name) ?? false) {
                fields[operation.entity, default: []].append(name)
            }
        }
        // The latest value each entity was given here, so most names need no read.
        var written: [EntityRef: [String: FieldValue]] = [:]
        for operation in operations {
            written[operation.entity, default: [:]].merge(operation.fields.mapValues(\.value)) { $1 }
        }
        let names = try order.prefix(20).map { try name(of: $0, written: written[$0] ?? [:], in: db) }
        let changes = zip(order.prefix(20), names).map { entity, name in
            "\(name): \((fields[entity] ?? []).map(fieldWord).joined(separator: ", "))"
        }
        let summary = (names.first ?? "nothing") + (order.count > 1 ? " and \(order.count - 1) more" : "")
        return (summary, changes, order.count)
    }

    /// A field as a person says it (`shown in calendar`, not `show_in_calendar`).
    static func fieldWord(_ field: String) -> String {
        fieldWords[field] ?? field.replacingOccurrences(of: "_", with: " ")
    }

    private static let fieldWords: [String: String] = [
        "show_in_calendar": "shown in calendar", "due_date": "due", "due_time": "time", "done": "done",
        "remind": "reminder", "month_end": "month end", "week1_start": "week 1 start", "deleted": "removed",
        "sort_order": "order", "class_alert": "class alerts",
    ]

    /// What a person calls each kind of entity: each domain says (`StoreDomain.kindNames`).
    static var kindNames: [String: String] { StoreDomains.kindNames }

    /// How a person knows an entity: what it is and how its domain names it (`todo 'Buy milk'`,
    /// `check-in for 'Sam'`, `done mark on 'Water' for 2026-12-08`: `StoreDomain.stepName`); else
    /// by its id's start.
    /// - Parameter written: values just written, looked at before the log.
    static func name(
        of entity: EntityRef, written: [String: FieldValue] = [:], in db: Database
    ) throws -> String {
        let kind = kindNames[entity.kind] ?? entity.kind
        if let domain = try? StoreDomains.domain(of: entity.kind),
            let name = try domain.stepName(of: entity, reading: StepFields(entity, written: written, in: db))
        {
            return "\(kind) \(name)"
        }
        // A UUID by its start; an id that is a name already (a note's day) whole.
        return "\(kind) \(Todos.isEntityID(entity.id) ? String(entity.id.prefix(8)) : entity.id)"
    }
}
