import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import Logging
import Testing

@testable import StoreService

/// Daily notes, templates, refusals and subtasks (the suite's other half, in a file of its own to
/// keep each under 400 lines).
extension StoreTodosTests {
    @Test("daily notes: set, show, list newest first with mood counts; two devices writing one day keep both texts")
    func notes() async throws {
        try await withTwoStores(context: context) { a, b in
            let set = try await a.request(
                "note.set", args: ["date": "2026-11-20", "mood": "calm", "text": "Quiet day."])
            #expect(set["note"]?["mood"] == "calm")
            _ = try await a.request(
                "note.set", args: ["date": "2026-11-21", "mood": "happy", "text": "Park\nthen tea"])
            _ = try await a.request("note.set", args: ["date": "2026-11-22", "mood": "happy"])
            let shown = try await a.request("note.show", args: ["date": "2026-11-21"])
            #expect(shown["text"] == "Park\nthen tea")
            #expect(shown["mood"] == "happy")
            let list = try await a.request("note.list")
            #expect(
                (list["notes"]?.arrayValue ?? []).compactMap { $0["date"]?.stringValue } == [
                    "2026-11-22", "2026-11-21", "2026-11-20",
                ])
            #expect(list["moods"] == ["happy": 2, "calm": 1])
            let happySince = try await a.request("note.list", args: ["since": "2026-11-22", "mood": "happy"])
            #expect(happySince["notes"]?.arrayValue?.count == 1)
            #expect(try await a.request("note.show", args: ["date": "2026-11-19"])["empty"] == true)
            let bad = await #expect(throws: CommandClientError.self) {
                try await a.request("note.set", args: ["date": "2026-11-23", "mood": "grumpy"])
            }
            #expect(
                bad?.description.contains("'mood' must be one of happy, calm, neutral, sad, stressed, angry") == true)

            try await exchange(a, b)
            _ = try await a.request("note.set", args: ["date": "2026-11-20", "text": "Quiet day, long walk."])
            _ = try await b.request("note.set", args: ["date": "2026-11-20", "text": "Quiet day; rained."])
            try await exchange(a, b)
            for store in [a, b] {
                let note = try await store.request("note.show", args: ["date": "2026-11-20"])
                #expect(note["conflicted"] == true)
                #expect(
                    Set(note["conflicts"]?["text"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                        == ["Quiet day, long walk.", "Quiet day; rained."])
                let conflicts = try await store.request("conflicts")["conflicts"]?.arrayValue ?? []
                #expect(conflicts.map { $0["id"]?.stringValue ?? "" } == ["2026-11-20/text"])
            }
        }
    }

    @Test("all 20 templates apply into an empty home; applying twice makes a second collection; the result is editable")
    func templates() async throws {
        #expect(TodoTemplate.gallery.count == 20)
        #expect(TodoTemplate.gallery.filter { $0.kind == .habit }.count == 10)
        #expect(TodoTemplate.gallery.filter { $0.kind == .plan }.count == 5)
        #expect(TodoTemplate.gallery.filter { $0.kind == .list }.count == 5)
        try await withStore(context: context) { (running: RunningStore) async throws in
            var expected = 0
            for template in TodoTemplate.gallery {
                let reply = try await running.commands.request(
                    "template.apply", args: ["name": .string(template.name), "start": "2026-11-23"])
                #expect(reply["collection"]?["name"]?.stringValue == template.name)
                #expect(reply["collection"]?["kind"]?.stringValue == template.kind.rawValue)
                #expect(reply["todos"]?.intValue == Int64(template.items.count))
                expected += template.items.count
            }
            let todos = try await running.commands.request("todo.list")["todos"]?.arrayValue ?? []
            #expect(todos.count == expected)
            // Habits repeat from the start, plans are due over the weeks after it, lists have no date.
            for todo in todos {
                switch todo["kind"]?.stringValue {
                case "habit": #expect(todo["repeat"] != "none" && todo["due"] == "2026-11-23")
                case "plan": #expect(todo["repeat"] == "none" && (todo["due"]?.stringValue ?? "") >= "2026-11-23")
                default: #expect(todo["due"] == .null)
                }
            }
            let water = try await running.commands.request("todo.list", args: ["collection": "Water intake"])
            #expect(
                (water["todos"]?.arrayValue ?? []).compactMap { $0["time"]?.stringValue } == [
                    "08:00", "10:00", "12:00", "14:00", "16:00", "18:00", "20:00",
                ])
            let again = try await running.commands.request(
                "template.apply", args: ["name": "water-intake", "start": "2026-11-23"])
            #expect(again["collection"]?["name"] == "Water intake (2)")
            let first = try #require(water["todos"]?.arrayValue?.first?["id"]?.stringValue)
            let edited = try await running.commands.request(
                "todo.edit", args: ["id": .string(first), "title": "Big glass of water", "time": "08:30"])
            #expect(edited["todo"]?["title"] == "Big glass of water")
            let unknown = await #expect(throws: CommandClientError.self) {
                try await running.commands.request("template.apply", args: ["name": "Knitting", "start": "2026-11-23"])
            }
            #expect(unknown?.description.contains("'name' must be a template") == true)
        }
    }

    @Test("a template that fails part-way leaves nothing behind")
    func templateFault() async throws {
        let home = try TemporaryHome()
        try await withStore(context: context, home: home, faults: StoreFaults(templateFailAfter: 4)) {
            (running: RunningStore) async throws in
            let failed = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "template.apply", args: ["name": "Medication", "start": "2026-11-23"])
            }
            #expect(failed?.description.contains("injected fault after 4 todos") == true)
            #expect(try await operationCount(running) == 0)
            #expect(try await running.commands.request("collection.list")["collections"] == [])
        }
        // The same home without the fault: the template applies whole.
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            let applied = try await running.commands.request(
                "template.apply", args: ["name": "Medication", "start": "2026-11-23"])
            #expect(applied["todos"] == 5)
        }
    }

    @Test("every bad input is refused naming the field, and nothing is written")
    func badInput() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await running.commands.request("collection.add", args: ["name": "Plans", "kind": "plan"])
            let added = try await running.commands.request(
                "todo.add", args: ["title": "Report", "collection": "Plans", "due": "2026-04-30"])
            let id = try #require(added["todo"]?["id"]?.stringValue)
            let before = try await operationCount(running)
            let cases: [(String, [String: JSONValue], String)] = [
                ("todo.add", ["title": "   ", "collection": "Plans"], "'title' is required"),
                ("todo.add", ["title": "x", "collection": "Plans", "due": "2026-02-31"], "'due' must be a real date"),
                ("todo.add", ["title": "x", "collection": "Plans", "priority": "urgent"], "'priority' must be one of"),
                ("todo.add", ["title": "x", "collection": "Plans", "repeat": "hourly"], "'repeat' must be one of"),
                (
                    "todo.add",
                    [
                        "title": "x", "collection": "Plans", "due": "2026-03-01", "repeat": "daily",
                        "until": "2026-02-01",
                    ],
                    "'until' must not be before"
                ),
                ("todo.add", ["title": "x", "collection": "Plans", "time": "09:00"], "'time' needs a due date"),
                ("todo.add", ["title": "x", "collection": "Plans", "remind": true], "'remind' needs a due date"),
                ("todo.add", ["title": "x", "collection": "Nope"], "'collection': no collection 'Nope'"),
                (
                    "todo.add", ["title": "x", "collection": "Plans", "due": "2026-03-01", "time": "25:00"],
                    "'time' must be"
                ),
                ("collection.add", ["name": "Lists", "kind": "shopping"], "'kind' must be one of habit, plan, list"),
                ("collection.add", ["name": "plans", "kind": "plan"], "'name' must be unique"),
                ("subtask.add", ["todo": "abcdef12", "title": "step"], "'todo': no todo 'abcdef12'"),
                ("subtask.add", ["todo": .string(id), "title": ""], "'title' is required"),
                ("todo.edit", ["id": .string(id), "until": "2026-05-01"], "'until' is the end of a repeating todo"),
                ("todo.edit", ["id": .string(id), "due": "2026-04-31"], "'due' must be a real date"),
                (
                    "todo.occurrences", ["id": .string(id), "from": "2026-05-01", "to": "2026-04-01"],
                    "'to' must not be before"
                ),
            ]
            for (command, arguments, message) in cases {
                let error = await #expect(throws: CommandClientError.self, "\(command) \(arguments)") {
                    try await running.commands.request(command, args: arguments)
                }
                #expect(error?.description.contains(message) == true, "\(String(describing: error))")
            }
            #expect(try await operationCount(running) == before)
        }
    }

    @Test("subtasks keep their order through moves, ticks and removals")
    func subtasks() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await running.commands.request("collection.add", args: ["name": "Trip", "kind": "list"])
            let todo = try await running.commands.request("todo.add", args: ["title": "Pack", "collection": "Trip"])
            let id = try #require(todo["todo"]?["id"]?.stringValue)
            var subtaskIDs: [String] = []
            for title in ["socks", "passport", "charger"] {
                let reply = try await running.commands.request(
                    "subtask.add", args: ["todo": .string(id), "title": .string(title)])
                subtaskIDs.append(try #require(reply["subtask"]?["id"]?.stringValue))
            }
            _ = try await running.commands.request("subtask.move", args: ["id": .string(subtaskIDs[1]), "position": 1])
            _ = try await running.commands.request("subtask.done", args: ["id": .string(subtaskIDs[2])])
            _ = try await running.commands.request("subtask.remove", args: ["id": .string(subtaskIDs[0])])
            let shown = try await running.commands.request("todo.show", args: ["id": .string(id)])
            let subtasks = shown["subtasks"]?.arrayValue ?? []
            #expect(subtasks.map { $0["title"]?.stringValue ?? "" } == ["passport", "charger"])
            #expect(subtasks.map { $0["completed"] == true } == [false, true])
            let error = await #expect(throws: CommandClientError.self) {
                try await running.commands.request("subtask.move", args: ["id": .string(subtaskIDs[1]), "position": 5])
            }
            #expect(error?.description.contains("'position' must be 1–2") == true)
        }
    }
}
