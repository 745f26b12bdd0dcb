import Foundation
import GRDB
import HearthBus
import HearthCore

/// The social planner in the store (SPEC part 5): people, their goals, planned check-ins, the
/// interaction log and the planning preferences, materialised into tables of the same names.
///
/// Three tables are this device's alone (never in the operation log): `social_busy`, busy times
/// imported from this person's calendar file (by UID, so a re-import replaces them) or read from
/// a subscribed URL (by source, so a re-read replaces them all); `busy_source`, the URLs
/// subscribed to and what their last read gave; and `plan_alert`, the check-ins whose reminder
/// `hearth-scheduler` has raised, so a restart never raises one twice.
enum SocialDomain: StoreDomain {
    typealias Rules = Social

    static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5: social planner") { db in
            try db.create(table: "person") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("tags", .text)
                table.column("purpose", .text)
                table.column("modified_at", .text).notNull()
                table.column("conflicted", .boolean).notNull()
            }
            try db.create(table: "social_goal") { table in
                table.primaryKey("person", .text)
                table.column("every", .integer).notNull()
                table.column("importance", .integer).notNull()
                table.column("duration", .integer).notNull()
                table.column("windows", .text).notNull()
                table.column("exclude", .text)
                table.column("last", .text)
                table.column("modified_at", .text).notNull()
            }
            try db.create(table: "plan_item") { table in
                table.primaryKey("id", .text)
                table.column("person", .text).notNull()
                table.column("start", .integer).notNull()
                table.column("duration", .integer).notNull()
                table.column("status", .text).notNull()
                table.column("origin", .text).notNull()
                table.column("previous", .text)
                table.column("modified_at", .text).notNull()
                table.column("conflicted", .boolean).notNull()
            }
            try db.create(index: "plan_item_time", on: "plan_item", columns: ["status", "start"])
            try db.create(index: "plan_item_person", on: "plan_item", columns: ["person", "start"])
            try db.create(table: "interaction") { table in
                table.primaryKey("id", .text)
                table.column("person", .text).notNull()
                table.column("at", .integer).notNull()
                table.column("outcome", .text).notNull()
                table.column("note", .text)
                table.column("item", .text)
            }
            try db.create(index: "interaction_person", on: "interaction", columns: ["person", "at"])
            try db.create(table: "plan_prefs") { table in
                table.primaryKey("id", .text)
                table.column("capacity", .integer)
                table.column("quiet_start", .text)
                table.column("quiet_end", .text)
                table.column("horizon", .integer)
                table.column("lead", .integer)
                table.column("refresh", .text)
                table.column("morning", .text)
            }
            // This device's alone: never replicated.
            try db.create(table: "social_busy") { table in
                table.column("uid", .text).notNull()
                table.column("start", .integer).notNull()
                table.column("end", .integer).notNull()
                table.column("summary", .text).notNull()
                table.column("all_day", .boolean).notNull()
                table.column("file", .text).notNull()
                table.primaryKey(["uid", "start"])
            }
            try db.create(index: "social_busy_time", on: "social_busy", columns: ["start"])
            try db.create(table: "plan_alert") { table in
                table.primaryKey("item", .text)
                table.column("fired_start", .integer).notNull()
            }
        }
        migrator.registerMigration("social: busy sources") { db in
            // This device's alone: the calendars it reads busy times from by URL.
            try db.create(table: "busy_source") { table in
                table.primaryKey("url", .text)
                table.column("added_at", .integer).notNull()
                table.column("read_at", .integer)
                table.column("tried_at", .integer)
                table.column("error", .text)
                table.column("events", .integer).notNull().defaults(to: 0)
                table.column("busy", .integer).notNull().defaults(to: 0)
                table.column("etag", .text)
                table.column("last_modified", .text)
            }
        }
    }

    /// The social planner's commands; those that write hold their reply for the fault-injection
    /// delay.
    private static let handlers = StoreDomains.table(
        SocialCommands.self,
        typedReads: [
            StoreDomains.command(PeopleCommands.List.self) { commands, command, _ in
                try await commands.listPeople(command)
            },
            StoreDomains.command(PeopleCommands.Show.self) { commands, command, _ in
                try await commands.showPerson(command)
            },
            StoreDomains.command(BusyCommands.List.self) { commands, command, _ in try await commands.listBusy(command)
            },
            StoreDomains.command(BusyCommands.Sources.self) { commands, _, _ in try await commands.busySources() },
            StoreDomains.command(PlanCommands.Preferences.self) { commands, _, _ in try await commands.planPreferences()
            },
            StoreDomains.command(PlanCommands.Next.self) { commands, command, _ in try await commands.nextItems(command)
            },
            StoreDomains.command(PlanCommands.List.self) { commands, command, _ in try await commands.listItems(command)
            },
            StoreDomains.command(PlanCommands.Slots.self) { commands, command, _ in
                try await commands.rescheduleSlots(command)
            },
            StoreDomains.command(PlanCommands.Export.self) { commands, command, _ in
                try await commands.exportPlan(command)
            },
            StoreDomains.command(PlanCommands.Sources.self) { commands, command, _ in
                try await commands.planSources(command)
            },
        ],
        typedWrites: [
            StoreDomains.command(BusyCommands.Import.self) { commands, command, request in
                try await commands.importBusy(command, request)
            },
            StoreDomains.command(PeopleCommands.Add.self) { commands, command, request in
                try await commands.addPerson(command, request)
            },
            StoreDomains.command(PeopleCommands.Edit.self) { commands, command, request in
                try await commands.editPerson(command, request)
            },
            StoreDomains.command(PeopleCommands.Remove.self) { commands, command, request in
                try await commands.removePerson(command, request)
            },
            StoreDomains.command(PeopleCommands.Goal.self) { commands, command, request in
                try await commands.setGoal(command, request)
            },
            StoreDomains.command(PeopleCommands.Log.self) { commands, command, request in
                try await commands.logInteraction(command, request)
            },
            StoreDomains.command(BusyCommands.Remove.self) { commands, command, request in
                try await commands.removeBusyFile(command, request)
            },
            StoreDomains.command(BusyCommands.Clear.self) { commands, _, request in
                try await commands.clearBusy(request)
            },
            StoreDomains.command(BusyCommands.Subscribe.self) { commands, command, request in
                try await commands.subscribeBusy(command, request)
            },
            StoreDomains.command(BusyCommands.Unsubscribe.self) { commands, command, request in
                try await commands.unsubscribeBusy(command, request)
            },
            StoreDomains.command(BusyCommands.Failed.self) { commands, command, request in
                try await commands.busyReadFailed(command, request)
            },
            StoreDomains.command(PlanCommands.SetPreferences.self) { commands, command, request in
                try await commands.setPlanPreferences(command, request)
            },
            StoreDomains.command(PlanCommands.Record.self) { commands, command, request in
                try await commands.recordPlanAlert(command, request)
            },
            StoreDomains.command(PlanCommands.Week.self) { commands, command, request in
                try await commands.planWeek(command, request)
            },
            StoreDomains.command(PlanCommands.Add.self) { commands, command, request in
                try await commands.addItem(command, request)
            },
            StoreDomains.command(PlanCommands.Done.self) { commands, command, request in
                try await commands.itemDone(command, request)
            },
            StoreDomains.command(PlanCommands.Cancel.self) { commands, command, request in
                try await commands.cancelItem(command, request)
            },
            StoreDomains.command(PlanCommands.Snooze.self) { commands, command, request in
                try await commands.snoozeItem(command, request)
            },
            StoreDomains.command(PlanCommands.Reschedule.self) { commands, command, request in
                try await commands.rescheduleItem(command, request)
            },
            StoreDomains.command(PlanCommands.SnoozeTonight.self) { commands, command, request in
                try await commands.snoozeTonight(command, request)
            },
        ])

    static func handler(for command: String) -> StoreCommands.Handler? { handlers[command] }

    static func describe(_ entity: EntityRef, in db: Database) throws -> [String: JSONValue] {
        switch entity.kind {
        case Social.personKind:
            return [
                "person": try SocialCommands.person(entity.id, in: db).map { try JSONValue(reply: $0) } ?? [
                    "id": .string(entity.id)
                ]
            ]
        case Social.itemKind:
            return [
                "item": try SocialCommands.item(entity.id, in: db).map { try JSONValue(reply: $0) } ?? [
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
        guard let last = log.operations.values.max(by: { ($0.time, $0.id) < ($1.time, $1.id) }) else { return }
        let modified = Timestamp.format(Date(milliseconds: last.time.wall))
        let conflicted = fields.states.values.contains { $0.isConflict }
        let deleted = fields.bool("deleted") == true
        switch entity.kind {
        case Social.personKind:
            guard !deleted, let name = fields.text("name") else {
                return try db.execute(sql: "DELETE FROM person WHERE id = ?", arguments: [entity.id])
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO person (id, name, tags, purpose, modified_at, conflicted)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [entity.id, name, fields.text("tags"), fields.text("purpose"), modified, conflicted])
        case Social.goalKind:
            guard !deleted, let every = fields.int("every"), let windows = fields.text("windows") else {
                return try db.execute(sql: "DELETE FROM social_goal WHERE person = ?", arguments: [entity.id])
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO social_goal
                        (person, every, importance, duration, windows, exclude, last, modified_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entity.id, every, fields.int("importance") ?? 3, fields.int("duration") ?? 30, windows,
                    fields.text("exclude"), fields.text("last"), modified,
                ])
        case Social.itemKind:
            guard let person = fields.text("person"), let start = fields.int("start"),
                let duration = fields.int("duration")
            else { return try db.execute(sql: "DELETE FROM plan_item WHERE id = ?", arguments: [entity.id]) }
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO plan_item
                        (id, person, start, duration, status, origin, previous, modified_at, conflicted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                entity.id, person, start, duration, fields.text("status") ?? Social.Status.pending.rawValue,
                fields.text("origin") ?? Social.Origin.manual.rawValue, fields.text("previous"), modified, conflicted,
            ])
        case Social.interactionKind:
            guard !deleted, let person = fields.text("person"), let at = fields.int("at"),
                let outcome = fields.text("outcome")
            else { return try db.execute(sql: "DELETE FROM interaction WHERE id = ?", arguments: [entity.id]) }
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO interaction (id, person, at, outcome, note, item) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [entity.id, person, at, outcome, fields.text("note"), fields.text("item")])
        default:
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO plan_prefs (id, capacity, quiet_start, quiet_end, horizon, lead, refresh, morning)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entity.id, fields.int("capacity"), fields.text("quiet_start"), fields.text("quiet_end"),
                    fields.int("horizon"), fields.int("lead"), fields.text("refresh"), fields.text("morning"),
                ])
        }
    }
}

