import Foundation
import GRDB
import HearthBus
import HearthCore

/// The family hub in the store (SPEC part 4): members, timetable entries, bell times, holidays,
/// week overrides and the school's settings, materialised into tables of the same names. A
/// deleted entity's row goes; its operations stay, so an import's replaced entries keep their
/// history.
///
/// Two tables are this device's alone (never in the operation log): `hub_profile`, the member
/// whose profile this device is using (`hearth member use`), and `class_alert`, how far
/// `hearth-scheduler` has raised each member's next-class notifications, so a restart never
/// raises one twice.
enum HubDomain: StoreDomain {
    typealias Rules = Hub

    static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4: family hub") { db in
            try db.create(table: "member") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("role", .text).notNull()
                table.column("notify", .boolean).notNull()
                table.column("lead", .integer).notNull()
                table.column("modified_at", .text).notNull()
                table.column("conflicted", .boolean).notNull()
            }
            try db.create(table: "timetable_entry") { table in
                table.primaryKey("id", .text)
                table.column("member", .text).notNull()
                table.column("week", .integer).notNull()
                table.column("day", .integer).notNull()
                // The period's rank, 0 (AM Registration) to 6 (PM Registration), so rows sort.
                table.column("period", .integer).notNull()
                table.column("subject", .text).notNull()
                table.column("teacher", .text)
                table.column("room", .text).notNull()
                table.column("start", .text)
                table.column("end", .text)
                table.column("modified_at", .text).notNull()
                table.column("conflicted", .boolean).notNull()
            }
            try db.create(
                index: "timetable_entry_slot", on: "timetable_entry", columns: ["member", "week", "day", "period"])
            try db.create(table: "school_bell") { table in
                table.primaryKey("period", .integer)
                table.column("start", .text)
                table.column("end", .text)
            }
            try db.create(table: "school_holiday") { table in
                table.primaryKey("id", .text)
                table.column("name", .text)
                table.column("from", .text).notNull()
                table.column("to", .text).notNull()
            }
            try db.create(table: "week_override") { table in
                table.primaryKey("id", .text)
                table.column("week", .integer).notNull()
                table.column("from", .text).notNull()
                table.column("to", .text).notNull()
            }
            try db.create(table: "timetable_settings") { table in
                table.primaryKey("id", .text)
                table.column("week1_start", .text)
            }
            // This device's alone: never replicated.
            try db.create(table: "hub_profile") { table in
                table.primaryKey("id", .integer)
                table.column("member", .text)
            }
            try db.create(table: "class_alert") { table in
                table.primaryKey("member", .text)
                table.column("fired_start", .integer).notNull()
            }
        }
    }

    /// The hub's commands; those that write hold their reply for the fault-injection delay.
    private static let handlers = StoreDomains.table(
        HubCommands.self,
        writes: [
            TimetableImportArguments.name: { commands, request in try await commands.importTimetable(request) }
        ],
        typedReads: [
            StoreDomains.command(MemberCommands.List.self) { commands, _, _ in try await commands.listMembers() },
            StoreDomains.command(SchoolCommands.Settings.self) { commands, _, _ in
                try await commands.timetableSettings()
            },
            StoreDomains.command(SchoolCommands.Holidays.self) { commands, _, _ in try await commands.listHolidays() },
            StoreDomains.command(TimetableCommands.Entries.self) { commands, command, _ in
                try await commands.timetableEntries(command)
            },
            StoreDomains.command(TimetableCommands.Days.self) { commands, command, _ in
                try await commands.timetableDays(command)
            },
            StoreDomains.command(TimetableCommands.Clashes.self) { commands, _, _ in
                try await commands.timetableClashes()
            },
            StoreDomains.command(TimetableCommands.Reference.self) { commands, command, _ in
                try await commands.timetableReference(command)
            },
            StoreDomains.command(TimetableCommands.Classes.self) { commands, command, _ in
                try await commands.classSources(command)
            },
        ],
        typedWrites: [
            StoreDomains.command(MemberCommands.Add.self) { commands, command, request in
                try await commands.addMember(command, request)
            },
            StoreDomains.command(MemberCommands.Rename.self) { commands, command, request in
                try await commands.renameMember(command, request)
            },
            StoreDomains.command(MemberCommands.Remove.self) { commands, command, request in
                try await commands.removeMember(command, request)
            },
            StoreDomains.command(MemberCommands.Use.self) { commands, command, request in
                try await commands.useMember(command, request)
            },
            StoreDomains.command(MemberCommands.Notify.self) { commands, command, request in
                try await commands.memberNotify(command, request)
            },
            StoreDomains.command(TimetableCommands.Add.self) { commands, command, request in
                try await commands.addEntry(command, request)
            },
            StoreDomains.command(TimetableCommands.Edit.self) { commands, command, request in
                try await commands.editEntry(command, request)
            },
            StoreDomains.command(TimetableCommands.Remove.self) { commands, command, request in
                try await commands.removeEntry(command, request)
            },
            StoreDomains.command(TimetableCommands.Duplicate.self) { commands, command, request in
                try await commands.duplicateEntry(command, request)
            },
            StoreDomains.command(TimetableCommands.CopyDay.self) { commands, command, request in
                try await commands.copyDay(command, request)
            },
            StoreDomains.command(TimetableCommands.CopyWeek.self) { commands, command, request in
                try await commands.copyWeek(command, request)
            },
            StoreDomains.command(TimetableCommands.RecordClass.self) { commands, command, request in
                try await commands.recordClassAlert(command, request)
            },
            StoreDomains.command(SchoolCommands.Configure.self) { commands, command, request in
                try await commands.configureTimetable(command, request)
            },
            StoreDomains.command(SchoolCommands.Bells.self) { commands, command, request in
                try await commands.setBells(command, request)
            },
            StoreDomains.command(SchoolCommands.Override.self) { commands, command, request in
                try await commands.overrideWeek(command, request)
            },
            StoreDomains.command(SchoolCommands.ClearOverrides.self) { commands, command, request in
                try await commands.clearOverrides(command, request)
            },
            StoreDomains.command(SchoolCommands.AddHoliday.self) { commands, command, request in
                try await commands.addHoliday(command, request)
            },
            StoreDomains.command(SchoolCommands.RemoveHoliday.self) { commands, command, request in
                try await commands.removeHoliday(command, request)
            },
        ])

    static func handler(for command: String) -> StoreCommands.Handler? { handlers[command] }

    static func describe(_ entity: EntityRef, in db: Database) throws -> [String: JSONValue] {
        switch entity.kind {
        case Hub.memberKind:
            return [
                "member": try HubCommands.member(entity.id, in: db).map { try JSONValue(reply: $0) } ?? [
                    "id": .string(entity.id)
                ]
            ]
        case Hub.entryKind:
            return [
                "entry": try HubCommands.entry(entity.id, in: db).map { try JSONValue(reply: $0) } ?? [
                    "id": .string(entity.id)
                ]
            ]
        default:
            return [entity.kind: ["id": .string(entity.id)]]
        }
    }

    // MARK: - Materialising

    static func materialize(_ entity: EntityRef, from log: OperationLog, in db: Database) throws {
        let fields = FieldReader(log.entity(entity))
        let operations = log.operations.values.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        guard let last = operations.last else { return }
        let modified = Timestamp.format(Date(milliseconds: last.time.wall))
        let conflicted = fields.states.values.contains { $0.isConflict }
        let deleted = fields.bool("deleted") == true
        switch entity.kind {
        case Hub.memberKind:
            guard !deleted, let name = fields.text("name") else {
                return try db.execute(sql: "DELETE FROM member WHERE id = ?", arguments: [entity.id])
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO member (id, name, role, notify, lead, modified_at, conflicted)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entity.id, name, fields.text("role") ?? Hub.Role.student.rawValue, fields.bool("notify") ?? true,
                    fields.int("lead") ?? Int64(Hub.defaultLead), modified, conflicted,
                ])
        case Hub.entryKind:
            guard !deleted, let member = fields.text("member"), let week = fields.int("week"),
                let day = fields.int("day"), let period = fields.text("period").flatMap(Period.init(code:)),
                let subject = fields.text("subject"), let room = fields.text("room")
            else {
                return try db.execute(sql: "DELETE FROM timetable_entry WHERE id = ?", arguments: [entity.id])
            }
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO timetable_entry
                        (id, member, week, day, period, subject, teacher, room, start, "end", modified_at, conflicted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                entity.id, member, week, day, period.rawValue, subject, fields.text("teacher"), room,
                fields.text("start"), fields.text("end"), modified, conflicted,
            ])
        case Hub.bellKind:
            guard let period = Period(code: entity.id) else { return }
            try db.execute(
                sql: #"INSERT OR REPLACE INTO school_bell (period, start, "end") VALUES (?, ?, ?)"#,
                arguments: [period.rawValue, fields.text("start"), fields.text("end")])
        case Hub.holidayKind:
            guard !deleted, let from = fields.text("from"), let to = fields.text("to") else {
                return try db.execute(sql: "DELETE FROM school_holiday WHERE id = ?", arguments: [entity.id])
            }
            try db.execute(
                sql: #"INSERT OR REPLACE INTO school_holiday (id, name, "from", "to") VALUES (?, ?, ?, ?)"#,
                arguments: [entity.id, fields.text("name"), from, to])
        case Hub.overrideKind:
            guard !deleted, let week = fields.int("week"), let from = fields.text("from"), let to = fields.text("to")
            else {
                return try db.execute(sql: "DELETE FROM week_override WHERE id = ?", arguments: [entity.id])
            }
            try db.execute(
                sql: #"INSERT OR REPLACE INTO week_override (id, week, "from", "to") VALUES (?, ?, ?, ?)"#,
                arguments: [entity.id, week, from, to])
        default:
            try db.execute(
                sql: "INSERT OR REPLACE INTO timetable_settings (id, week1_start) VALUES (?, ?)",
                arguments: [entity.id, fields.text("week1_start")])
        }
    }
}

