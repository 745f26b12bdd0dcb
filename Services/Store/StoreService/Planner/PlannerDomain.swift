import Foundation
import GRDB
import HearthBus
import HearthCore

/// The family year planner in the store: twelve event cards a year (`event_card`, one per
/// month) and suggested changes to them (`suggestion`), materialised into the `event_card`
/// and `suggestion` tables.
enum PlannerDomain: StoreDomain {
    typealias Rules = YearPlanner

    static func registerMigrations(in migrator: inout DatabaseMigrator) {
        // The cards table came with the core's v1, before domains had folders of their own.
        migrator.registerMigration("v2: suggestions") { db in
            // Suggested changes to a card, materialised from `suggestion` operations.
            try db.create(table: "suggestion") { table in
                table.primaryKey("id", .text)
                table.column("year", .integer).notNull()
                table.column("month", .integer).notNull()
                table.column("title", .text)
                table.column("location", .text)
                table.column("day", .integer)
                table.column("status", .text).notNull()
                table.column("suggested_by", .text).notNull()
                table.column("suggested_at", .text).notNull()
                table.column("decided_by", .text)
                table.column("decided_at", .text)
            }
            try db.create(index: "suggestion_status", on: "suggestion", columns: ["status"])
        }
    }

    static func describe(_ entity: EntityRef, in db: Database) throws -> [String: JSONValue] {
        if entity.kind == YearPlanner.suggestionKind {
            return ["suggestion": try JSONValue(reply: try PlannerCommands.suggestion(entity.id, in: db))]
        }
        return ["card": try JSONValue(reply: try PlannerCommands.card(entity, in: db))]
    }

    /// A card as a person reads it ("Beach day, day 14, Porthcurno"), announced after a sync.
    static func readable(_ entity: EntityRef, in db: Database) throws -> String? {
        guard entity.kind == YearPlanner.entityKind, let (year, month) = YearPlanner.yearAndMonth(of: entity) else {
            return nil
        }
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT title, day, location FROM event_card WHERE year = ? AND month = ?"),
                arguments: [year, month])
        else { return "" }
        let parts: [String?] = [row["title"], (row["day"] as Int?).map { "day \($0)" }, row["location"]]
        return parts.compactMap { $0 }.joined(separator: ", ")
    }

    /// The planner's commands; those that write hold their reply for the fault-injection delay.
    private static let handlers = StoreDomains.table(
        PlannerCommands.self,
        typedReads: [
            StoreDomains.command(EventCommands.List.self) { commands, command, _ in
                try await commands.listEvents(command)
            },
            StoreDomains.command(EventCommands.Show.self) { commands, command, _ in
                try await commands.showEvent(command)
            },
            StoreDomains.command(EventCommands.Suggestions.self) { commands, command, _ in
                try await commands.suggestions(command)
            },
        ],
        typedWrites: [
            StoreDomains.command(EventCommands.Set.self) { commands, command, request in
                try await commands.setEvent(command, request)
            },
            StoreDomains.command(EventCommands.Clear.self) { commands, command, request in
                try await commands.clearEvent(command, request)
            },
            StoreDomains.command(EventCommands.Suggest.self) { commands, command, request in
                try await commands.suggest(command, request)
            },
            StoreDomains.command(EventCommands.Accept.self) { commands, command, request in
                try await commands.decide(command.id, request, accept: true)
            },
            StoreDomains.command(EventCommands.Decline.self) { commands, command, request in
                try await commands.decide(command.id, request, accept: false)
            },
        ])

    static func handler(for command: String) -> StoreCommands.Handler? { handlers[command] }

    // MARK: - Materialising

    static func materialize(_ entity: EntityRef, from log: OperationLog, in db: Database) throws {
        if entity.kind == YearPlanner.suggestionKind { return try materializeSuggestion(entity, from: log, in: db) }
        // The rules checked the id; a card outside 1–12 never reaches here.
        guard let (year, month) = YearPlanner.yearAndMonth(of: entity), (1...12).contains(month) else { return }
        let fields = FieldReader(log.entity(entity))
        let operations = log.operations.values.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        guard let first = operations.first, let last = operations.last else { return }
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO event_card
                    (year, month, title, location, day, colour, created_at, modified_at, modified_by, conflicted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                year, month, fields.text("title"), fields.text("location"), fields.int("day"),
                fields.text("colour") ?? YearPlanner.defaultColours[month - 1],
                Timestamp.format(Date(milliseconds: first.time.wall)),
                Timestamp.format(Date(milliseconds: last.time.wall)), last.author,
                fields.states.values.contains { $0.isConflict },
            ])
    }

    /// Rewrites the materialised row of a suggestion from its folded log.
    private static func materializeSuggestion(_ entity: EntityRef, from log: OperationLog, in db: Database) throws {
        let fields = FieldReader(log.entity(entity))
        let operations = log.operations.values.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        guard let first = operations.first, let year = fields.int("year"), let month = fields.int("month") else {
            return
        }
        let status = fields.text("status") ?? "open"
        let decision =
            status == "open" ? nil : fields.states["status"].flatMap { state in log.operations[state.winner] }
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO suggestion
                    (id, year, month, title, location, day, status, suggested_by, suggested_at, decided_by, decided_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            entity.id, year, month, fields.text("title"), fields.text("location"), fields.int("day"), status,
            first.author,
            Timestamp.format(Date(milliseconds: first.time.wall)), decision?.author,
            decision.map { Timestamp.format(Date(milliseconds: $0.time.wall)) },
        ])
    }
}

// MARK: - Names and search

extension PlannerDomain {
    static let kindNames = [YearPlanner.entityKind: "card", YearPlanner.suggestionKind: "suggestion"]

    /// The year's cards: title, and location as the body.
    static let searchSources = [
        SearchIndex.Source(
            kind: "card", table: "event_card", key: "X.year || '-' || X.month", link: "X.year || '-' || X.month",
            owner: "NULL", title: "coalesce(X.title, '')", body: "coalesce(X.location, '')",
            columns: ["title", "location"], shown: "card")
    ]

    static func searchHit(_ shown: String, link: String, in db: Database) throws -> SearchHit? {
        let parts = link.split(separator: "-").compactMap { Int($0) }
        guard shown == "card", parts.count == 2, (1...12).contains(parts[1]),
            let title = try String.fetchOne(
                try db.cachedStatement(sql: "SELECT coalesce(title, '') FROM event_card WHERE year = ? AND month = ?"),
                arguments: [parts[0], parts[1]])
        else { return nil }
        let month = "\(YearPlanner.monthName(parts[1])) \(parts[0])"
        return SearchHit(
            id: String(format: "%04d-%02d", parts[0], parts[1]), title: title.isEmpty ? month : title, detail: month,
            date: nil)
    }
}

extension PlannerDomain {
    static func stepName(of entity: EntityRef, reading fields: StepFields) throws -> String? {
        // An untitled card by its month.
        try fields.named(["title"]) ?? (entity.kind == YearPlanner.entityKind ? entity.id : nil)
    }
}
