import ArgumentParser
import Foundation
import GRDBSQLite
import HearthBus
import HearthTesting
import Synchronization

/// `hearth-bench store`: the store against raw SQLite, measured in one run on this machine.
struct StoreBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Store command throughput against raw SQLite inserts, and change-feed replay time.",
        discussion: """
            (a) raw SQLite through the C API: an operation row and a change row per transaction, WAL, \
            synchronous=FULL, as the store commits; (b) `event.set` commands end to end over the \
            command channel from concurrent clients to a hearth-store process; (c) `changes` replay of \
            100,000 operations. Targets: b/a ≥ 0.8 (issue 64; was 0.5), replay under 1 s.
            """
    )

    @Option(help: "Operations for (a) and (b).") var operations = 2_000
    @Option(help: "Concurrent clients for (b).") var clients = 8
    @Option(help: "Operations in the store when (c) replays them.") var replay = 100_000
    @Flag(help: "Print only the JSON report.") var json = false

    func run() async throws {
        let home = try TemporaryHome()
        log("(a) raw SQLite, \(operations) commits…")
        let raw = try await RawSQLite.commits(operations, path: home.path + "/raw.sqlite")
        log("    \(Int(raw)) ops/s")

        let context = try ZMQContext()
        let stack = try await TestStack(
            [.bus, .store], home: home, environment: ServiceProcesses.quiet, context: context)
        let endpoint = stack.configuration.commandEndpoint(.store)
        log("(b) hearth-store, \(operations) event.set from \(clients) clients…")
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask { [operations, clients] in
                    let commands = CommandClient(context: context, endpoint: endpoint, timeout: .seconds(10))
                    for index in stride(from: client, to: operations, by: clients) {
                        _ = try await commands.request(
                            "event.set",
                            args: [
                                "year": .int(Int64(1 + index / 12)), "month": .int(Int64(index % 12 + 1)),
                                "title": .string("event \(index)"),
                            ])
                    }
                    await commands.close()
                }
            }
            try await group.waitForAll()
        }
        let storeRate = Double(operations) / (clock.now - started).seconds
        log("    \(Int(storeRate)) ops/s")

        log("(c) loading \(replay - operations) more operations, then replaying \(replay)…")
        let commands = CommandClient(context: context, endpoint: endpoint, timeout: .seconds(60))
        try await load(replay - operations, firstYear: 1 + operations / 12 + 1, into: commands)
        let replayStart = clock.now
        var replayed = 0
        var since: Int64 = 0
        while true {
            let page = try await commands.request("changes", args: ["since": .int(since), "limit": 10_000])
            let changes = page["changes"]?.arrayValue ?? []
            replayed += changes.count
            since = changes.last?["seq"]?.intValue ?? since
            if changes.isEmpty || since >= page["last_seq"]?.intValue ?? 0 { break }
        }
        let replaySeconds = (clock.now - replayStart).seconds
        log("    \(replayed) changes in \(String(format: "%.3f", replaySeconds)) s")
        await commands.close()
        _ = await stack.stop()
        await context.terminate()

        let report: JSONValue = [
            "store_ratio": .double(round3(storeRate / raw)),
            "replay_100k_s": .double(round3(replaySeconds * 100_000 / Double(max(replayed, 1)))),
            "targets": ["store_ratio": 0.8, "replay_100k_s": 1.0],
            "raw_sqlite_ops_per_s": .double(raw.rounded()),
            "store_ops_per_s": .double(storeRate.rounded()),
            "clients": .int(Int64(clients)),
            "replayed": .int(Int64(replayed)),
            "replay_s": .double(round3(replaySeconds)),
        ]
        log(
            String(
                format: "store %.2f× raw SQLite (target ≥ 0.8), replay of 100k %.3f s (target < 1 s)",
                storeRate / raw, replaySeconds * 100_000 / Double(max(replayed, 1))))
        print(report.jsonText)
    }

    /// The made-up device whose operations are imported (device ids are lower-case UUIDs).
    static let importedDevice = "be0c0000-0000-4000-8000-000000000001"

    /// Imports `count` operations of a made-up device in batches, one card each, signed with its
    /// key, which the store is first told to trust (as pairing does).
    private func load(_ count: Int, firstYear: Int, into commands: CommandClient) async throws {
        try await TestHousehold.trust([Self.importedDevice], store: commands)
        var index = 0
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        while index < count {
            var batch: [JSONValue] = []
            while batch.count < 600 && index < count {
                let year = firstYear + index / 12
                let month = index % 12 + 1
                batch.append(
                    TestHousehold.signed(
                        [
                            "id": .string("\(Self.importedDevice):\(index + 1)"),
                            "time": ["wall": .int(now - 1_000_000 + Int64(index)), "logical": 0],
                            "entity": [
                                "kind": "event_card", "id": .string("\(year)-\(month < 10 ? "0" : "")\(month)"),
                            ],
                            "fields": ["title": ["value": .string("imported \(index)"), "overwrites": []]],
                        ]))
                index += 1
            }
            _ = try await commands.request("ops.import", args: ["operations": .array(batch)])
        }
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}

