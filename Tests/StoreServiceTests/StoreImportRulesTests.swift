import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import StoreService

/// Operations from outside pass the same rules as local commands: each crafted import that once
/// crashed the store or was stored without complaint is refused naming the field, nothing of it
/// is written, and the store keeps serving.
@Suite("hearth-store: imported operations pass the domain's rules", .serialized, .timeLimit(.minutes(2)))
struct StoreImportRulesTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    static let dad = StoreHistoryTests.dad

    /// An operation as an export file carries it.
    static func operation(
        _ id: String, kind: String = "event_card", entity: String = "2026-08", wall: Int64 = 1_000,
        logical: Int64 = 0, _ fields: [String: JSONValue] = ["title": "Beach day"]
    ) -> JSONValue {
        [
            "id": .string(id), "time": ["wall": .int(wall), "logical": .int(logical)],
            "entity": ["kind": .string(kind), "id": .string(entity)],
            "fields": .object(fields.mapValues { ["value": $0, "overwrites": []] }),
        ]
    }

    @Test("each crafted operation is refused naming its field and rule; nothing is written; the store serves on")
    func craftedImports() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let local = running.store.database.localDevice
            let cases: [(JSONValue, String)] = [
                (Self.operation("\(Self.dad):1", entity: "2026-13"), "operations[0].entity.id"),
                (Self.operation("\(Self.dad):1", entity: "2026-00"), "operations[0].entity.id"),
                (Self.operation("\(Self.dad):1", entity: "0000-08"), "operations[0].entity.id"),
                (Self.operation("\(Self.dad):1", entity: "99999-08"), "operations[0].entity.id"),
                (Self.operation("\(local):9223372036854775807"), "which this device never made"),
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
            for (operation, message) in cases where !message.isEmpty {
                let error = await #expect(throws: CommandClientError.self, "\(message)") {
                    try await running.commands.request("ops.import", args: ["operations": [operation]])
                }
                #expect(error?.description.contains(message) == true, "\(String(describing: error))")
            }
            let format = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "ops.import",
                    args: ["format": "hearth-ops/99", "operations": [Self.operation("\(Self.dad):1")]])
            }
            #expect(format?.description.contains("'format' must be hearth-ops/1, got hearth-ops/99") == true)
            #expect(try await operationCount(running) == 0)

            // Still serving, and local writes still count on from 1.
            let set = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            #expect(set["op"]?.stringValue == "\(local):1")
            // A valid import still imports.
            let imported = try await running.commands.request(
                "ops.import",
                args: ["format": "hearth-ops/1", "operations": [Self.operation("\(Self.dad):1", entity: "2026-09")]])
            #expect(imported["received"] == 1)
        }
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
                    let error = await #expect(throws: CommandClientError.self, "\(kind).\(field)") {
                        try await running.commands.request("ops.import", args: ["operations": [operation]])
                    }
                    #expect(
                        error?.description.contains("operations[0].fields.\(field)' \(rule.hasPrefix("(") ? "" : rule)")
                            == true && error?.description.contains(rule) == true,
                        "\(kind).\(field): \(String(describing: error))")
                }
            }
            #expect(try await operationCount(running) == 0)
        }
    }
}