// MARK: - Names and search

extension HubDomain {
    static let kindNames = [
        Hub.memberKind: "member", Hub.entryKind: "lesson", Hub.bellKind: "bell", Hub.holidayKind: "holiday",
        Hub.overrideKind: "week override", Hub.settingsKind: "school settings",
    ]

    /// Lessons (subject; teacher and room as the body), each its member's own: a student's
    /// profile finds only its own.
    static let searchSources = [
        SearchIndex.Source(
            kind: "lesson", table: "timetable_entry", key: "X.id", link: "X.id", owner: "X.member",
            title: "X.subject", body: "coalesce(X.teacher, '') || ' ' || X.room",
            columns: ["subject", "teacher", "room", "member"], shown: "lesson")
    ]

    static func searchHit(_ shown: String, link: String, in db: Database) throws -> SearchHit? {
        guard shown == "lesson",
            let row = try Row.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT e.subject, e.week, e.day, e.period, m.name FROM timetable_entry AS e
                        LEFT JOIN member AS m ON m.id = e.member WHERE e.id = ?
                        """), arguments: [link])
        else { return nil }
        let day = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][max(0, min(6, (row[2] as Int) - 1))]
        let member: String = row[4] ?? ""
        return SearchHit(
            id: link, title: row[0], detail: "\(member) · week \(row[1] as Int) · \(day) · period \(row[3] as Int)",
            date: nil)
    }
}

extension HubDomain {
    static func stepName(of entity: EntityRef, reading fields: StepFields) throws -> String? {
        switch entity.kind {
        case Hub.memberKind: return try fields.named(["name"])
        case Hub.entryKind:
            if let subject = try fields.named(["subject"]) { return subject }
            guard let member = try fields.text("member") else { return nil }
            return try fields.owned(by: EntityRef(kind: Hub.memberKind, id: member), "for")
        // A bell by its period as people read it ("AM Registration", not `am_registration`).
        case Hub.bellKind: return "'\(Period(code: entity.id)?.name ?? entity.id)'"
        case Hub.holidayKind: return try fields.named(["name", "from"])
        case Hub.overrideKind: return try fields.named(["from"])
        case Hub.settingsKind: return try fields.named(["week1_start"])
        default: return nil
        }
    }
}
