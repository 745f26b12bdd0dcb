import Foundation
import GRDB
import HearthBus
import HearthCore

/// `undo`, `redo` and `undo.list {limit?}`: this device's changes taken back and brought back
/// (`UndoLog` keeps the steps).
///
/// An undo writes new operations restoring each field the step wrote to the value it held before
/// (an entity the step created is deleted), so it syncs, stays in history and can be redone. A
/// field another device (or a later change here) wrote since is left as it is, and the reply
/// says so: undo never takes back what someone else did. A redo takes back the undo the same way.
extension StoreCommands {
    func undoList(_ arguments: HistoryCommands.UndoSteps) async throws -> JSONValue {
        let limit = arguments.limit ?? 20
        guard (1...UndoLog.kept).contains(limit) else {
            throw CommandError.invalidArgument("limit", "must be 1–\(UndoLog.kept)")
        }
        return try await database.pool.read { db in
            // A student's profile is not shown the steps it may not take back (another member's
            // lessons, the school's settings), as it is not let to edit those directly.
            let profile = try HubCommands.profile(in: db)
            var steps: [UndoStep] = []
            // A cursor: read no further than the steps shown.
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM undo_step ORDER BY seq DESC")
            while steps.count < limit, let row = try rows.next() {
                if let profile, profile.role == .student,
                    try Self.refusal(of: try Self.stepOperations(row, "ops", in: db), to: profile, in: db) != nil
                {
                    continue
                }
                steps.append(try Self.step(row))
            }
            func exists(_ state: String) throws -> Bool {
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM undo_step WHERE state = ?)", arguments: [state]) ?? false
            }
            return try JSONValue(
                reply: UndoList(steps: steps, canUndo: try exists("done"), canRedo: try exists("undone")))
        }
    }

    func undo(_ requestID: String, redo: Bool) async throws -> JSONValue {
        try await writes.once(requestID) { db, outbox in
            let sql =
                redo
                ? "SELECT * FROM undo_step WHERE state = 'undone' ORDER BY undone_order DESC LIMIT 1"
                : "SELECT * FROM undo_step WHERE state = 'done' ORDER BY seq DESC LIMIT 1"
            guard let row = try Row.fetchOne(db, sql: sql) else {
                throw redo
                    ? CommandError(
                        code: "nothing_to_redo",
                        message: "nothing to redo on this device (a change made after an undo ends what can be redone)")
                    : CommandError(code: "nothing_to_undo", message: "nothing to undo on this device")
            }
            let seq: Int64 = row["seq"]
            let ids =
                try JSONValue.parse((row[redo ? "undo_ops" : "ops"] as String?) ?? "[]").arrayValue?
                .compactMap(\.stringValue) ?? []
            // What a student's profile may not edit, it may not take back either (issue 62: undo
            // deleted another member's lesson that editing refused).
            if let profile = try HubCommands.profile(in: db), profile.role == .student,
                let what = try Self.refusal(of: try Self.stepOperations(row, "ops", in: db), to: profile, in: db)
            {
                throw CommandError(
                    code: "not_allowed",
                    message:
                        "this device's profile is \(profile.name)'s, a student's: it may not \(redo ? "redo" : "undo") a change to \(what) (a parent's profile may)"
                )
            }
            let (restored, left) = try reverse(ids, in: db, outbox: outbox)
            let written = UndoLog.ids(outbox.written)
            if redo {
                try db.execute(
                    sql:
                        "UPDATE undo_step SET state = 'done', ops = ?, undo_ops = NULL, undone_order = NULL, undone_at = NULL WHERE seq = ?",
                    arguments: [written, seq])
            } else {
                try db.execute(
                    sql: """
                        UPDATE undo_step SET state = 'undone', undo_ops = ?, undone_at = ?,
                            undone_order = (SELECT COALESCE(MAX(undone_order), 0) + 1 FROM undo_step)
                        WHERE seq = ?
                        """, arguments: [written, Int64(Date().timeIntervalSince1970 * 1000), seq])
            }
            guard let step = try Row.fetchOne(db, sql: "SELECT * FROM undo_step WHERE seq = ?", arguments: [seq]) else {
                throw CommandError(code: "internal", message: "the undo step vanished")
            }
            return try JSONValue(
                reply: UndoReport(
                    action: redo ? "redo" : "undo", step: Self.step(step), restored: Array(restored.prefix(20)),
                    left: Array(left.prefix(20)), restoredTotal: restored.count, leftTotal: left.count,
                    operations: outbox.written.count))
        }
    }

    /// Writes operations taking back `ids` (a step's, in the order written): per entity, each
    /// field's value before the step's first write of it, where the field still holds what the
    /// step's last write of it left.
    private func reverse(_ ids: [String], in db: Database, outbox: ChangeOutbox) throws -> ([String], [String]) {
        let operations = try ids.compactMap { try OperationRecord.held($0, in: db)?.operation }
        let mine = Set(ids)
        var order: [EntityRef] = []
        var writes: [EntityRef: [String: (first: Operation, last: Operation)]] = [:]
        for operation in operations {
            if writes[operation.entity] == nil { order.append(operation.entity) }
            for name in operation.fields.keys {
                let first = writes[operation.entity]?[name]?.first ?? operation
                writes[operation.entity, default: [:]][name] = (first, operation)
            }
        }
        // Children before what holds them (a todo before its list), so what the step made inside
        // what it made goes first, and whatever is still inside after is someone else's.
        let ranked = order.enumerated().sorted {
            (Self.holderRank($0.element), $0.offset) < (Self.holderRank($1.element), $1.offset)
        }
        var outcomes: [EntityRef: (restored: String?, left: String?)] = [:]
        for (_, entity) in ranked {
            outcomes[entity] = try reverse(entity, writes[entity] ?? [:], mine: mine, in: db, outbox: outbox)
        }
        // Reported in the order the step wrote them.
        var (restored, left) = ([String](), [String]())
        for entity in order {
            if let line = outcomes[entity]?.restored { restored.append(line) }
            if let line = outcomes[entity]?.left { left.append(line) }
        }
        return (restored, left)
    }

    /// Takes back one entity's writes: the line for what was restored, or for what was left.
    private func reverse(
        _ entity: EntityRef, _ fields: [String: (first: Operation, last: Operation)], mine: Set<String>,
        in db: Database, outbox: ChangeOutbox
    ) throws -> (restored: String?, left: String?) {
        let state = try StoreDatabase.log(of: entity, in: db).entity(entity)
        // Named from the values just read, not by reading the entity's log again.
        let name = try UndoLog.name(of: entity, written: state.mapValues(\.value), in: db)
        // Changed since: the field's value is no longer what the step left (or is in
        // conflict), or someone else wrote it since, even the same value: a tick on a shared
        // chore made on two devices is both of theirs, and an undo takes back only its own.
        let changed = fields.filter { field, pair in
            guard let now = state[field] else { return true }
            // A conflict this step's own writes reopened (the redo of an undone resolution).
            if now.isConflict && now.heads.allSatisfy({ mine.contains($0.id.description) }) { return false }
            return now.isConflict || now.value != pair.last.fields[field]?.value
                || !now.heads.allSatisfy { $0.id.device == pair.last.id.device }
        }.keys.sorted()
        // Fields whose first write here resolved a conflict ("Keep this"): taken back, the
        // conflict is open again, each side as it was.
        var reopen: [String: [FieldValue]] = [:]
        for (field, pair) in fields where !changed.contains(field) {
            if let sides = try Self.conflictSides(field, resolvedBy: pair.first, in: db) { reopen[field] = sides }
        }
        var values: [String: FieldValue] = [:]
        var left: String?
        if try created(entity, by: fields.values.map(\.first), in: db), Self.deletable(entity) {
            // Deleting what the step made would also delete what others wrote on it since.
            // (A field cleared since, to null, holds nothing of theirs.)
            let others = state.filter { field, now in
                fields[field] == nil && !now.heads.allSatisfy { mine.contains($0.id.description) }
                    && (now.isConflict || now.value != .null)
            }.keys.sorted()
            guard changed.isEmpty && others.isEmpty else {
                return (nil, try leftLine(name, changed + others, state, in: db))
            }
            // Nor what others put in it: a list with Bob's todo, a todo with his subtask.
            if let line = try heldLine(name, entity, in: db) { return (nil, line) }
            values = ["deleted": .bool(true)]
        } else {
            for (field, pair) in fields where !changed.contains(field) && reopen[field] == nil {
                values[field] = try previous(field, before: pair.first, in: db)
            }
            if !changed.isEmpty { left = try leftLine(name, changed, state, in: db) }
        }
        guard !values.isEmpty || !reopen.isEmpty else { return (nil, left) }
        do {
            try db.inSavepoint {
                if !values.isEmpty { try commit(entity, values, in: db, outbox: outbox) }
                for (field, sides) in reopen.sorted(by: { $0.key < $1.key }) {
                    // Each side over the resolution alone: none overwrites another.
                    let resolution = Set(state[field]?.heads.map(\.id) ?? [])
                    for side in sides {
                        try commit(entity, [field: side], overwriting: [field: resolution], in: db, outbox: outbox)
                    }
                }
                return .commit
            }
        } catch let error as RuleError {
            return (nil, "\(name): cannot be restored (\(error))")
        }
        let reopened = reopen.keys.sorted().map { "\(UndoLog.fieldWord($0)) in conflict again" }
        let restoredFields = (values.keys.filter { $0 != "deleted" }.sorted().map(UndoLog.fieldWord) + reopened)
            .joined(separator: ", ")
        // Named by what it is now (`todo 'Buy milk': title`, not the title just taken back).
        let now = values["deleted"] == .bool(true) ? name : try UndoLog.name(of: entity, written: values, in: db)
        switch values["deleted"] {
        case .bool(true)?: return ("\(now): removed", left)
        case .bool(false)?:
            return ("\(now): back" + (restoredFields.isEmpty ? "" : ", \(restoredFields)"), left)
        default: return ("\(now): \(restoredFields)", left)
        }
    }

    /// Kinds whose entities others add to, and where: the table of what they hold, its id, the
    /// column naming the holder, and the kind of what is held.
    private static let held: [String: [(table: String, id: String, column: String, kind: String)]] = [
        Todos.collectionKind: [("todo", "id", "collection", Todos.todoKind)],
        Todos.todoKind: [
            ("todo_subtask", "id", "todo", Todos.subtaskKind),
            ("todo_completion", "template || '@' || date", "template", Todos.completionKind),
            ("todo_skip", "template || '@' || date", "template", Todos.completionKind),
        ],
        Hub.memberKind: [
            ("timetable_entry", "id", "member", Hub.entryKind), ("todo", "id", "assignee", Todos.todoKind),
        ],
        Social.personKind: [
            ("social_goal", "person", "person", Social.goalKind), ("plan_item", "id", "person", Social.itemKind),
            ("interaction", "id", "person", Social.interactionKind),
        ],
    ]

    /// What is taken back first: what is held (0), a todo (1, held by a list), then what holds
    /// only (2).
    private static func holderRank(_ entity: EntityRef) -> Int {
        guard held[entity.kind] != nil else { return 0 }
        return entity.kind == Todos.todoKind ? 1 : 2
    }

    /// `collection 'Home': holds todo 'Milk' added on Bob's phone (and 2 more); left as it is`, when
    /// `entity` still holds anything (what the step itself put in it and could take back is gone
    /// by now: what is held is taken back first).
    private func heldLine(_ name: String, _ entity: EntityRef, in db: Database) throws -> String? {
        var inside: [EntityRef] = []
        for place in Self.held[entity.kind] ?? [] {
            let ids = try String.fetchAll(
                db, sql: "SELECT \(place.id) FROM \(place.table) WHERE \(place.column) = ? ORDER BY 1 LIMIT 21",
                arguments: [entity.id])
            inside += ids.map { EntityRef(kind: place.kind, id: $0) }
        }
        guard let first = inside.first else { return nil }
        let author = try String.fetchOne(
            db,
            sql: """
                SELECT COALESCE(d.name, o.device) FROM operation o LEFT JOIN device d ON d.id = o.device
                WHERE o.entity_kind = ? AND o.entity_id = ? ORDER BY o.wall, o.logical LIMIT 1
                """, arguments: [first.kind, first.id])
        let more = inside.count > 1 ? " (and \(inside.count > 20 ? "20+" : String(inside.count - 1)) more)" : ""
        return "\(name): holds \(try UndoLog.name(of: first, in: db))"
            + (author.map { " added on \($0)" } ?? "") + "\(more); left as it is"
    }

    /// Whether the step's earliest write of `entity` is the entity's first operation at all.
    private func created(_ entity: EntityRef, by firsts: [Operation], in db: Database) throws -> Bool {
        guard let first = firsts.min(by: { $0.time < $1.time }) else { return false }
        let older = try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM operation WHERE entity_kind = ? AND entity_id = ?
                AND (wall < ? OR (wall = ? AND logical < ?))
                """,
            arguments: [entity.kind, entity.id, first.time.wall, first.time.wall, Int64(first.time.logical)])
        return older == 0
    }

    /// The values in conflict that `operation`'s write of `field` resolved (two or more writes it
    /// overwrote, with different values), oldest first; nil when it resolved none.
    private static func conflictSides(
        _ field: String, resolvedBy operation: Operation, in db: Database
    ) throws
        -> [FieldValue]?
    {
        guard let overwritten = operation.fields[field]?.overwrites, overwritten.count > 1 else { return nil }
        let writes = try overwritten.compactMap { try OperationRecord.held($0.description, in: db)?.operation }
            .sorted { $0.time < $1.time }.compactMap { $0.fields[field]?.value }
        var sides: [FieldValue] = []
        for value in writes where !sides.contains(value) { sides.append(value) }
        return sides.count > 1 ? sides : nil
    }

    /// A field's value before `operation` wrote it: the latest of the writes it overwrote; never
    /// written, `null`, or `false` for a true-or-false field (`done`, `deleted`), which reads so
    /// unset and refuses `null`.
    private func previous(_ field: String, before operation: Operation, in db: Database) throws -> FieldValue {
        let replaced = try (operation.fields[field]?.overwrites ?? []).compactMap {
            try OperationRecord.held($0.description, in: db)?.operation
        }
        guard let latest = replaced.max(by: { $0.time < $1.time }), let write = latest.fields[field] else {
            if case .bool? = operation.fields[field]?.value { return .bool(false) }
            return .null
        }
        return write.value
    }

    /// `todo 'Buy milk': title, due changed on Bob's phone since; left as it is`.
    private func leftLine(
        _ name: String, _ fields: [String], _ state: [String: OperationLog.FieldState], in db: Database
    ) throws -> String {
        let devices = Set(fields.flatMap { state[$0]?.heads ?? [] }.map(\.id.device))
        var names: [String] = []
        for device in devices.sorted() {
            let name =
                try String.fetchOne(db, sql: "SELECT name FROM device WHERE id = ?", arguments: [device]) ?? device
            if !names.contains(name) { names.append(name) }
        }
        let by = names.isEmpty ? "" : " on \(names.joined(separator: " and "))"
        return "\(name): \(fields.joined(separator: ", ")) changed\(by) since; left as it is"
    }

    /// Whether the entity's kind removes one by `deleted` (todos, lessons, people…; a year
    /// planner card is cleared instead, field by field).
    /// The operations a step's `column` (`ops`, `undo_ops`) names, as held.
    private static func stepOperations(_ row: Row, _ column: String, in db: Database) throws -> [Operation] {
        let ids = try JSONValue.parse((row[column] as String?) ?? "[]").arrayValue?.compactMap(\.stringValue) ?? []
        return try ids.compactMap { try OperationRecord.held($0, in: db)?.operation }
    }

    /// What in `operations` a student's `profile` may not edit (another member's lessons or
    /// profile, the school's settings), named; nil when it may edit all of it.
    private static func refusal(
        of operations: [Operation], to profile: HubCommands.Member, in db: Database
    ) throws -> String? {
        func memberName(_ id: String) throws -> String {
            try String.fetchOne(db, sql: "SELECT name FROM member WHERE id = ?", arguments: [id]) ?? "another member"
        }
        for operation in operations {
            switch operation.entity.kind {
            case Hub.entryKind:
                var owner: String?
                if case .text(let member)? = operation.fields["member"]?.value { owner = member }
                owner =
                    try owner
                    ?? String.fetchOne(
                        db, sql: "SELECT member FROM timetable_entry WHERE id = ?", arguments: [operation.entity.id])
                if let owner, owner != profile.id { return "\(try memberName(owner))'s timetable" }
            case Hub.memberKind where operation.entity.id != profile.id:
                return "\(try memberName(operation.entity.id))'s profile"
            case Hub.bellKind, Hub.holidayKind, Hub.overrideKind, Hub.settingsKind:
                return "the school's settings"
            default: continue
            }
        }
        return nil
    }

    private static func deletable(_ entity: EntityRef) -> Bool {
        let probe = Operation(
            id: OperationID(device: "probe", counter: 1), time: HybridTime(wall: 0), entity: entity,
            fields: ["deleted": FieldWrite(value: .bool(true))])
        return (try? StoreDomains.domain(of: entity.kind).validate(probe)) != nil
    }

    private static func step(_ row: Row) throws -> UndoStep {
        let changes = try JSONValue.parse(row["changes"] as String).arrayValue?.compactMap(\.stringValue) ?? []
        return UndoStep(
            seq: row["seq"], command: row["command"], summary: row["summary"], changes: changes,
            entities: row["entities"], at: row["at"], state: row["state"], undoneAt: row["undone_at"])
    }
}
