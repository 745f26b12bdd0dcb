import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// `todo.stats`: habits' heatmaps, rates, weekdays and streaks, and collections' rates.
extension TodosCommands {
    /// The most weeks the statistics cover: a year.
    static let maximumStatisticsWeeks = 53

    /// `todo.stats {collection?, weeks? (12), today?}`: the weeks up to `today` (the household's
    /// day unless given), from the Monday `weeks - 1` weeks before its week (`TodoStatistics`).
    func statistics(_ command: TodoCommands.Stats) async throws -> JSONValue {
        let collection = command.collection
        let weeks = command.weeks ?? 12
        guard (1...Self.maximumStatisticsWeeks).contains(weeks) else {
            throw CommandError.invalidArgument(
                "weeks", "must be from 1 to \(Self.maximumStatisticsWeeks), got \(weeks)")
        }
        let today =
            try command.today.map { try StoreCommands.date($0, field: "today") } ?? LocalDate(Date(), in: timeZone)
        return try await database.pool.read { db in
            let collectionID = try collection.map { try Self.collectionID($0, in: db) }
            return try Self.statistics(collection: collectionID, weeks: weeks, today: today, in: db).reply()
        }
    }

    /// The statistics of one collection (or all) over `weeks` weeks up to `today`.
    static func statistics(
        collection: String?, weeks: Int, today: LocalDate, in db: Database
    ) throws
        -> TodoStatistics
    {
        let from = TodoStatistics.firstDay(weeks: weeks, today: today)
        var collections: [String: CollectionStatistics] = [:]
        var order: [String] = []
        let empty = stride(from: from.dayNumber, through: today.dayNumber, by: 7).map {
            PeriodRate(start: LocalDate(dayNumber: $0).description)
        }
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT c.id, c.name, c.kind,
                       (SELECT count(*) FROM todo WHERE collection = c.id AND repeat = 'none' AND NOT completed) AS open,
                       (SELECT count(*) FROM todo WHERE collection = c.id AND repeat = 'none' AND completed) AS done
                FROM todo_collection AS c WHERE ? IS NULL OR c.id = ? ORDER BY c.sort_order, c.name
                """, arguments: [collection, collection])
        {
            let id: String = row["id"]
            order.append(id)
            collections[id] = CollectionStatistics(
                id: id, name: row["name"], kind: row["kind"], open: row["open"], done: row["done"], weeks: empty,
                months: [])
        }
        var habits: [HabitStatistics] = []
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT id, title, collection, repeat, due_date, until, month_end, completed FROM todo
                WHERE (? IS NULL OR collection = ?) AND due_date IS NOT NULL AND due_date <= ?
                ORDER BY title, id
                """, arguments: [collection, collection, today.description])
        {
            let id: String = row["id"]
            guard let recurrence = recurrence(row) else {
                // A one-off todo counts in its collection's week.
                if let due = try? LocalDate(parsing: row["due_date"], field: "due_date") {
                    collections[row["collection"]]?.count(due, from: from, done: row["completed"])
                }
                continue
            }
            guard recurrence.start <= today else { continue }
            // Its days done and skipped of the last ten years: its streak and strength look that far back.
            let habitMarks = try habitMarks(
                id, from: max(recurrence.start, today.adding(days: -3_660)), through: today, in: db)
            let habit = HabitStatistics(
                id: id, title: row["title"], collection: collections[row["collection"]]?.name ?? "",
                progress: progress(of: recurrence, marks: habitMarks, today: today),
                dates: recurrence.occurrences(from: from, through: today), marks: habitMarks, from: from, today: today)
            collections[row["collection"]]?.add(habit)
            habits.append(habit)
        }
        return TodoStatistics(
            from: from.description, to: today.description, weeks: weeks, habits: habits,
            collections: order.compactMap { collections[$0] })
    }
}

/// `todo.stats`' reply built as `JSONValue` directly: the same value as `JSONValue(reply:)`
/// (`StoreTodosTests` compares the two), without `Codable` for the habits' lists.
///
/// Why by hand: 50 habits over 53 weeks are about 16,000 values, 3,300 of them `[start, due,
/// done]` arrays and 500 streak runs; `perf record` on the store under `hearth-bench todos`
/// found `JSONValueEncoder` at 24% of its samples (computing the statistics 31%), `Codable`'s
/// container per array and dynamic cast per value being most of it.
extension TodoStatistics {
    func reply() throws -> JSONValue {
        .object([
            "from": .string(from), "to": .string(to), "weeks": .int(Int64(weeks)),
            "habits": .array(try habits.map { try $0.reply() }),
            "collections": .array(
                collections.map { collection in
                    .object([
                        "id": .string(collection.id), "name": .string(collection.name),
                        "kind": .string(collection.kind), "open": .int(Int64(collection.open)),
                        "done": .int(Int64(collection.done)), "weeks": PeriodRate.reply(collection.weeks),
                        "months": PeriodRate.reply(collection.months),
                    ])
                }),
        ])
    }
}

extension HabitStatistics {
    func reply() throws -> JSONValue {
        .object([
            "id": .string(id), "title": .string(title), "collection": .string(collection),
            "progress": try JSONValue(reply: progress), "days": .string(days),
            "weeks": PeriodRate.reply(weeks), "months": PeriodRate.reply(months),
            "due": .int(Int64(due)), "done": .int(Int64(done)),
            "best_weekday": bestWeekday.map { .int(Int64($0)) } ?? .null,
            "worst_weekday": worstWeekday.map { .int(Int64($0)) } ?? .null,
            "streaks": .array(
                streaks.map { run in
                    .object(["start": .string(run.start), "end": .string(run.end), "length": .int(Int64(run.length))])
                }),
        ])
    }
}

extension PeriodRate {
    /// Periods as the wire's `[[start, due, done], …]`.
    static func reply(_ periods: [PeriodRate]) -> JSONValue {
        .array(periods.map { .array([.string($0.start), .int(Int64($0.due)), .int(Int64($0.done))]) })
    }
}
