import Foundation
import GRDB
import HearthBus
import HearthCore

/// Editing members' timetables: one lesson at a time, or a lesson, a day or a week copied.
/// Every change that makes a clash says so in its reply (`clashes`): clashes are allowed, since
/// real timetables share registration rooms, but never silent.
extension HubCommands {
    /// The slot and lesson fields of an add or edit, from text as a person types it.
    private struct EntryFields {
        var values: [String: FieldValue] = [:]
        var slot: (week: Int, day: SchoolDay, period: Period)?

        init(_ lesson: TimetableCommands.LessonFields) throws {
            let (week, day, period) = (lesson.week?.text, lesson.day?.text, lesson.period?.text)
            if week != nil || day != nil || period != nil {
                guard let week, let day, let period else {
                    throw CommandError.invalidArgument("week", "and 'day' and 'period' must be given together")
                }
                slot = try HubCommands.slot(week: week, day: day, period: period)
            }
            if let slot {
                values["week"] = .int(Int64(slot.week))
                values["day"] = .int(Int64(slot.day.rawValue))
                values["period"] = .text(slot.period.code)
            }
            if let subject = lesson.subject {
                values["subject"] = .text(
                    try Self.check { () throws(RuleError) in
                        try Hub.required(subject, field: "subject", maximumLength: Hub.maximumSubjectLength)
                    })
            }
            if let room = lesson.room {
                values["room"] = .text(
                    try Self.check { () throws(RuleError) in
                        try Hub.required(room, field: "room", maximumLength: Hub.maximumCodeLength)
                    })
            }
            if let teacher = lesson.teacher {
                let checked = try Self.check { () throws(RuleError) in
                    try Hub.optional(teacher, field: "teacher", maximumLength: Hub.maximumCodeLength)
                }
                values["teacher"] = checked.map(FieldValue.text) ?? .null
            }
            for (name, given) in [("start", lesson.start), ("end", lesson.end)] {
                guard let text = given else { continue }
                values[name] =
                    text.isEmpty
                    ? .null
                    : .text(
                        try Self.check { () throws(RuleError) in try LocalTime(parsing: text, field: name) }.description
                    )
            }
        }

        private static func check<T>(_ body: () throws(RuleError) -> T) throws -> T {
            do { return try body() } catch { throw CommandError.invalidArgument(error.field, error.rule) }
        }
    }