/// The baseline, straight against the SQLite C API.
enum RawSQLite {
    /// Commits `count` transactions of an operation row and a change row; returns commits per second.
    static func commits(_ count: Int, path: String) async throws -> Double {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Double, any Error>) in
            // SQLite blocks in fsync: run it on its own thread.
            Thread { done.resume(with: Result { try run(count, path: path) }) }.start()
        }
    }

    /// Opens `path` as the store does (WAL, synchronous=FULL); close it with `sqlite3_close`.
    static func open(_ path: String) throws -> OpaquePointer? {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw BenchError.sqlite("open") }
        try exec(db, "PRAGMA journal_mode = WAL")
        try exec(db, "PRAGMA synchronous = FULL")
        return db
    }

    static func exec(_ db: OpaquePointer?, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
        }
    }

    private static func run(_ count: Int, path: String) throws -> Double {
        let db = try open(path)
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws { try Self.exec(db, sql) }
        try exec(
            """
            CREATE TABLE operation (id TEXT PRIMARY KEY, device TEXT NOT NULL, counter INTEGER NOT NULL,
              wall INTEGER NOT NULL, logical INTEGER NOT NULL, entity_kind TEXT NOT NULL, entity_id TEXT NOT NULL,
              fields TEXT NOT NULL, UNIQUE(device, counter));
            CREATE TABLE change (seq INTEGER PRIMARY KEY AUTOINCREMENT, op_id TEXT NOT NULL,
              entity_kind TEXT NOT NULL, entity_id TEXT NOT NULL);
            """)
        var insertOperation: OpaquePointer?
        var insertChange: OpaquePointer?
        sqlite3_prepare_v2(
            db, "INSERT INTO operation VALUES (?, ?, ?, ?, 0, 'event_card', ?, ?)", -1, &insertOperation, nil)
        sqlite3_prepare_v2(
            db, "INSERT INTO change (op_id, entity_kind, entity_id) VALUES (?, 'event_card', ?)", -1, &insertChange, nil
        )
        defer {
            sqlite3_finalize(insertOperation)
            sqlite3_finalize(insertChange)
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let start = Date()
        for index in 0..<count {
            let id = "raw-device:\(index + 1)"
            let entity = "\(1 + index / 12)-\(index % 12 + 1)"
            let fields = #"{"title":{"overwrites":[],"value":"event \#(index)"}}"#
            try exec("BEGIN IMMEDIATE")
            sqlite3_bind_text(insertOperation, 1, id, -1, transient)
            sqlite3_bind_text(insertOperation, 2, "raw-device", -1, transient)
            sqlite3_bind_int64(insertOperation, 3, Int64(index + 1))
            sqlite3_bind_int64(insertOperation, 4, Int64(Date().timeIntervalSince1970 * 1000))
            sqlite3_bind_text(insertOperation, 5, entity, -1, transient)
            sqlite3_bind_text(insertOperation, 6, fields, -1, transient)
            guard sqlite3_step(insertOperation) == SQLITE_DONE else {
                throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
            }
            sqlite3_reset(insertOperation)
            sqlite3_bind_text(insertChange, 1, id, -1, transient)
            sqlite3_bind_text(insertChange, 2, entity, -1, transient)
            guard sqlite3_step(insertChange) == SQLITE_DONE else {
                throw BenchError.sqlite(String(cString: sqlite3_errmsg(db)))
            }
            sqlite3_reset(insertChange)
            try exec("COMMIT")
        }
        return Double(count) / Date().timeIntervalSince(start)
    }
}