// MARK: - Names and search

extension SocialDomain {
    static let kindNames = [
        Social.personKind: "person", Social.goalKind: "goal", Social.itemKind: "check-in",
        Social.interactionKind: "interaction", Social.prefsKind: "planner settings",
    ]

    /// People (name, tags and purpose), and what was noted after a check-in, shown as its person.
    static let searchSources = [
        SearchIndex.Source(
            kind: "person", table: "person", key: "X.id", link: "X.id", owner: "NULL", title: "X.name",
            body: "coalesce(X.tags, '') || ' ' || coalesce(X.purpose, '')", columns: ["name", "tags", "purpose"],
            shown: "person"),
        SearchIndex.Source(
            kind: "interaction", table: "interaction", key: "X.id", link: "X.person", owner: "NULL", title: "''",
            body: "coalesce(X.note, '')", columns: ["note", "person"], shown: "person"),
    ]

    static func searchHit(_ shown: String, link: String, in db: Database) throws -> SearchHit? {
        guard shown == "person",
            let name = try String.fetchOne(
                try db.cachedStatement(sql: "SELECT name FROM person WHERE id = ?"), arguments: [link])
        else { return nil }
        return SearchHit(id: link, title: name, detail: "person", date: nil)
    }
}

extension SocialDomain {
    static func stepName(of entity: EntityRef, reading fields: StepFields) throws -> String? {
        switch entity.kind {
        case Social.personKind: return try fields.named(["name"])
        case Social.itemKind, Social.interactionKind:
            guard let person = try fields.text("person") else { return nil }
            return try fields.owned(by: EntityRef(kind: Social.personKind, id: person), "for")
        default: return nil
        }
    }
}
