import Foundation
import GRDB
import GRDBSQLite
import HearthBus
import HearthCore
import HearthTesting

extension TodosBenchmark {
    /// Operation `index` of the benchmark's made-up device: `fields` set on entity `kind`/`id`.
    static func operation(
        _ index: Int, now: Int64, kind: String, id: String, fields: [String: JSONValue]
    ) -> JSONValue {
        [
            "id": .string("\(device):\(index + 1)"),
            "time": ["wall": .int(now - 10_000_000 + Int64(index)), "logical": 0],
            "entity": ["kind": .string(kind), "id": .string(id)],
            "fields": .object(fields.mapValues { ["value": $0, "overwrites": []] }),
        ]
    }

    /// A lower-case UUID numbered `index`.
    static func uuid(_ index: Int) -> String { String(format: "0b7e0000-0000-4000-8000-%012x", index) }

    /// Drops the search index's triggers (the store without the index, for the write cost).
    static func dropIndex(home: String) throws {
        let queue = try DatabaseQueue(path: home + "/hearth.sqlite")
        try queue.write { db in
            let names = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search_%'")
            for name in names { try db.execute(sql: "DROP TRIGGER \(name)") }
        }
        try queue.close()
    }

    /// The store's full-text query run straight through the SQLite C API on the store's file
    /// (read-only): the same MATCH text and ranking, the first 20 with their entries.
    /// Milliseconds, p50 and p99.
    static func rawSearch(_ queries: [String], path: String) throws -> (p50: Double, p99: Double) {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw BenchError.sqlite("open")
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        // The first 20 by rank, with their entries (no snippet: the store makes 20 more lookups
        // for those, and its filtering and describing; this is the index's own part).
        let sql = """
            SELECT e.kind, e.link FROM search_index JOIN search_entry AS e ON e.id = search_index.rowid
            WHERE search_index MATCH ? ORDER BY rank LIMIT 20
            """
        // (All matches ranked: the store ranks at most the latest 250.)
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let clock = ContinuousClock()
        var times: [Double] = []
        for query in queries {
            let match = query.split(separator: " ").map { "\"\($0)\"*" }.joined(separator: " ")
            let start = clock.now
            sqlite3_bind_text(statement, 1, match, -1, transient)
            while sqlite3_step(statement) == SQLITE_ROW {}
            sqlite3_reset(statement)
            times.append((clock.now - start).seconds * 1000)
        }
        return (quantile(times, 0.5), quantile(times, 0.99))
    }

    /// `habits` daily habits started a year ago, each done 4 days in 5, in a store of their own;
    /// `todo.stats` for 53 weeks once, then `calls` times: milliseconds, the first, p50, p99
    /// and the slowest.
    static func statistics(
        _ habits: Int, calls: Int, context: ZMQContext
    ) async throws -> (first: Double, p50: Double, p99: Double, max: Double) {
        let stack = try await TestStack([.bus, .store], environment: ServiceProcesses.quiet, context: context)
        let commands = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(60))
        try await TestHousehold.trust([device], store: commands)
        let added = try await commands.request("collection.add", args: ["name": "Habits", "kind": "habit"])
        guard let collection = added["collection"]?["id"]?.stringValue else { throw BenchError.sqlite("no collection") }
        let today = LocalDate(Date(), in: .current)
        let start = today.adding(days: -364)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var operations: [JSONValue] = []
        var index = 0
        for habit in 0..<habits {
            let id = uuid(500_000 + habit)
            operations.append(
                TestHousehold.signed(
                    operation(
                        index, now: now, kind: "todo", id: id,
                        fields: [
                            "title": .string("Habit \(habit)"), "collection": .string(collection),
                            "due_date": .string(start.description), "priority": "none", "repeat": "daily",
                            "month_end": "skip", "remind": false, "show_in_calendar": true, "completed": false,
                        ])))
            index += 1
            for day in 0..<365 where (day + habit) % 5 != 0 {
                operations.append(
                    TestHousehold.signed(
                        operation(
                            index, now: now, kind: "todo_completion", id: "\(id)@\(start.adding(days: day))",
                            fields: ["done": true])))
                index += 1
            }
        }
        for batch in stride(from: 0, to: operations.count, by: 300) {
            _ = try await commands.request(
                "ops.import",
                args: ["operations": .array(Array(operations[batch..<min(batch + 300, operations.count)]))])
        }
        let clock = ContinuousClock()
        var times: [Double] = []
        // The first, on a store just loaded (its statements not yet prepared), reported apart.
        let cold = clock.now
        _ = try await commands.request("todo.stats", args: ["weeks": 53])
        let first = (clock.now - cold).seconds * 1000
        for _ in 0..<calls {
            let begun = clock.now
            let reply = try await commands.request("todo.stats", args: ["weeks": 53])
            times.append((clock.now - begun).seconds * 1000)
            guard reply["habits"]?.arrayValue?.count == habits else {
                throw BenchError.sqlite("todo.stats: habits missing")
            }
        }
        await commands.close()
        _ = await stack.stop()
        return (first, quantile(times, 0.5), quantile(times, 0.99), times.max() ?? .nan)
    }

    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
    }

    func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
