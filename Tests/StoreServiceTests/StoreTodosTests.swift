import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import Logging
import Testing

@testable import StoreService

@Suite("hearth-store: todos, recurring completions and their sync", .serialized, .timeLimit(.minutes(2)))
struct StoreTodosTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

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
        try await withTwoStores(context: context) { a, b in
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
                let day = try await store.request("todo.day", args: ["date": "2026-03-03"])
                #expect(day["todos"]?.arrayValue?.count == 1)
                // A day is todo.day's: todo.list refuses one rather than list every todo.
                let refused = await #expect(throws: CommandClientError.self) {
                    try await store.request("todo.list", args: ["date": "2026-03-03"])
                }
                #expect(
                    refused?.description.contains("'date' is not todo.list's") == true, "\(String(describing: refused))"
                )
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
        try await withTwoStores(context: context) { a, b in
            _ = try await a.request("collection.add", args: ["name": "Home", "kind": "list"])
            let added = try await a.request("todo.add", args: ["title": "Paint the fence", "collection": "Home"])
            let id = try #require(added["todo"]?["id"]?.stringValue)
            try await exchange(a, b)
            _ = try await a.request("todo.edit", args: ["id": .string(id), "title": "Paint the fence green"])
            _ = try await b.request("todo.edit", args: ["id": .string(id), "title": "Paint the fence blue"])
            try await exchange(a, b)
            for store in [a, b] {
                let conflicts = try await store.request("conflicts").decode(ConflictList.self).conflicts
                #expect(conflicts.map(\.id) == ["\(id)/title"])
                #expect(conflicts.first?.kind == "todo")
                // Named as the household names it, not by its id.
                #expect(conflicts.first?.name?.hasPrefix("todo 'Paint the fence") == true, "\(conflicts)")
                #expect(try await store.request("todo.show", args: ["id": .string(id)])["conflicted"] == true)
            }
            // The id by its start, as `conflicts` shows it; the reply says what was kept.
            let resolved = try await a.request(
                "conflicts.resolve", args: ["id": .string("\(id.prefix(8))/title"), "keep": "Paint the fence blue"]
            ).decode(ConflictResolved.self)
            #expect(resolved.kept == .text("Paint the fence blue"), "\(resolved)")
            #expect(resolved.name == "todo 'Paint the fence blue'", "\(resolved)")
            // A time kept as people type it (07:30 for 07:30:00).
            _ = try await a.request("todo.edit", args: ["id": .string(id), "due": "2026-12-07", "time": "07:30"])
            _ = try await b.request("todo.edit", args: ["id": .string(id), "due": "2026-12-07", "time": "08:15"])
            try await exchange(a, b)
            let times = try await a.request("conflicts").decode(ConflictList.self).conflicts.filter {
                $0.field == "due_time"
            }
            #expect(times.count == 1, "\(times)")
            _ = try await a.request(
                "conflicts.resolve", args: ["id": .string("\(id.prefix(8))/due_time"), "keep": "07:30"])
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
}
