import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import StoreService

@Suite("hearth-store: history, conflicts, devices, import", .serialized, .timeLimit(.minutes(2)))
struct StoreHistoryTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// Another device of the household (device ids are lower-case UUIDs).
    static let dad = "dadd0000-0000-4000-8000-00000000000b"

    /// An operation from another device, as a file from `hearth ops export` would carry it:
    /// signed with that device's test key (`TestHousehold`).
    static func remote(
        _ id: String, wall: Int64, month: Int, _ fields: [String: JSONValue], overwrites: [String] = []
    ) -> JSONValue {
        var writes: [String: JSONValue] = [:]
        for (name, value) in fields {
            writes[name] = ["value": value, "overwrites": .array(overwrites.map(JSONValue.string))]
        }
        return TestHousehold.signed(
            [
                "id": .string(id), "time": ["wall": .int(wall), "logical": 0],
                "entity": ["kind": "event_card", "id": .string("2026-\(month < 10 ? "0" : "")\(month)")],
                "fields": .object(writes),
            ])
    }

    @Test("history lists previous → new values by month, with device names, filtered by month, device and time")
    func history() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            _ = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach day", "day": 14])
            _ = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach weekend"])
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 3, "title": "Fair"])
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            _ = try await running.commands.request(
                "ops.import",
                args: ["operations": [Self.remote("\(Self.dad):1", wall: now, month: 3, ["location": "Park"])]])
            _ = try await running.commands.request("device.rename", args: ["id": .string(Self.dad), "name": "Dad"])

            let all = try await running.commands.request("history", args: [:])
            let months = try #require(all["months"]?.arrayValue)
            #expect(months.map { $0["month"]?.intValue } == [3, 8])
            let august = try #require(months[1]["changes"]?.arrayValue)
            #expect(august.count == 2)
            #expect(august[1]["changes"]?["title"] == ["from": "Beach day", "to": "Beach weekend"])
            #expect(august[0]["changes"]?["title"] == ["from": nil, "to": "Beach day"])
            #expect(august[0]["changes"]?["day"] == ["from": nil, "to": 14])
            #expect(august[0]["device_name"] == .string(StoreDatabase.hostName()))

            let dad = try await running.commands.request("history", args: ["device": "dad"])
            #expect(dad["months"]?.arrayValue?.count == 1)
            #expect(dad["months"]?.arrayValue?.first?["changes"]?.arrayValue?.first?["device_name"] == "Dad")
            // A device nobody has is named as such, not answered with "no changes".
            let typo = await #expect(throws: CommandClientError.self) {
                try await running.commands.request("history", args: ["device": "Typo"])
            }
            #expect(
                typo?.description.contains(
                    "no device 'Typo' (known: \(["Dad", StoreDatabase.hostName()].sorted().joined(separator: ", ")))")
                    == true, "\(String(describing: typo))")
            let onlyAugust = try await running.commands.request("history", args: ["month": 8, "year": 2026])
            #expect(onlyAugust["months"]?.arrayValue?.map { $0["month"]?.intValue } == [8])
            let future = try await running.commands.request("history", args: ["since": "2999-01-01"])
            #expect(future["months"]?.arrayValue?.isEmpty == true)
            await #expect(throws: CommandClientError.self) {
                try await running.commands.request("history", args: ["since": "last tuesday"])
            }
        }
    }

    @Test("concurrent edits from another device open a conflict that a resolution closes, values kept in history")
    func conflicts() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            let base = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            let parent = try #require(base["op"]?.stringValue)
            _ = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "title": "Beach weekend"])
            // Dad's device also edited the title it saw ("Beach day"), later in hybrid time.
            let later = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
            let report = try await running.commands.request(
                "ops.import",
                args: [
                    "operations": [
                        Self.remote("\(Self.dad):1", wall: later, month: 8, ["title": "Camping"], overwrites: [parent])
                    ]
                ])
            #expect(report["received"] == 1)
            #expect(report["already_had"] == 0)
            #expect(report["conflicts"] == 1)
            #expect(report["quarantined"] == [])
            #expect(report["refused_count"] == 0)

            let open = try await running.commands.request("conflicts")
            let conflict = try #require(open["conflicts"]?.arrayValue?.first)
            #expect(conflict["id"] == "2026-08/title")
            #expect(conflict["shown"] == "Camping")
            #expect(
                Set(conflict["values"]?.arrayValue?.compactMap { $0["value"]?.stringValue } ?? []) == [
                    "Beach weekend", "Camping",
                ])
            let list = try await running.commands.request("event.list", args: ["year": 2026])
            #expect(list["cards"]?.arrayValue?[7]["conflicted"] == true)

            // The same file again changes nothing.
            let again = try await running.commands.request(
                "ops.import",
                args: [
                    "operations": [
                        Self.remote("\(Self.dad):1", wall: later, month: 8, ["title": "Camping"], overwrites: [parent])
                    ]
                ])
            #expect(again["received"] == 0)
            #expect(again["already_had"] == 1)

            // A --keep naming no device, operation or value of the conflict is refused, not stored.
            let unknown = await #expect(throws: CommandClientError.self) {
                try await running.commands.request("conflicts.resolve", args: ["id": "2026-08/title", "keep": "Mum"])
            }
            #expect(unknown?.description.contains("names no value in the conflict 2026-08/title") == true)
            #expect(try await running.commands.request("conflicts")["conflicts"]?.arrayValue?.count == 1)

            let resolved = try await running.commands.request(
                "conflicts.resolve", args: ["id": "2026-08/title", "keep": "dev-a"])
            #expect(resolved["card"]?["title"] == "Beach weekend")
            #expect(resolved["card"]?["conflicted"] == false)
            #expect(try await running.commands.request("conflicts")["conflicts"]?.arrayValue?.isEmpty == true)
            await #expect(throws: CommandClientError.self) {
                try await running.commands.request("conflicts.resolve", args: ["id": "2026-08/title", "keep": "x"])
            }

            // Undoing "Keep this" puts the conflict back as it was: both values open again.
            let undone = try await running.commands.request("undo").decode(UndoReport.self)
            #expect(undone.step.command == "conflicts.resolve", "\(undone)")
            #expect(undone.restored.first?.contains("title in conflict again") == true, "\(undone)")
            let reopened = try await running.commands.request("conflicts")
            let back = try #require(reopened["conflicts"]?.arrayValue?.first, "\(reopened)")
            #expect(back["id"] == "2026-08/title")
            #expect(
                Set(back["values"]?.arrayValue?.compactMap { $0["value"]?.stringValue } ?? []) == [
                    "Beach weekend", "Camping",
                ])
            #expect(
                try await running.commands.request("event.list", args: ["year": 2026])["cards"]?.arrayValue?[7][
                    "conflicted"] == true)
            // Redone: resolved again, to the value kept.
            _ = try await running.commands.request("redo")
            #expect(try await running.commands.request("conflicts")["conflicts"]?.arrayValue?.isEmpty == true)
            let card = try await running.commands.request("event.list", args: ["year": 2026])["cards"]?.arrayValue?[7]
            #expect(card?["title"] == "Beach weekend" && card?["conflicted"] == false, "\(String(describing: card))")
        }
    }

    @Test(
        "a malformed operation is refused naming the bad field, and writes nothing of itself; the good one beside it applies"
    )
    func malformedImport() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            let before = try await operationCount(running)
            let good = Self.remote("\(Self.dad):1", wall: 1_000, month: 8, ["title": "Ok"])
            let cases: [(JSONValue, String)] = [
                ([good, ["id": .string("\(Self.dad):2")]], "'operations[1].time'"),
                ([good, Self.remote("nocounter", wall: 1, month: 8, ["title": "x"])], "'operations[1].id'"),
                (
                    [good, Self.remote("\(Self.dad):3", wall: 1, month: 8, ["title": 1.5])],
                    "'operations[1].fields.title.value'"
                ),
                ([good, Self.remote("\(Self.dad):4", wall: 1, month: 8, [:])], "at least one field"),
                // (An operation from a clock too far ahead is held back, not refused: StoreExchangeTests.)
            ]
            for (index, (operations, message)) in cases.enumerated() {
                let reply = try await running.commands.request("ops.import", args: ["operations": operations])
                #expect(reply["received"] == (index == 0 ? 1 : 0))
                #expect(reply["already_had"] == (index == 0 ? 0 : 1))
                let refusals = StoreImportRulesTests.refusals(reply)
                #expect(refusals.count == 1 && refusals[0].contains(message), "\(refusals)")
            }
            let error = await #expect(throws: CommandClientError.self) {
                try await running.commands.request("ops.import", args: ["operations": "not a list"])
            }
            #expect(error?.description.contains("'operations' is required and must be an array") == true)
            #expect(try await operationCount(running) == before + 1)
        }
    }

    @Test("devices: this one is listed and marked; others appear on import and can be renamed")
    func devices() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            try await TestHousehold.trust([Self.dad], store: running.commands)
            _ = try await running.commands.request(
                "ops.import",
                args: ["operations": [Self.remote("\(Self.dad):1", wall: 1_000, month: 1, ["title": "x"])]])
            let list = try await running.commands.request("device.list")
            let devices = try #require(list["devices"]?.arrayValue)
            #expect(devices.count == 2)
            #expect(devices[0]["id"] == "dev-a")
            #expect(devices[0]["local"] == true)
            _ = try await running.commands.request(
                "device.rename", args: ["id": .string(Self.dad), "name": "Mum's laptop"])
            let renamed = try await running.commands.request("device.list")
            #expect(renamed["devices"]?.arrayValue?.contains { $0["name"] == "Mum's laptop" } == true)
            await #expect(throws: CommandClientError.self) {
                // "d" starts both dev-a and dadd…
                try await running.commands.request("device.rename", args: ["id": "d", "name": "Ambiguous"])
            }
        }
    }

    @Test("a suggestion is listed, accepting puts its values on the card, declining leaves the card, and each is final")
    func suggestions() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            let suggested = try await running.commands.request(
                "event.suggest", args: ["year": 2026, "month": 8, "title": "Beach weekend", "day": 15])
            let id = try #require(suggested["suggestion"]?["id"]?.stringValue)
            #expect(suggested["suggestion"]?["status"] == "open")
            let open = try await running.commands.request("event.suggestions")
            #expect(open["suggestions"]?.arrayValue?.map { $0["id"]?.stringValue } == [id])

            let accepted = try await running.commands.request(
                "event.accept", args: ["id": .string(String(id.prefix(8)))])
            #expect(accepted["card"]?["title"] == "Beach weekend")
            #expect(accepted["card"]?["day"] == 15)
            #expect(accepted["suggestion"]?["status"] == "accepted")
            #expect(accepted["suggestion"]?["decided_by"] == "dev-a")
            let history = try await running.commands.request("history", args: ["month": 8])
            #expect(history["months"]?.arrayValue?.first?["changes"]?.arrayValue?.count == 2)
            await #expect(throws: CommandClientError.self) {
                try await running.commands.request("event.decline", args: ["id": .string(id)])
            }

            let other = try await running.commands.request(
                "event.suggest", args: ["year": 2026, "month": 8, "location": "Cornwall"])
            let otherID = try #require(other["suggestion"]?["id"]?.stringValue)
            let declined = try await running.commands.request("event.decline", args: ["id": .string(otherID)])
            #expect(declined["suggestion"]?["status"] == "declined")
            let card = try await running.commands.request("event.show", args: ["year": 2026, "month": 8])
            #expect(card["location"] == .null)
            #expect(try await running.commands.request("event.suggestions")["suggestions"]?.arrayValue?.isEmpty == true)
            let all = try await running.commands.request("event.suggestions", args: ["status": "all"])
            #expect(all["suggestions"]?.arrayValue?.count == 2)
        }
    }

    @Test(
        "a suggestion the card already holds, or that an open one makes, is refused saying so; accepting one closes those the card now holds"
    )
    func equalSuggestions() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await running.commands.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            func refusal(_ arguments: [String: JSONValue]) async -> String {
                let error = await #expect(throws: CommandClientError.self) {
                    try await running.commands.request("event.suggest", args: arguments)
                }
                return error?.description ?? ""
            }
            #expect(
                await refusal(["year": 2026, "month": 8, "title": "Beach day"]).contains(
                    "the August 2026 card already says that"))
            let weekend = try await running.commands.request(
                "event.suggest", args: ["year": 2026, "month": 8, "title": "Beach weekend", "day": 15])
            let weekendID = try #require(weekend["suggestion"]?["id"]?.stringValue)
            #expect(
                await refusal(["year": 2026, "month": 8, "title": "Beach weekend", "day": 15]).contains(
                    "already suggested that for the August 2026 card (\(weekendID.prefix(8)))"))
            // Part of it, suggested apart: held by the card once the whole is accepted.
            let title = try await running.commands.request(
                "event.suggest", args: ["year": 2026, "month": 8, "title": "Beach weekend"])
            let titleID = try #require(title["suggestion"]?["id"]?.stringValue)
            let accepted = try await running.commands.request("event.accept", args: ["id": .string(weekendID)])
            #expect(accepted["closed"] == [.string(titleID)])
            let open = try await running.commands.request("event.suggestions")
            #expect(open["suggestions"]?.arrayValue?.isEmpty == true, "\(open)")

            // One the card came to hold another way: accepting it says so and touches nothing.
            let later = try await running.commands.request(
                "event.suggest", args: ["year": 2026, "month": 8, "location": "Cornwall"])
            let laterID = try #require(later["suggestion"]?["id"]?.stringValue)
            _ = try await running.commands.request(
                "event.set", args: ["year": 2026, "month": 8, "location": "Cornwall"])
            let before = try await operationCount(running)
            let again = try await running.commands.request("event.accept", args: ["id": .string(laterID)])
            #expect(again["already_on_card"] == true)
            #expect(again["suggestion"]?["status"] == "accepted")
            #expect(try await operationCount(running) == before + 1, "the suggestion closed, the card untouched")
        }
    }

    @Test("bad suggestions are refused naming the field, and write nothing")
    func badSuggestions() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            for (arguments, message) in [
                (["year": 2026, "month": 2, "day": 30] as [String: JSONValue], "'day' must be 1–28"),
                (["year": 2026, "month": 8] as [String: JSONValue], "nothing to suggest"),
                (["year": 2026, "month": 0, "title": "x"] as [String: JSONValue], "'month' must be 1–12"),
            ] {
                let error = await #expect(throws: CommandClientError.self) {
                    try await running.commands.request("event.suggest", args: arguments)
                }
                #expect(error?.description.contains(message) == true, "\(String(describing: error))")
            }
            await #expect(throws: CommandClientError.self) {
                try await running.commands.request("event.accept", args: ["id": "nonexistent"])
            }
            #expect(try await operationCount(running) == 0)
        }
    }
}
