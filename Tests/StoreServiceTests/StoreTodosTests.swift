import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import Logging
import Testing

@testable import StoreService

@Suite("hearth-store: todos, recurring completions and their sync", .serialized, .timeLimit(.minutes(2)))
struct StoreTodosTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// Two homes with devices of their own, each with a running store.
    private func withTwoStores(_ body: (CommandClient, CommandClient) async throws -> Void) async throws {
        let homes = (try TemporaryHome(), try TemporaryHome())
        let configurations = (try homes.0.configuration(), try homes.1.configuration())
        let stores = (
            try StoreService(
                configuration: configurations.0, context: context, device: UUIDText.make(), logger: Logger(label: "a")),
            try StoreService(
                configuration: configurations.1, context: context, device: UUIDText.make(), logger: Logger(label: "b"))
        )
        let clients = (
            CommandClient(context: context, endpoint: configurations.0.commandEndpoint(.store), timeout: .seconds(5)),
            CommandClient(context: context, endpoint: configurations.1.commandEndpoint(.store), timeout: .seconds(5))
        )
        try await withRunning([stores.0, stores.1]) {
            try await body(clients.0, clients.1)
        }
        await clients.0.close()
        await clients.1.close()
    }

    /// Sends `from` what it lacks of `to`'s log (what sync will do), both ways.
    private func exchange(_ a: CommandClient, _ b: CommandClient) async throws {
        for (from, to) in [(a, b), (b, a)] {
            let vector = try await to.request("ops.export", args: ["since_vector": [:]])["vector"] ?? [:]
            let export = try await from.request("ops.export", args: ["since_vector": vector])
            _ = try await to.request(
                "ops.import", args: ["format": "hearth-ops/1", "operations": export["operations"]!])
        }
    }

    private func occurrences(
        _ client: CommandClient, _ id: String, _ from: String, _ to: String
    ) async throws
        -> [String]
    {
        let reply = try await client.request(
            "todo.occurrences", args: ["id": .string(id), "from": .string(from), "to": .string(to)])
        return (reply["occurrences"]?.arrayValue ?? []).map {
            ($0["date"]?.stringValue ?? "") + ($0["done"] == true ? " done" : "")
        }
    }

    @Test(
        "a recurring todo completed for a date gets one instance; un-completing deletes it; two devices completing the same date converge on one"
    )
    func completionInstances() async throws {
        try await withTwoStores { a, b in
            _ = try await a.request("collection.add", args: ["name": "Habits", "kind": "habit"])
            let added = try await a.request(
                "todo.add",
                args: [
                    "title": "Stretch", "collection": "habits", "due": "2026-03-01", "time": "07:30",
                    "repeat": "daily", "until": "2026-03-05",
                ])
            let id = try #require(added["todo"]?["id"]?.stringValue)
            try await exchange(a, b)

            _ = try await a.request("todo.done", args: ["id": .string(id), "date": "2026-03-02"])
            _ = try await a.request("todo.done", args: ["id": .string(id), "date": "2026-03-03"])
            _ = try await b.request("todo.done", args: ["id": .string(id), "date": "2026-03-03"])
            try await exchange(a, b)
            for store in [a, b] {
                #expect(
                    try await occurrences(store, id, "2026-02-01", "2026-03-31") == [
                        "2026-03-01", "2026-03-02 done", "2026-03-03 done", "2026-03-04", "2026-03-05",
                    ])
                let day = try await store.request("todo.list", args: ["date": "2026-03-03"])
                #expect(day["todos"]?.arrayValue?.count == 1)
                #expect(try await store.request("conflicts")["conflicts"] == [])
            }
            // The template itself is never completed.
            #expect(try await a.request("todo.show", args: ["id": .string(id)])["completed"] == false)

            _ = try await b.request("todo.undone", args: ["id": .string(id), "date": "2026-03-02"])
            try await exchange(a, b)
            #expect(try await occurrences(a, id, "2026-03-02", "2026-03-02") == ["2026-03-02"])
            let history = try await a.request("todo.show", args: ["id": .string(id)])
            #expect(history["completions"] == ["2026-03-03"])

            // After its end date it leaves the lists (its completions stay), falls on no day, and no
            // day after can be completed.
            #expect(try await a.request("todo.list", args: ["today": "2026-03-05"])["todos"]?.arrayValue?.count == 1)
            #expect(try await a.request("todo.list", args: ["today": "2026-03-06"])["todos"] == [])
            #expect(try await occurrences(a, id, "2026-03-06", "2026-12-31") == [])
            let late = await #expect(throws: CommandClientError.self) {
                try await a.request("todo.done", args: ["id": .string(id), "date": "2026-03-06"])
            }
            #expect(late?.description.contains("'date' must be a day the todo falls on") == true)
            // Removing the todo keeps its completions in the log's history.
            _ = try await a.request("todo.remove", args: ["id": .string(id)])
            #expect(try await a.request("todo.list")["todos"] == [])
            let export = try await a.request("ops.export", args: ["since_vector": [:]])
            let kinds = (export["operations"]?.arrayValue ?? []).compactMap { $0["entity"]?["kind"]?.stringValue }
            #expect(kinds.filter { $0 == "todo_completion" }.count == 4)
        }
    }

    @Test("a todo edited on two devices at once is a conflict like a card's: listed, resolved, and in its history")
    func conflictsAndHistory() async throws {
        try await withTwoStores { a, b in
            _ = try await a.request("collection.add", args: ["name": "Home", "kind": "list"])
            let added = try await a.request("todo.add", args: ["title": "Paint the fence", "collection": "Home"])
            let id = try #require(added["todo"]?["id"]?.stringValue)
            try await exchange(a, b)
            _ = try await a.request("todo.edit", args: ["id": .string(id), "title": "Paint the fence green"])
            _ = try await b.request("todo.edit", args: ["id": .string(id), "title": "Paint the fence blue"])
            try await exchange(a, b)
            for store in [a, b] {
                let conflicts = try await store.request("conflicts")["conflicts"]?.arrayValue ?? []
                #expect(conflicts.map { $0["id"]?.stringValue ?? "" } == ["\(id)/title"])
                #expect(conflicts.first?["kind"] == "todo")
                #expect(try await store.request("todo.show", args: ["id": .string(id)])["conflicted"] == true)
            }
            _ = try await a.request(
                "conflicts.resolve", args: ["id": .string("\(id)/title"), "keep": "Paint the fence blue"])
            try await exchange(a, b)
            for store in [a, b] {
                #expect(try await store.request("conflicts")["conflicts"] == [])
                let todo = try await store.request("todo.show", args: ["id": .string(id)])
                #expect(todo["title"] == "Paint the fence blue")
                #expect(todo["conflicted"] == false)
            }
            _ = try await a.request("subtask.add", args: ["todo": .string(id), "title": "Buy paint"])
            _ = try await a.request("todo.remove", args: ["id": .string(id)])
            let history = try await a.request("todo.history", args: ["id": .string(id)])["changes"]?.arrayValue ?? []
            let titles = history.compactMap { $0["changes"]?["title"]?["to"]?.stringValue }
            // Added, the two concurrent edits (in time order), the resolution, the subtask.
            #expect(titles.count == 5)
            #expect(titles.first == "Paint the fence")
            #expect(titles.dropFirst(3).first == "Paint the fence blue")
            #expect(Set(titles) == ["Paint the fence", "Paint the fence green", "Paint the fence blue", "Buy paint"])
            #expect(history.last?["changes"]?["deleted"]?["to"] == true)
        }
    }

    @Test(
        "the calendar counts each day's todos across a month end and the autumn clock change, filters them, and marks a done occurrence once"
    )
    func calendar() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let store = running.commands
            _ = try await store.request("collection.add", args: ["name": "Habits", "kind": "habit"])
            _ = try await store.request("collection.add", args: ["name": "Work", "kind": "plan"])
            _ = try await store.request(
                "collection.add", args: ["name": "Private", "kind": "list", "show_in_calendar": false])
            let water = try #require(
                try await store.request(
                    "todo.add",
                    args: [
                        "title": "Water", "collection": "Habits", "due": "2026-10-20", "time": "08:00",
                        "repeat": "daily", "priority": "high",
                    ]
                )["todo"]?["id"]?.stringValue)
            _ = try await store.request(
                "todo.add",
                args: [
                    "title": "Review", "collection": "Work", "due": "2026-10-31", "repeat": "weekly", "priority": "low",
                ])
            _ = try await store.request(
                "todo.add", args: ["title": "Report", "collection": "Work", "due": "2026-11-01", "priority": "medium"])
            _ = try await store.request(
                "todo.add", args: ["title": "Secret", "collection": "Private", "due": "2026-11-01"])
            _ = try await store.request("todo.done", args: ["id": .string(water), "date": "2026-10-25"])
            _ = try await store.request("todo.done", args: ["id": .string(water), "date": "2026-11-01"])

            func counts(_ arguments: [String: JSONValue]) async throws -> [String: String] {
                var all = arguments
                all["from"] = "2026-10-24"
                all["to"] = "2026-11-02"
                let days = try await store.request("todo.calendar", args: all)["days"]?.arrayValue ?? []
                #expect(days.count == 10)
                var result: [String: String] = [:]
                for day in days {
                    let open = day["counts"]?["open"]?.intValue ?? -1
                    let done = day["counts"]?["done"]?.intValue ?? -1
                    #expect((day["todos"]?.arrayValue?.count ?? -1) == Int(open + done))
                    if open + done > 0 { result[day["date"]?.stringValue ?? ""] = "\(open)/\(done)" }
                }
                return result
            }
            // Water every day (done on the clock-change day and on 1 November), Review on the 31st,
            // Report on the 1st; Secret's collection stays out of the calendar.
            #expect(
                try await counts([:]) == [
                    "2026-10-24": "1/0", "2026-10-25": "0/1", "2026-10-26": "1/0", "2026-10-27": "1/0",
                    "2026-10-28": "1/0", "2026-10-29": "1/0", "2026-10-30": "1/0", "2026-10-31": "2/0",
                    "2026-11-01": "1/1", "2026-11-02": "1/0",
                ])
            #expect(try await counts(["status": "done"]) == ["2026-10-25": "0/1", "2026-11-01": "0/1"])
            #expect(try await counts(["priority": "low"]) == ["2026-10-31": "1/0"])
            #expect(try await counts(["kind": "plan"]) == ["2026-10-31": "1/0", "2026-11-01": "1/0"])
            #expect(
                try await counts(["collection": "Work", "status": "open", "priority": "medium"]) == [
                    "2026-11-01": "1/0"
                ])
            let day = try await store.request("todo.calendar", args: ["from": "2026-10-25", "to": "2026-10-25"])
            let todos = day["days"]?.arrayValue?.first?["todos"]?.arrayValue ?? []
            #expect(todos.count == 1)
            #expect(todos.first?["done"] == true)
            let bad = await #expect(throws: CommandClientError.self) {
                try await store.request(
                    "todo.calendar", args: ["from": "2026-10-01", "to": "2026-10-02", "kind": "chores"])
            }
            #expect(bad?.description.contains("'kind' must be one of habit, plan, list") == true)
        }
    }

    @Test("daily notes: set, show, list newest first with mood counts; two devices writing one day keep both texts")
    func notes() async throws {
        try await withTwoStores { a, b in
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
        try await withStore(context: context) { (running: RunningStore) async throws in
            StoreCommands.templateFault.withLock { $0 = 4 }
            defer { StoreCommands.templateFault.withLock { $0 = nil } }
            let failed = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "template.apply", args: ["name": "Medication", "start": "2026-11-23"])
            }
            #expect(failed?.description.contains("injected fault after 4 todos") == true)
            #expect(try await operationCount(running) == 0)
            #expect(try await running.commands.request("collection.list")["collections"] == [])
            StoreCommands.templateFault.withLock { $0 = nil }
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
