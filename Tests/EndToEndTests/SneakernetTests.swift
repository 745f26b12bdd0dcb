import Foundation
import GRDB
import HearthBus
import HearthTesting
import Testing

/// Two homes exchanging operations by file, and backup/restore, with real processes.
@Suite("End to end: sneakernet sync and backup", .serialized, .timeLimit(.minutes(2)))
struct SneakernetTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    func export(_ stack: TestStack, _ arguments: [String], to name: String) async throws -> String {
        let path = stack.home.file(name)
        try await hearthSucceeding(stack, ["ops", "export"] + arguments).write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The fingerprint of `stack`'s signing key, as `hearth device list` shows it there.
    func signingFingerprint(_ stack: TestStack) async throws -> String {
        let devices = try JSONValue.parse(try await hearthSucceeding(stack, ["device", "list", "--json"]))
        let local = devices["devices"]?.arrayValue?.first { $0["local"] == true }
        return try #require(local?["signing_key"]?.stringValue)
    }

    /// The parts of a JSON reply that must match between homes (device names are each home's own).
    func comparable(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            .object(members.filter { $0.key != "device_name" }.mapValues(comparable))
        case .array(let elements): .array(elements.map(comparable))
        default: value
        }
    }

    @Test(
        "a todo's time edited apart on two homes: conflicts names the todo by its title and short id, todo show says so, resolve takes both and --keep 07:30"
    )
    func todoConflict() async throws {
        let mum = try await TestStack([.bus, .store], context: context)
        let dad = try await TestStack([.bus, .store], context: context)
        _ = try await hearthSucceeding(mum, ["collection", "add", "Home", "--kind", "list"])
        let added = try JSONValue.parse(
            try await hearthSucceeding(
                mum, ["todo", "add", "Water the plants", "--collection", "Home", "--due", "2026-12-07", "--json"]))
        let id = try #require(added["todo"]?["id"]?.stringValue)
        let short = String(id.prefix(8))
        let first = try await export(mum, ["--all"], to: "mum-1.json")
        _ = try await hearthSucceeding(dad, ["ops", "import", first, "--trust", try await signingFingerprint(mum)])
        _ = try await hearthSucceeding(mum, ["todo", "edit", short, "--time", "07:30"])
        _ = try await hearthSucceeding(dad, ["todo", "edit", short, "--time", "08:15"])
        let fromDad = try await export(dad, ["--all"], to: "dad-1.json")
        _ = try await hearthSucceeding(mum, ["ops", "import", fromDad, "--trust", try await signingFingerprint(dad)])

        let listed = try await hearthSucceeding(mum, ["conflicts"])
        #expect(listed.contains("\(short)/due_time  todo 'Water the plants'"), "\(listed)")
        #expect(!listed.contains(id), "the whole id: \(listed)")
        let shown = try await hearthSucceeding(mum, ["todo", "show", short])
        #expect(shown.contains("! edited on two devices at once"), "\(shown)")
        let resolved = try await hearthSucceeding(
            mum, ["conflicts", "resolve", "\(short)/due_time", "--keep", "07:30"])
        #expect(resolved.contains("kept 07:30"), "\(resolved)")
        #expect(!resolved.contains("?"), "\(resolved)")
        #expect(try await hearthSucceeding(mum, ["conflicts"]).contains("no open conflicts"))
        for stack in [mum, dad] { for status in await stack.stop().values { #expect(status == 0) } }
    }

    @Test("two homes editing one card apart, exchanging files both ways, end identical with the same open conflict")
    func twoHomes() async throws {
        let mum = try await TestStack([.bus, .store], context: context)
        let dad = try await TestStack([.bus, .store], context: context)
        _ = try await hearthSucceeding(
            mum, ["event", "set", "aug", "--year", "2026", "--title", "Beach day", "--location", "Brighton"])
        let first = try await export(mum, ["--all"], to: "mum-1.json")
        // A file from a device Dad's home does not know is refused until a person confirms its
        // key's fingerprint, read on Mum's device.
        let unknown = try await dad.hearth(["ops", "import", first])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("which this household does not know yet"), "\(unknown.stderr)")
        let wrong = try await dad.hearth(["ops", "import", first, "--trust", "0000 0000 0000"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("'trust' does not match"), "\(wrong.stderr)")
        let fingerprint = try await signingFingerprint(mum)
        // Mum's card, and the operation naming her device (names travel).
        #expect(
            try await hearthSucceeding(dad, ["ops", "import", first, "--trust", fingerprint]).contains(
                "received 2, already had 0"))

        // Apart: both change the title; Dad also sets the day.
        _ = try await hearthSucceeding(mum, ["event", "set", "aug", "--year", "2026", "--title", "Beach weekend"])
        _ = try await hearthSucceeding(
            dad, ["event", "set", "aug", "--year", "2026", "--title", "Camping", "--day", "15"])

        let fromMum = try await export(mum, ["--since-vector", first], to: "mum-2.json")
        let fromDad = try await export(dad, ["--all"], to: "dad-1.json")
        // Dad's card, his name and his vouch for Mum's key; Mum's two already had.
        #expect(
            try await hearthSucceeding(mum, ["ops", "import", fromDad, "--trust", try await signingFingerprint(dad)])
                .contains("received 3, already had 2, new conflicts 1 (open 1)"))
        #expect(
            try await hearthSucceeding(dad, ["ops", "import", fromMum]).contains(
                "received 1, already had 0, new conflicts 1 (open 1)"))

        for command in [
            ["event", "show", "aug", "--year", "2026", "--json"], ["history", "--json"], ["conflicts", "--json"],
            ["event", "list", "--year", "2026", "--json"],
        ] {
            let mine = comparable(try JSONValue.parse(try await hearthSucceeding(mum, command)))
            let theirs = comparable(try JSONValue.parse(try await hearthSucceeding(dad, command)))
            #expect(mine == theirs, "\(command.joined(separator: " ")) differs")
        }
        let card = try JSONValue.parse(
            try await hearthSucceeding(mum, ["event", "show", "aug", "--year", "2026", "--json"]))
        #expect(card["conflicted"] == true)
        #expect(card["day"] == 15)
        #expect(card["location"] == "Brighton")
        let conflicts = try JSONValue.parse(try await hearthSucceeding(dad, ["conflicts", "--json"]))
        #expect(conflicts["conflicts"]?.arrayValue?.map { $0["id"] } == ["2026-08/title"])

        // Resolved on one side, the resolution travels like any other operation.
        _ = try await hearthSucceeding(dad, ["conflicts", "resolve", "2026-08/title", "--keep", "Beach weekend"])
        let resolution = try await export(dad, ["--since-vector", fromMum], to: "dad-2.json")
        _ = try await hearthSucceeding(mum, ["ops", "import", resolution])
        for stack in [mum, dad] {
            let shown = try JSONValue.parse(
                try await hearthSucceeding(stack, ["event", "show", "aug", "--year", "2026", "--json"]))
            #expect(shown["title"] == "Beach weekend")
            #expect(shown["conflicted"] == false)
        }
        for stack in [mum, dad] { for status in await stack.stop().values { #expect(status == 0) } }
    }

    @Test("backup runs while the store is up; restore refuses then, and brings the backup back once it is stopped")
    func backupAndRestore() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        _ = try await hearthSucceeding(stack, ["event", "set", "jan", "--year", "2026", "--title", "New year walk"])
        let backup = stack.home.file("backup.sqlite")
        #expect(try await hearthSucceeding(stack, ["backup", backup]).contains("backed up"))
        _ = try await hearthSucceeding(stack, ["event", "set", "feb", "--year", "2026", "--title", "Pancakes"])

        let refused = try await ChildProcess.run("hearth", ["restore", backup], environment: stack.environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("running"), "\(refused.stderr)")

        let store = try #require(stack.processes[.store])
        store.signal(SIGTERM)
        #expect(await store.waitForExit(timeout: .seconds(2)) == 0)
        let notADatabase = stack.home.file("device-id")
        #expect(
            try await ChildProcess.run("hearth", ["restore", notADatabase], environment: stack.environment).status == 2)
        // An SQLite file that is not Hearth's is refused too, and the household database stays.
        let unrelated = stack.home.file("unrelated.sqlite")
        try await DatabaseQueue(path: unrelated).write { db in try db.execute(sql: "CREATE TABLE recipes (name TEXT)") }
        let foreign = try await ChildProcess.run("hearth", ["restore", unrelated], environment: stack.environment)
        #expect(foreign.status == 2)
        #expect(foreign.stderr.contains("not a Hearth one"), "\(foreign.stderr)")
        let restored = try JSONValue.parse(try await hearthSucceeding(stack, ["restore", backup, "--json"]))
        #expect(restored["operations"] == 2, "the card and this device's name")
        // The database it replaced is kept whole beside it: both cards are in it.
        let kept = try #require(restored["replaced_kept_at"]?.stringValue)
        let keptOperations = try await DatabaseQueue(path: kept).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation")
        }
        #expect(keptOperations == 3)

        let restarted = try await TestStack.start(.store, environment: stack.environment)
        #expect(
            await TestStack.waitUntilAnswering(
                stack.configuration.commandEndpoint(.store), context: context, timeout: .seconds(10)))
        let list = try JSONValue.parse(
            try await hearthSucceeding(stack, ["event", "list", "--year", "2026", "--json"]))
        #expect(list["cards"]?.arrayValue?[0]["title"] == "New year walk")
        #expect(list["cards"]?.arrayValue?[1]["empty"] == true)
        // Restored, it writes nothing until it has taken its own operations back from a peer,
        // or a person with no other device says to go on.
        let early = try await stack.hearth(["event", "set", "mar", "--year", "2026", "--title", "Kites"])
        #expect(early.status == 2)
        #expect(early.stderr.contains("restored from a backup"), "\(early.stderr)")
        #expect(try await hearthSucceeding(stack, ["ops", "resume"]).contains("writes again"))
        _ = try await hearthSucceeding(stack, ["event", "set", "mar", "--year", "2026", "--title", "Kites"])
        restarted.signal(SIGTERM)
        #expect(await restarted.waitForExit(timeout: .seconds(2)) == 0)
        stack.process.signal(SIGTERM)
        #expect(await stack.process.waitForExit(timeout: .seconds(2)) == 0)
    }

    @Test(
        "a file over the command size limit imports in pages; a single request over it is refused by the client naming the limit"
    )
    func largeImportAndOversizedRequest() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        let device = "dadd0000-0000-4000-8000-00000000000b"
        let operations: [JSONValue] = (1...4_000).map { counter in
            let (year, month) = (2026 + (counter - 1) / 12, (counter - 1) % 12 + 1)
            return TestHousehold.signed(
                [
                    "id": .string("\(device):\(counter)"), "time": ["wall": .int(Int64(counter)), "logical": 0],
                    "entity": ["kind": "event_card", "id": .string("\(year)-\(month < 10 ? "0" : "")\(month)")],
                    "fields": ["title": ["value": .string("Title number \(counter) of many"), "overwrites": []]],
                ])
        }
        let file = stack.home.file("big.json")
        let key = TestHousehold.key(device).publicKey
        let header: [String: JSONValue] = [
            "format": "hearth-ops/2", "device": .string(device), "signing_key": .string(key.text),
        ]
        let text = JSONValue.object(header.merging(["operations": .array(operations)]) { $1 }).jsonText
        #expect(text.utf8.count > 256 * 1_024)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try JSONValue.parse(
            try await hearthSucceeding(stack, ["ops", "import", file, "--json", "--trust", key.fingerprint]))
        #expect(imported["received"] == 4_000)
        #expect((imported["pages"]?.intValue ?? 0) > 1)
        // Again: nothing twice.
        let again = try JSONValue.parse(try await hearthSucceeding(stack, ["ops", "import", file, "--json"]))
        #expect(again["received"] == 0)
        #expect(again["already_had"] == 4_000)

        // One request over the limit (an operation no page can hold) is refused before it is
        // sent, and not blamed on the store.
        let huge = TestHousehold.signed(
            [
                "id": .string("\(device):4001"), "time": ["wall": 5_000, "logical": 0],
                "entity": ["kind": "event_card", "id": "2026-08"],
                "fields": ["title": ["value": .string(String(repeating: "x", count: 300 * 1_024)), "overwrites": []]],
            ])
        let hugeFile = stack.home.file("huge.json")
        try JSONValue.object(header.merging(["operations": [huge]]) { $1 }).jsonText.write(
            toFile: hugeFile, atomically: true, encoding: .utf8)
        let result = try await stack.hearth(["ops", "import", hugeFile])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("over the 262144-byte limit of a command (not sent)"), "\(result.stderr.prefix(300))"
        )
        #expect(!result.stderr.contains("not answering"))
        _ = try await hearthSucceeding(stack, ["event", "set", "aug", "--year", "2026", "--title", "Beach day"])
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test("a title stored before the text rules, with an escape sequence, is printed harmlessly")
    func legacyControlCharacters() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        _ = try await hearthSucceeding(stack, ["event", "set", "aug", "--year", "2026", "--title", "Beach day"])
        // As an older build might have stored it.
        try await DatabaseQueue(path: stack.home.file("hearth.sqlite")).write { db in
            try db.execute(
                sql: "UPDATE event_card SET title = ? WHERE month = 8", arguments: ["bell\u{07}\u{1B}[31mred"])
        }
        let list = try await stack.hearth(["event", "list", "--year", "2026"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("bell^G^[[31mred"), "\(list.stdout)")
        #expect(!list.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
