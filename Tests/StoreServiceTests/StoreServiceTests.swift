import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import Logging
import ServiceLifecycle
import Testing

@testable import StoreService

/// An in-process store (real SQLite file, real sockets) with its own bus, on a temporary home.
struct RunningStore {
    let home: TemporaryHome
    let configuration: HearthConfiguration
    let store: StoreService
    let commands: CommandClient
}

func withStore(
    context: ZMQContext,
    home existing: TemporaryHome? = nil,
    device: String = "dev-a",
    faults: StoreFaults = StoreFaults(),
    _ body: (RunningStore) async throws -> Void
) async throws {
    let home = try existing ?? TemporaryHome()
    let configuration = try home.configuration()
    let store = try StoreService(
        configuration: configuration, context: context, device: device, logger: Logger(label: "store"),
        faults: faults)
    let commands = CommandClient(
        context: context, endpoint: configuration.commandEndpoint(.store), timeout: .seconds(5))
    try await withRunning([store]) {
        try await body(RunningStore(home: home, configuration: configuration, store: store, commands: commands))
        await commands.close()
    }
}

func operationCount(_ running: RunningStore) async throws -> Int {
    try await running.store.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation") ?? 0
    }
}

@Suite("hearth-store: year planner and change feed", .serialized, .timeLimit(.minutes(2)))
struct StoreServiceTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("a card is created, edited, listed in order with its colour, and cleared with its history kept")
    func cards() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let set = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach day", "location": "Brighton", "day": 14])
            #expect(set["card"]?["title"] == "Beach day")
            #expect(set["seq"] == 1)
            _ = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach weekend"])
            let list = try await running.commands.request("event.list", args: ["year": 2026])
            let cards = try #require(list["cards"]?.arrayValue)
            #expect(cards.count == 12)
            #expect(cards.map { $0["month"]?.intValue } == (1...12).map { Int64($0) })
            #expect(cards[7]["title"] == "Beach weekend")
            #expect(cards[7]["location"] == "Brighton")
            #expect(cards[7]["day"] == 14)
            #expect(cards[7]["colour"]?.stringValue == YearPlanner.defaultColours[7])
            #expect(cards[0]["empty"] == true)
            #expect(Set(cards.compactMap { $0["colour"]?.stringValue }).count == 12)

            _ = try await running.commands.request("event.clear", args: ["year": 2026, "month": 8])
            let shown = try await running.commands.request("event.show", args: ["year": 2026, "month": 8])
            #expect(shown["empty"] == true)
            #expect(shown["operations"] == 3)
        }
    }

    @Test("saving the same values again writes nothing: no operation, no history line, no change")
    func noOpEdit() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let arguments: [String: JSONValue] = ["year": 2026, "month": 8, "title": "Beach day", "day": 14]
            let first = try await running.commands.request("event.set", args: arguments)
            #expect(first["unchanged"] == nil)
            let again = try await running.commands.request("event.set", args: arguments)
            #expect(again["unchanged"] == true)
            #expect(again["card"]?["title"] == "Beach day")
            #expect(try await operationCount(running) == 1)
            let feed = try await running.commands.request("changes", args: ["since": 0])
            #expect(feed["last_seq"] == 1)
            // One changed value among unchanged ones is an edit.
            let edited = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach day", "day": 15])
            #expect(edited["unchanged"] == nil)
            #expect(try await operationCount(running) == 2)
        }
    }

    @Test("bad arguments are refused naming the field and the rule, and write nothing")
    func validation() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let cases: [([String: JSONValue], String)] = [
                (["year": 2026, "month": 13, "title": "x"], "'month' must be 1–12, got 13"),
                (["year": 2026, "month": 2, "title": "x", "day": 29], "'day' must be 1–28 for February 2026, got 29"),
                (
                    ["year": 2026, "month": 4, "title": .string(String(repeating: "a", count: 201))],
                    "'title' must be at most 200"
                ),
                (
                    ["year": 2026, "month": 4, "title": "x", "location": .string(String(repeating: "a", count: 201))],
                    "'location' must be at most 200"
                ),
                (["year": 2026, "month": 5, "day": 3], "'title' is required"),
                (["year": 2026, "month": 5, "title": "   "], "'title' is required and must not be blank"),
                (["year": "2026", "month": 5, "title": "x"], "'year' must be a whole number, found a string"),
                (["month": 5, "title": "x"], "'year' is required"),
                (["year": 2026, "month": 5, "title": 7], "'title' must be a string, found a number"),
            ]
            for (arguments, message) in cases {
                let error = await #expect(throws: CommandClientError.self) {
                    try await running.commands.request("event.set", args: arguments)
                }
                guard case .refused(let refusal) = error else {
                    Issue.record("expected a refusal for \(arguments)")
                    continue
                }
                #expect(refusal.code == "invalid_argument")
                #expect(refusal.message.contains(message), "\(refusal.message)")
            }
            await #expect(throws: CommandClientError.refused(.unknownCommand("event.explode", service: "store"))) {
                try await running.commands.request("event.explode")
            }
            #expect(try await operationCount(running) == 0)
        }
    }

    @Test("progress: a token no work runs under is unknown, and a request without a token is refused naming it")
    func progressOfNothing() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let report = try await running.commands.send(ServiceCommands.Progress(token: "no-such-work"))
            #expect(report.known == false && report.done == nil)
            let error = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(ServiceCommands.Progress.name)
            }
            guard case .refused(let refusal) = error else {
                Issue.record("expected a refusal: \(String(describing: error))")
                return
            }
            #expect(refusal.message == "'token' is required", "\(refusal.message)")
        }
    }

    @Test("a command repeated with the same request id runs once and gets the same reply")
    func idempotent() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let id = UUIDText.make()
            let args: [String: JSONValue] = ["year": 2026, "month": 3, "title": "Spring fair"]
            let first = try await running.commands.request("event.set", args: args, id: id)
            let second = try await running.commands.request("event.set", args: args, id: id)
            #expect(first == second)
            #expect(try await operationCount(running) == 1)
        }
    }

    @Test("each change gets the next durable sequence number, and `changes` replays them from any point")
    func changeFeed() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            var replies: [JSONValue] = []
            for month in 1...5 {
                replies.append(
                    try await running.commands.request(
                        "event.set", args: ["year": 2027, "month": .int(Int64(month)), "title": .string("m\(month)")]))
            }
            #expect(replies.map { $0["seq"]?.intValue } == [1, 2, 3, 4, 5])
            let all = try await running.commands.request("changes", args: ["since": 0])
            #expect(all["last_seq"] == 5)
            #expect(all["changes"]?.arrayValue?.map { $0["seq"]?.intValue } == [1, 2, 3, 4, 5])
            let tail = try await running.commands.request("changes", args: ["since": 3])
            #expect(tail["changes"]?.arrayValue?.map { $0["seq"]?.intValue } == [4, 5])
            #expect(tail["changes"]?.arrayValue?.first?["operation"]?["entity"]?["id"] == "2027-04")
            await #expect(throws: CommandClientError.self) {
                try await running.commands.request("changes", args: ["since": -1])
            }
        }
    }

    @Test(
        "the sequence continues after a restart, and the database file is private (tightened at start if found loose)")
    func restart() async throws {
        let home = try TemporaryHome()
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 1, "title": "New year"])
        }
        // Loosened while the store was stopped (a copied home): made private again at start.
        chmod(home.file("hearth.sqlite"), 0o644)
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            let reply = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 2, "title": "Pancakes"])
            #expect(reply["seq"] == 2)
            #expect(reply["op"]?.stringValue == "dev-a:2")
            let mode =
                try FileManager.default.attributesOfItem(atPath: home.file("hearth.sqlite"))[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test(
        "malformed frames to store.cmd (bad JSON, bad UTF-8, oversized, wrong shape) get typed errors and write nothing"
    )
    func malformedFrames() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 1, "title": "Kept"])
            let raw = try SocketThread(context: context, kind: .dealer, name: "raw") { socket in
                try socket.setLinger(milliseconds: 0)
                try socket.connect(running.configuration.commandEndpoint(.store))
            }
            var replies = raw.incoming.makeAsyncIterator()
            let frames: [([Frame], String)] = [
                ([[], Array("{\"id\":\"1\",\"cmd\":\"event.set\",\"args\":{".utf8)], "malformed_request"),
                ([[], [0xC3, 0x28]], "malformed_request"),
                ([[], [UInt8](repeating: 0x20, count: running.configuration.maximumMessageBytes + 1)], "oversized"),
                ([[], Array("{\"id\":\"2\",\"cmd\":\"event.set\",\"args\":[1]}".utf8)], "malformed_request"),
            ]
            for (message, code) in frames {
                try raw.send(message)
                let reply = try CommandReply.decode(try #require(await replies.next()).last!)
                guard case .failure(let error) = reply.result else {
                    Issue.record("expected \(code)")
                    continue
                }
                #expect(error.code == code)
            }
            await raw.close()
            #expect(try await operationCount(running) == 1)
            let card = try await running.commands.request("event.show", args: ["year": 2026, "month": 1])
            #expect(card["title"] == "Kept")
        }
    }

    @Test("a change written straight from its row is byte for byte what the JSON writer makes of it")
    func encodedChanges() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Quote \" and \\ and ünïcode", "day": 14])
            try await running.store.database.pool.read { db in
                let row = try #require(
                    try Row.fetchOne(
                        db,
                        sql: """
                            SELECT change.seq, operation.id, operation.wall, operation.logical, operation.entity_kind,
                                   operation.entity_id, operation.fields
                            FROM change JOIN operation ON operation.id = change.op_id
                            """))
                let record = try #require(try OperationRecord.fetchOne(db))
                // The feed carries the operation without its signature (the exchange format's `sig`).
                let expected: JSONValue = ["seq": .int(row[0]), "operation": try record.operation.json]
                let encoded = StoreCommands.encodedChange(seq: row[0], row: row, fields: row[6])
                #expect(encoded == expected.jsonBytes)
                #expect(try JSONValue.parse(encoded) == expected)
            }
        }
    }
}
