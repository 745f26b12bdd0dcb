import ArgumentParser
import Foundation
import GRDBSQLite
import HearthBus
import HearthTesting

/// `hearth-bench timetable`: the timetable CSV import and the household's clash check, through a
/// real hearth-store process, beside raw SQLite writing the same number of rows in the same run.
struct TimetableBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timetable",
        abstract: "Timetable import (preview and confirm) of a 2,000-row CSV, and clashes across 50 members.",
        discussion: """
            (a) `timetable.import` of a 2,000-row CSV with 5% of its rows breaking a field rule (an \
            unknown day), as a preview and confirmed; a member has 70 slots (2 weeks × 5 days × 7 \
            periods), so of the other rows the first per slot is valid and the rest are reported as \
            a second row for one slot — the preview checks all 2,000. (b) `timetable.clashes` across \
            50 members with full fortnights (3,500 lessons, teachers shared every 20 members, so \
            thousands of clashes to find and count). Medians of the rounds; raw SQLite \
            inserting as many operation rows as the confirm writes, in one transaction, for scale.
            """
    )

    @Option(help: "Rows in the imported file.") var rows = 2_000
    @Option(help: "Members with full timetables for the clash check.") var members = 50
    @Option(help: "Rounds of each measurement (the median is reported).") var rounds = 5
    @Flag(help: "Print only the JSON report.") var json = false

    /// `count` rows cycling over the 70 slots, every twentieth with an unknown day. Teachers
    /// repeat every 20 members (a teacher clash with members 20 and 40 apart); rooms never do.
    static func file(rows count: Int, member: Int = 0) -> String {
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri"]
        let periods = ["AM Reg", "1", "2", "3", "4", "5", "PM Reg"]
        var lines = ["Week,Day,Period,Subject,Teacher,Room"]
        for index in 0..<count {
            let slot = index % 70
            let day = index % 20 == 19 ? "Funday" : days[slot / 7 % 5]
            lines.append(
                "\(slot / 35 + 1),\(day),\(periods[slot % 7]),Subject \(index % 13),T\((slot + member) % 20),R\(slot)-\(member)"
            )
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    func run() async throws {
        let context = try ZMQContext()
        let stack = try await TestStack([.bus, .store], environment: ServiceProcesses.quiet, context: context)
        let commands = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(60))
        let clock = ContinuousClock()
        func median(_ body: () async throws -> Void) async throws -> Double {
            var times: [Double] = []
            for _ in 0..<rounds {
                let start = clock.now
                try await body()
                times.append((clock.now - start).seconds * 1000)
            }
            return times.sorted()[times.count / 2]
        }

        log("(a) importing \(rows) rows…")
        _ = try await commands.request("member.add", args: ["name": "Bench", "role": "student"])
        let csv = JSONValue.string(Self.file(rows: rows))
        var preview: JSONValue = .null
        let previewMs = try await median {
            preview = try await commands.request("timetable.import", args: ["member": "Bench", "csv": csv])
        }
        var confirmed: JSONValue = .null
        let confirmMs = try await median {
            // Most of its rows are second rows for a slot, so the guard against a wrong file
            // would refuse it: the benchmark measures the import, so it says replace anyway.
            confirmed = try await commands.request(
                "timetable.import", args: ["member": "Bench", "csv": csv, "confirm": true, "replace_anyway": true])
        }
        let written = Int((confirmed["valid"]?.intValue ?? 0) + (confirmed["replaced"]?.intValue ?? 0))
        let rawMs = try await RawSQLite.oneTransaction(written, path: stack.home.path + "/raw.sqlite")
        log("    preview \(String(format: "%.1f", previewMs)) ms, confirm \(String(format: "%.1f", confirmMs)) ms")

        log("(b) \(members) members' fortnights, then clashes…")
        for member in 0..<members {
            let name = JSONValue.string("Member \(member)")
            _ = try await commands.request("member.add", args: ["name": name, "role": "student"])
            _ = try await commands.request(
                "timetable.import",
                args: ["member": name, "csv": .string(Self.file(rows: 70, member: member + 1)), "confirm": true])
        }
        var clashes: JSONValue = .null
        let clashesMs = try await median { clashes = try await commands.request("timetable.clashes") }
        log("    \(clashes["total"]?.intValue ?? 0) clashes in \(String(format: "%.1f", clashesMs)) ms")
        await commands.close()
        _ = await stack.stop()
        await context.terminate()

        let report: JSONValue = [
            "import_rows": .int(Int64(rows)),
            "import_valid": preview["valid"] ?? .null,
            "import_invalid": preview["invalid"] ?? .null,
            "import_preview_ms": .double(round3(previewMs)),
            "import_confirm_ms": .double(round3(confirmMs)),
            "import_confirm_operations": .int(Int64(written)),
            "raw_sqlite_same_rows_ms": .double(round3(rawMs)),
            "confirm_vs_raw": .double(round3(confirmMs / max(rawMs, 0.001))),
            "clashes_members": .int(Int64(members)),
            "clashes_lessons": .int(Int64(members * 70)),
            "clashes_found": clashes["total"] ?? .null,
            "clashes_ms": .double(round3(clashesMs)),
            "rounds": .int(Int64(rounds)),
        ]
        print(report.jsonText)
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}

extension RawSQLite {
    /// Inserts `count` operation and change rows in one transaction (WAL, synchronous=FULL, as
    /// the store commits); returns the milliseconds it took.
    static func oneTransaction(_ count: Int, path: String) async throws -> Double {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Double, any Error>) in
            // SQLite blocks in fsync: run it on its own thread.
            Thread { done.resume(with: Result { try insertAll(count, path: path) }) }.start()
        }
    }

    private static func insertAll(_ count: Int, path: String) throws -> Double {
        let db = try open(path)
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws { try Self.exec(db, sql) }
        try exec(
            """
            CREATE TABLE operation (id TEXT PRIMARY KEY, entity_id TEXT NOT NULL, fields TEXT NOT NULL);
            CREATE TABLE change (seq INTEGER PRIMARY KEY AUTOINCREMENT, op_id TEXT NOT NULL);
            """)
        var insertOperation: OpaquePointer?
        var insertChange: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO operation VALUES (?, ?, ?)", -1, &insertOperation, nil)
        sqlite3_prepare_v2(db, "INSERT INTO change (op_id) VALUES (?)", -1, &insertChange, nil)
        defer {
            sqlite3_finalize(insertOperation)
            sqlite3_finalize(insertChange)
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let fields =
            #"{"day":{"overwrites":[],"value":1},"room":{"overwrites":[],"value":"R12"},"subject":{"overwrites":[],"value":"Maths"}}"#
        let start = Date()
        try exec("BEGIN IMMEDIATE")
        for index in 0..<count {
            let id = "raw-device:\(index + 1)"
            sqlite3_bind_text(insertOperation, 1, id, -1, transient)
            sqlite3_bind_text(insertOperation, 2, "entity-\(index)", -1, transient)
            sqlite3_bind_text(insertOperation, 3, fields, -1, transient)
            guard sqlite3_step(insertOperation) == SQLITE_DONE else {
                throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
            }
            sqlite3_reset(insertOperation)
            sqlite3_bind_text(insertChange, 1, id, -1, transient)
            guard sqlite3_step(insertChange) == SQLITE_DONE else {
                throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
            }
            sqlite3_reset(insertChange)
        }
        try exec("COMMIT")
        return Date().timeIntervalSince(start) * 1000
    }
}
