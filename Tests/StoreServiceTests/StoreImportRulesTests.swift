import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import StoreService

/// Operations from outside pass the same rules as local commands: each crafted operation that once
/// crashed the store or was stored without complaint is refused naming the field, nothing of it
/// is written, and the store keeps serving (and applying the rest of the page).
@Suite("hearth-store: imported operations pass the domain's rules", .serialized, .timeLimit(.minutes(2)))
struct StoreImportRulesTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    static let dad = StoreHistoryTests.dad

    /// An operation as an export file carries it, signed by its author's test key.
    static func operation(
        _ id: String, kind: String = "event_card", entity: String = "2026-08", wall: Int64 = 1_000,
        logical: Int64 = 0, _ fields: [String: JSONValue] = ["title": "Beach day"]
    ) -> JSONValue {
        TestHousehold.signed(
            [
                "id": .string(id), "time": ["wall": .int(wall), "logical": .int(logical)],
                "entity": ["kind": .string(kind), "id": .string(entity)],
                "fields": .object(fields.mapValues { ["value": $0, "overwrites": []] }),
            ])
    }

    /// What an import of `operations` refused, as "'field' rule" lines.
    static func refusals(_ reply: JSONValue) -> [String] {
        (reply["refused"]?.arrayValue ?? []).map {
            "'\($0["field"]?.stringValue ?? "")' \($0["rule"]?.stringValue ?? "")"
        }
    }

    @Test("each crafted operation is refused naming its field and rule; nothing is written; the store serves on")
    func craftedImports() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            let local = running.store.database.localDevice
            let before = try await operationCount(running)
            // An operation in this device's name, truly signed by it, that it does not hold.
            let own = try Operation(json: StoreImportRulesTests.unsigned("\(local):9223372036854775807"), at: "own")
            let cases: [(JSONValue, String)] = [
                (Self.operation("\(Self.dad):1", entity: "2026-13"), "operations[0].entity.id"),
                (Self.operation("\(Self.dad):1", entity: "2026-00"), "operations[0].entity.id"),
                (Self.operation("\(Self.dad):1", entity: "0000-08"), "operations[0].entity.id"),
                (Self.operation("\(Self.dad):1", entity: "99999-08"), "operations[0].entity.id"),
                (own.signed(running.store.database.signer.sign(own).text), "which this device does not hold"),
                (Self.operation("\(Self.dad):18446744073709551615"), "the counter must be 1–9223372036854775807"),
                (
                    Self.operation("\(Self.dad):1", ["title": .string(String(repeating: "x", count: 300))]),
                    "operations[0].fields.title' must be at most 200 characters, got 300"
                ),
                (
                    Self.operation("\(Self.dad):1", ["day": 99]),
                    "operations[0].fields.day' must be 1–31 for August 2026"
                ),
                (Self.operation("\(Self.dad):1", ["title": 42]), "operations[0].fields.title' must be text or null"),
                (Self.operation("\(Self.dad):1", ["title": "bell\u{07}"]), "control characters"),
                (Self.operation("\(Self.dad):1", ["balance": 5]), "'operations[0].fields.balance' is not a field"),
                (Self.operation("\(Self.dad):1", kind: "bank_account", entity: "x"), "'bank_account' is not kept here"),
                (Self.operation("mallory:1"), "'mallory' is not a device id"),
                (Self.operation("a:b:1"), "'a:b' is not a device id"),
                (Self.operation("\(Self.dad):1", wall: -5), "operations[0].time.wall"),
            ]
            for (operation, message) in cases {
                let reply = try await running.commands.request(
                    "ops.import", args: ["format": "hearth-ops/2", "operations": [operation]])
                #expect(reply["received"] == 0, "\(message)")
                #expect(reply["refused_count"] == 1, "\(message)")
                let refusals = Self.refusals(reply)
                #expect(refusals.count == 1 && refusals[0].contains(message), "\(refusals)")
            }
            let format = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "ops.import",
                    args: ["format": "hearth-ops/99", "operations": [Self.operation("\(Self.dad):1")]])
            }
            #expect(format?.description.contains("'format' must be hearth-ops/2, got hearth-ops/99") == true)
            #expect(try await operationCount(running) == before)

            // Still serving, and local writes still count on from the trust record (operation 1).
            let set = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            #expect(set["op"]?.stringValue == "\(local):2")
            // A bad operation never blocks the good ones beside it.
            let imported = try await running.commands.request(
                "ops.import",
                args: [
                    "format": "hearth-ops/2",
                    "operations": [
                        Self.operation("\(Self.dad):1", entity: "2026-13"),
                        Self.operation("\(Self.dad):1", entity: "2026-09"),
                    ],
                ])
            #expect(imported["received"] == 1)
            #expect(Self.refusals(imported).first?.contains("operations[0].entity.id") == true)
        }
    }

    /// An operation as `operation` makes it, unsigned.
    static func unsigned(_ id: String) -> JSONValue {
        [
            "id": .string(id), "time": ["wall": 1_000, "logical": 0],
            "entity": ["kind": "event_card", "id": "2026-08"],
            "fields": ["title": ["value": "Beach day", "overwrites": []]],
        ]
    }

    @Test("a local command breaking a rule is refused by the same validator, naming the field")
    func localCommandsShareTheRules() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let error = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "event.set", args: ["year": 2026, "month": 8, "title": "red\u{1B}[31m"])
            }
            #expect(error?.description.contains("'title' must not contain control characters") == true)
            #expect(try await operationCount(running) == 0)
        }
    }

    @Test("every domain's text fields refuse control characters, direction overrides and over-long text in an import")
    func textFieldsOfEveryDomain() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            let before = try await operationCount(running)
            let uuid = "0b0b0000-0000-4000-8000-0000000000c1"
            let fields: [(kind: String, entity: String, field: String, limit: Int)] = [
                ("event_card", "2026-08", "title", 200), ("event_card", "2026-08", "location", 200),
                ("todo_collection", uuid, "name", 100), ("todo", uuid, "title", 200),
                ("todo_subtask", uuid, "title", 200), ("member", uuid, "name", 100),
                ("timetable_entry", uuid, "subject", 100), ("timetable_entry", uuid, "teacher", 40),
                ("timetable_entry", uuid, "room", 40), ("school_holiday", uuid, "name", 100),
                ("device", uuid, "name", 60), ("person", uuid, "name", 100), ("person", uuid, "tags", 200),
                ("person", uuid, "purpose", 500), ("interaction", uuid, "note", 2000),
            ]
            var counter = 0
            for (kind, entity, field, limit) in fields {
                for (value, rule) in [
                    ("bell\u{07}", "must not contain control characters or direction overrides (found U+0007)"),
                    ("red\u{1B}[31m", "(found U+001B)"), ("abc\u{202E}cba", "(found U+202E)"),
                    ("\u{2066}x", "(found U+2066)"), ("c1\u{85}", "(found U+0085)"),
                    (String(repeating: "x", count: limit + 1), "must be at most \(limit) characters"),
                ] {
                    counter += 1
                    let operation = Self.operation(
                        "\(Self.dad):\(counter)", kind: kind, entity: entity, [field: .string(value)])
                    let reply = try await running.commands.request("ops.import", args: ["operations": [operation]])
                    let refusal = Self.refusals(reply).first ?? ""
                    #expect(reply["received"] == 0, "\(kind).\(field)")
                    #expect(
                        refusal.contains("operations[0].fields.\(field)' \(rule.hasPrefix("(") ? "" : rule)")
                            && refusal.contains(rule),
                        "\(kind).\(field): \(refusal)")
                }
            }
            #expect(try await operationCount(running) == before)
        }
    }
}