    /// A slot from the words a person types.
    static func slot(week: String, day: String, period: String) throws -> (week: Int, day: SchoolDay, period: Period) {
        do {
            return (try Hub.week(week), try SchoolDay(parsing: day), try Period(parsing: period))
        } catch {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
    }

    func addEntry(_ command: TimetableCommands.Add, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.member
        let fields = try EntryFields(
            TimetableCommands.LessonFields(
                week: command.week, day: command.day, period: command.period, subject: command.subject,
                room: command.room, teacher: command.teacher, start: command.start, end: command.end))
        let entity = EntityRef(kind: Hub.entryKind, id: UUIDText.make())
        return try await writes.once(request.id) { db, outbox in
            let member = try Self.access(given, to: "edit", in: db)
            try Self.refuseTakenSlot(fields.slot!, of: member, except: nil, in: db)
            var values = fields.values
            values["member"] = .text(member.id)
            try check { () throws(RuleError) in try Hub.checkEntry(values) }
            try commit(entity, values, in: db, outbox: outbox)
            return try Self.entryReply([entity.id], in: db)
        }
    }

    func editEntry(_ command: TimetableCommands.Edit, _ request: CommandRequest) async throws -> JSONValue {
        let (given, member) = (command.entry, command.member)
        let fields = try EntryFields(command.lesson)
        guard !fields.values.isEmpty else {
            throw CommandError.invalidArgument(
                "subject", "or 'room', 'teacher', 'start', 'end' or a new 'week', 'day' and 'period' must be given")
        }
        return try await writes.once(request.id) { db, outbox in
            let (id, owner) = try Self.entry(given, member: member, to: "edit", in: db)
            if let slot = fields.slot { try Self.refuseTakenSlot(slot, of: owner, except: id, in: db) }
            // The rule between its fields, on the lesson it will be (a new end against the start
            // it already has).
            let state = try Self.entryValues(id, in: db).merging(fields.values) { $1 }
            try check { () throws(RuleError) in try Hub.checkEntry(state) }
            try commit(EntityRef(kind: Hub.entryKind, id: id), fields.values, in: db, outbox: outbox)
            return try Self.entryReply([id], in: db)
        }
    }

    func removeEntry(_ command: TimetableCommands.Remove, _ request: CommandRequest) async throws -> JSONValue {
        let (given, member) = (command.entry, command.member)
        return try await writes.once(request.id) { db, outbox in
            let (id, _) = try Self.entry(given, member: member, to: "edit", in: db)
            return try commit(EntityRef(kind: Hub.entryKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
        }
    }

    /// Copies one lesson into another slot of the same member.
    func duplicateEntry(_ command: TimetableCommands.Duplicate, _ request: CommandRequest) async throws -> JSONValue {
        let (given, member) = (command.entry, command.member)
        let fields = try EntryFields(command.lesson)
        guard let slot = fields.slot else {
            throw CommandError.invalidArgument("week", "and 'day' and 'period' are required")
        }
        let entity = EntityRef(kind: Hub.entryKind, id: UUIDText.make())
        return try await writes.once(request.id) { db, outbox in
            let (id, owner) = try Self.entry(given, member: member, to: "edit", in: db)
            try Self.refuseTakenSlot(slot, of: owner, except: nil, in: db)
            var values = try Self.entryValues(id, in: db)
            values.merge(fields.values) { $1 }
            try check { () throws(RuleError) in try Hub.checkEntry(values) }
            try commit(entity, values, in: db, outbox: outbox)
            return try Self.entryReply([entity.id], in: db)
        }
    }

    /// Copies a day (`from` "1 Mon") onto another (`to` "2 Tue"), replacing what the target held.
    func copyDay(_ command: TimetableCommands.CopyDay, _ request: CommandRequest) async throws -> JSONValue {
        let member = command.member
        let from = try Self.weekDay(command.from, field: "from")
        let to = try Self.weekDay(command.to, field: "to")
        guard from != to else { throw CommandError.invalidArgument("to", "must be another day than 'from'") }
        return try await writes.once(request.id) { db, outbox in
            let owner = try Self.access(member, to: "edit", in: db)
            return try copy(owner, from: from, to: to, in: db, outbox: outbox)
        }
    }

    /// Copies a week onto the other (`from` 1, `to` 2), replacing what the target held.
    func copyWeek(_ command: TimetableCommands.CopyWeek, _ request: CommandRequest) async throws -> JSONValue {
        let (member, fromText, toText) = (command.member, command.from.text, command.to.text)
        let from = try check { () throws(RuleError) in try Hub.week(fromText, field: "from") }
        let to = try check { () throws(RuleError) in try Hub.week(toText, field: "to") }
        guard from != to else { throw CommandError.invalidArgument("to", "must be the other week than 'from'") }
        return try await writes.once(request.id) { db, outbox in
            let owner = try Self.access(member, to: "edit", in: db)
            return try copy(owner, from: (from, nil), to: (to, nil), in: db, outbox: outbox)
        }
    }

    /// Replaces `owner`'s lessons in `to` (a week, or one day of it) by copies of those in `from`.
    private func copy(
        _ owner: Member, from: (week: Int, day: SchoolDay?), to: (week: Int, day: SchoolDay?), in db: Database,
        outbox: ChangeOutbox
    ) throws -> JSONValue {
        let select = "SELECT id, day FROM timetable_entry WHERE member = ? AND week = ? AND (? IS NULL OR day = ?)"
        let replaced = try Row.fetchAll(
            db, sql: select, arguments: [owner.id, to.week, to.day?.rawValue, to.day?.rawValue])
        for row in replaced {
            try commit(EntityRef(kind: Hub.entryKind, id: row["id"]), ["deleted": .bool(true)], in: db, outbox: outbox)
        }
        var copies: [String] = []
        for row in try Row.fetchAll(
            db, sql: select, arguments: [owner.id, from.week, from.day?.rawValue, from.day?.rawValue])
        {
            var values = try Self.entryValues(row["id"], in: db)
            values["week"] = .int(Int64(to.week))
            if let day = to.day { values["day"] = .int(Int64(day.rawValue)) }
            let entity = EntityRef(kind: Hub.entryKind, id: UUIDText.make())
            try commit(entity, values, in: db, outbox: outbox)
            copies.append(entity.id)
        }
        var reply = try Self.lessonsChanged(copies, in: db)
        reply.replaced = replaced.count
        return try JSONValue(reply: reply)
    }

    /// "1 Mon", "Week 2 Tuesday": a week and a day.
    static func weekDay(_ text: String, field: String) throws -> (week: Int, day: SchoolDay?) {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard words.count >= 2 else {
            throw CommandError.invalidArgument(field, "must be a week and a day such as '1 Mon', got '\(text)'")
        }
        do {
            return (
                try Hub.week(words.dropLast().joined(separator: " "), field: field),
                try SchoolDay(parsing: words.last!, field: field)
            )
        } catch {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
    }

    // MARK: - Lookups

    /// The lesson `given` names — its id (or a unique prefix), or a slot of the member such as
    /// `1 Mon 3` or `2 Fri AM Reg` — with its member, if this profile may `action` it.
    static func entry(_ given: String, member: String?, to action: String, in db: Database) throws -> (String, Member) {
        let words = given.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.count >= 3,
            let slot = try? slot(week: words[0], day: words[1], period: words[2...].joined(separator: " "))
        {
            let owner = try access(member, to: action, in: db)
            guard
                let id = try String.fetchOne(
                    db, sql: "SELECT id FROM timetable_entry WHERE member = ? AND week = ? AND day = ? AND period = ?",
                    arguments: [owner.id, slot.week, slot.day.rawValue, slot.period.rawValue])
            else {
                throw CommandError(
                    code: "not_found", message: "'entry': \(owner.name) has no lesson in \(describe(slot))")
            }
            return (id, owner)
        }
        let id = try StoreCommands.uniqueID(
            given, table: "timetable_entry", what: "timetable entry", field: "entry", in: db)
        let memberID = try String.fetchOne(db, sql: "SELECT member FROM timetable_entry WHERE id = ?", arguments: [id])
        let name = try String.fetchOne(db, sql: "SELECT name FROM member WHERE id = ?", arguments: [memberID])
        return (id, try access(name ?? memberID ?? "", to: action, in: db))
    }

    static func describe(_ slot: (week: Int, day: SchoolDay, period: Period)) -> String {
        "week \(slot.week) \(slot.day.name) period \(slot.period.name)"
    }

    static func refuseTakenSlot(
        _ slot: (week: Int, day: SchoolDay, period: Period), of member: Member, except id: String?, in db: Database
    ) throws {
        let taken = try Row.fetchOne(
            db,
            sql: """
                SELECT id, subject FROM timetable_entry
                WHERE member = ? AND week = ? AND day = ? AND period = ? AND id IS NOT ?
                """, arguments: [member.id, slot.week, slot.day.rawValue, slot.period.rawValue, id])
        if let taken {
            throw CommandError(
                code: "slot_taken",
                message:
                    "\(member.name) already has \(taken["subject"] as String) in \(describe(slot)) (entry \((taken["id"] as String).prefix(8))): edit it, or remove it first"
            )
        }
    }

    /// An entry's lesson fields as values to write again (a copy).
    static func entryValues(_ id: String, in db: Database) throws -> [String: FieldValue] {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM timetable_entry WHERE id = ?", arguments: [id]) else {
            return [:]
        }
        var values: [String: FieldValue] = [
            "member": .text(row["member"]), "week": .int(row["week"]), "day": .int(row["day"]),
            "period": .text(Period(rawValue: row["period"])?.code ?? "1"), "subject": .text(row["subject"]),
            "room": .text(row["room"]),
        ]
        for name in ["teacher", "start", "end"] {
            if let text = row[name] as String? { values[name] = .text(text) }
        }
        return values
    }

    /// The reply to a change: the entries it wrote and any clash they are in.
    static func entryReply(_ ids: [String], in db: Database) throws -> JSONValue {
        try JSONValue(reply: try lessonsChanged(ids, in: db))
    }

    private static func lessonsChanged(_ ids: [String], in db: Database) throws -> LessonsChanged {
        let changed = Set(ids)
        let clashes = TimetableClash.find(in: try entries(in: db), bells: try bells(in: db)).filter {
            changed.contains($0.first.id) || changed.contains($0.second.id)
        }
        return LessonsChanged(
            entries: try ids.compactMap { try entry($0, in: db) },
            clashes: try clashes.map { try clashView($0, in: db) })
    }
}
