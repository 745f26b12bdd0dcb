import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import StoreService

/// Undo and redo on every domain against a real store: each command's operations are one step,
/// taken back by new operations (so they sync), never over what another device wrote since.
@Suite("hearth-store: undo and redo on every domain", .serialized, .timeLimit(.minutes(2)))
struct StoreUndoTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// One value from the store's file, read as the page and the CLI see it (`nil`: no such row).
    private func value(_ running: RunningStore, _ sql: String, _ arguments: StatementArguments = []) throws -> String? {
        let database = try DatabaseQueue(path: running.home.file("hearth.sqlite"))
        return try database.read { db in try String.fetchOne(db, sql: sql, arguments: arguments) }
    }

    /// A daily habit "Stretch" in a collection "Habits", its day 2026-03-02 ticked: its id.
    private func tickedHabit(_ store: CommandClient) async throws -> String {
        _ = try await store.request("collection.add", args: ["name": "Habits", "kind": "habit"])
        let habit = try #require(
            try await store.request(
                "todo.add", args: ["title": "Stretch", "collection": "Habits", "due": "2026-03-01", "repeat": "daily"]
            )["todo"]?["id"]?.stringValue)
        _ = try await store.request("todo.done", args: ["id": .string(habit), "date": "2026-03-02"])
        return habit
    }

    private func undo(_ client: CommandClient, redo: Bool = false) async throws -> UndoReport {
        try await client.request(redo ? "redo" : "undo").decode(UndoReport.self)
    }

    @Test(
        "the undo list speaks the household's words: a bell by its period, a day's mark by its todo and day, fields as said"
    )
    func householdWords() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let store = running.commands
            _ = try await store.request("timetable.bells", args: ["bells": ["AM Registration=08:40-09:00"]])
            let habit = try await tickedHabit(store)
            _ = try await store.request("collection.edit", args: ["collection": "Habits", "show_in_calendar": false])
            // Things with no name of their own, by what they belong to (each domain says how).
            _ = try await store.send(PeopleCommands.Add(name: "Sam"))
            _ = try await store.send(PlanCommands.Add(person: "Sam", at: .text("2026-03-03T18:00:00Z")))
            let step = try await store.send(SubtaskCommands.Add(todo: habit, title: "Mat"))
            let steps = try await store.request("undo.list").decode(UndoList.self).steps
            let lines = steps.flatMap(\.changes) + steps.map(\.summary)
            #expect(step.todo?.subtasks.contains { $0.title == "Mat" } == true)
            #expect(lines.contains { $0.hasPrefix("bell 'AM Registration'") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("done mark on 'Stretch' for 2026-03-02") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("check-in for 'Sam'") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("subtask 'Mat'") }, "\(lines)")
            #expect(lines.contains { $0.contains("shown in calendar") }, "\(lines)")
            for word in ["am_registration", "am_regis", "show_in_calendar", "@2026"] {
                #expect(!lines.contains { $0.contains(word) }, "\(word): \(lines)")
            }
        }
    }

    @Test("a card, a todo, a lesson and a person: each edit undone and redone; a new change ends the redo")
    func everyDomain() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let store = running.commands
            // The year planner.
            _ = try await store.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
            _ = try await store.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach weekend"])
            let card = "SELECT title FROM event_card WHERE year = 2026 AND month = 8"
            #expect(try await undo(store).step.command == "event.set")
            #expect(try value(running, card) == "Beach day")
            _ = try await undo(store, redo: true)
            #expect(try value(running, card) == "Beach weekend")

            // Todos: an edit, then the todo itself (removed, then brought back).
            _ = try await store.request("collection.add", args: ["name": "Home", "kind": "list"])
            let added = try await store.request("todo.add", args: ["title": "Buy milk", "collection": "Home"])
            let todo = try #require(added["todo"]?["id"]?.stringValue)
            _ = try await store.request("todo.edit", args: ["id": .string(todo), "title": "Buy oat milk"])
            let title = "SELECT title FROM todo WHERE id = '\(todo)'"
            let edit = try await undo(store)
            // Named by what it is after the undo, not by the title just taken back (issue 63).
            #expect(edit.restored == ["todo 'Buy milk': title"] && edit.left.isEmpty, "\(edit)")
            #expect(try value(running, title) == "Buy milk")
            let removal = try await undo(store)
            #expect(removal.step.command == "todo.add" && removal.restored == ["todo 'Buy milk': removed"])
            #expect(try value(running, title) == nil)
            #expect(try await undo(store, redo: true).restored == ["todo 'Buy milk': back"])
            _ = try await undo(store, redo: true)
            #expect(try value(running, title) == "Buy oat milk")

            // A habit's day ticked (a completion of its own, `done` never set before): undone, redone.
            let habit = try await tickedHabit(store)
            func done() async throws -> [String] {
                let reply = try await store.request(
                    "todo.occurrences", args: ["id": .string(habit), "from": "2026-03-01", "to": "2026-03-03"])
                return (reply["occurrences"]?.arrayValue ?? []).filter { $0["done"] == true }
                    .compactMap { $0["date"]?.stringValue }
            }
            #expect(try await done() == ["2026-03-02"])
            let tick = try await undo(store)
            #expect(tick.step.command == "todo.done" && tick.left.isEmpty, "\(tick)")
            #expect(try await done() == [])
            _ = try await undo(store, redo: true)
            #expect(try await done() == ["2026-03-02"])

            // The family hub: a lesson's room.
            _ = try await store.request("member.add", args: ["name": "Ann", "role": "student"])
            _ = try await store.request(
                "timetable.add",
                args: ["member": "Ann", "week": 1, "day": "Mon", "period": 1, "subject": "Maths", "room": "R1"])
            _ = try await store.request("timetable.edit", args: ["member": "Ann", "entry": "1 Mon 1", "room": "R2"])
            let room = "SELECT room FROM timetable_entry WHERE subject = 'Maths'"
            _ = try await undo(store)
            #expect(try value(running, room) == "R1")
            _ = try await undo(store, redo: true)
            #expect(try value(running, room) == "R2")

            // The social planner: a person's name and purpose in one edit.
            _ = try await store.request("people.add", args: ["name": "Sam"])
            _ = try await store.request(
                "people.edit", args: ["person": "Sam", "name": "Samira", "purpose": "Old school friend"])
            _ = try await undo(store)
            #expect(try value(running, "SELECT name || '|' || coalesce(purpose, '-') FROM person") == "Sam|-")
            _ = try await undo(store, redo: true)
            #expect(try value(running, "SELECT name || '|' || purpose FROM person") == "Samira|Old school friend")

            // Undo, then a new change: what was undone can no longer be redone.
            _ = try await undo(store)
            _ = try await store.request("people.edit", args: ["person": "Sam", "tags": "school"])
            let error = await #expect(throws: CommandClientError.self) { try await store.request("redo") }
            if case .refused(let refusal)? = error {
                #expect(refusal.code == "nothing_to_redo")
            } else {
                Issue.record("\(String(describing: error))")
            }
            let list = try await store.request("undo.list", args: ["limit": 3]).decode(UndoList.self)
            #expect(list.steps.map(\.command) == ["people.edit", "people.edit", "people.add"])
            #expect(list.steps.map(\.state) == ["done", "dropped", "done"])
            #expect(list.steps[1].changes == ["person 'Samira': name, purpose"], "\(list.steps[1])")
            #expect(list.canUndo && !list.canRedo)
        }
    }

    @Test("an import, a week copied and a template applied each undo as one step")
    func bigChangesAreOneStep() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let store = running.commands
            _ = try await store.request("member.add", args: ["name": "Ann", "role": "student"])
            let lessons = "SELECT COUNT(*) FROM timetable_entry"
            _ = try await store.request(
                "timetable.import",
                args: [
                    "member": "Ann", "csv": "1,Mon,1,Maths,,R1\n1,Tue,2,Art,,A1\n1,Wed,3,PE,,Gym\n", "confirm": true,
                ])
            _ = try await store.request("timetable.copy_week", args: ["member": "Ann", "from": 1, "to": 2])
            #expect(try value(running, lessons) == "6")
            let copy = try await undo(store)
            #expect(copy.step.command == "timetable.copy_week" && copy.restoredTotal == 3, "\(copy)")
            #expect(try value(running, lessons) == "3")
            let imported = try await undo(store)
            #expect(imported.step.entities == 3 && imported.step.summary.hasSuffix("and 2 more"), "\(imported.step)")
            #expect(try value(running, lessons) == "0")
            _ = try await undo(store, redo: true)
            #expect(try value(running, lessons) == "3")

            let applied = try await store.request(
                "template.apply", args: ["name": "water-intake", "start": "2026-11-23"])
            let count = "SELECT COUNT(*) FROM todo"
            let made = try #require(Int(try value(running, count) ?? ""))
            #expect(made >= 1 && applied["collection"] != nil)
            _ = try await undo(store)
            #expect(try value(running, count) == "0")
            #expect(try value(running, "SELECT COUNT(*) FROM todo_collection") == "0")
            _ = try await undo(store, redo: true)
            #expect(try value(running, count) == String(made))
        }
    }

    @Test("an undo leaves a field another device changed since, says so, and syncs what it restores")
    func otherDevices() async throws {
        try await withTwoStores(context: context) { a, b in
            _ = try await a.request("collection.add", args: ["name": "Home", "kind": "list"])
            let added = try await a.request("todo.add", args: ["title": "Buy milk", "collection": "Home"])
            let todo = try #require(added["todo"]?["id"]?.stringValue)
            _ = try await a.request(
                "todo.edit", args: ["id": .string(todo), "title": "Buy oat milk", "description": "2 litres"])
            try await exchange(a, b)
            _ = try await b.request("todo.edit", args: ["id": .string(todo), "title": "Buy soy milk"])
            try await exchange(a, b)

            let undone = try await undo(a)
            #expect(undone.restored == ["todo 'Buy soy milk': description"], "\(undone)")
            #expect(undone.left.count == 1, "\(undone.left)")
            #expect(
                undone.left.first?.hasPrefix("todo 'Buy soy milk': title changed on ") == true
                    && undone.left.first?.hasSuffix(" since; left as it is") == true, "\(undone.left)")
            func shown(_ client: CommandClient) async throws -> (String?, String?) {
                let shown = try await client.request("todo.show", args: ["id": .string(todo)]).decode(TodoView.self)
                return (shown.title, shown.description)
            }
            #expect(try await shown(a) == ("Buy soy milk", nil))
            // The undo is operations like any change: the other home gets it.
            try await exchange(a, b)
            #expect(try await shown(b) == ("Buy soy milk", nil))

            // Undoing the todo's creation would delete Bob's title: left whole.
            let creation = try await undo(a)
            #expect(
                creation.restored.isEmpty && creation.left.first?.contains("title changed on") == true, "\(creation)")
            #expect(try await shown(a).0 == "Buy soy milk")
        }
    }

    @Test(
        "undoing what holds another device's work leaves it: a list with Bob's todo, a todo with his subtask, a day he ticked too"
    )
    func othersWorkInside() async throws {
        try await withTwoStores(context: context) { a, b in
            _ = try await a.request("collection.add", args: ["name": "Home", "kind": "list"])
            let todo = try #require(
                try await a.request("todo.add", args: ["title": "Paint the shed", "collection": "Home"])["todo"]?["id"]?
                    .stringValue)
            try await exchange(a, b)
            // Bob adds a subtask to Ann's todo and a todo of his own to her list.
            _ = try await b.request("subtask.add", args: ["todo": .string(todo), "title": "Buy brushes"])
            let gate = try #require(
                try await b.request("todo.add", args: ["title": "Fix the gate", "collection": "Home"])["todo"]?["id"]?
                    .stringValue)
            try await exchange(a, b)

            // Ann's todo holds Bob's subtask: left, and it says whose.
            let creation = try await undo(a)
            #expect(creation.step.command == "todo.add" && creation.restored.isEmpty, "\(creation)")
            #expect(
                creation.left.count == 1
                    && creation.left[0].hasPrefix("todo 'Paint the shed': holds subtask 'Buy brushes' added on ")
                    && creation.left[0].hasSuffix("; left as it is"), "\(creation.left)")
            // Ann's list holds Bob's todo (and hers, left just now): left.
            let list = try await undo(a)
            #expect(list.step.command == "collection.add" && list.restored.isEmpty, "\(list)")
            #expect(list.left.first?.hasPrefix("collection 'Home': holds ") == true, "\(list.left)")
            try await exchange(a, b)
            for store in [a, b] {
                for id in [todo, gate] {
                    let shown = try await store.request("todo.show", args: ["id": .string(id)]).decode(TodoView.self)
                    #expect(shown.collectionName == "Home", "\(shown)")
                }
                let shown = try await store.request("todo.show", args: ["id": .string(todo)]).decode(TodoView.self)
                #expect(shown.subtasks.map(\.title) == ["Buy brushes"])
            }

            // A shared chore: both tick the same day before they sync; Ann's undo leaves Bob's tick.
            _ = try await a.request("collection.add", args: ["name": "Chores", "kind": "habit"])
            let chore = try #require(
                try await a.request(
                    "todo.add",
                    args: ["title": "Feed the cat", "collection": "Chores", "due": "2026-03-01", "repeat": "daily"]
                )["todo"]?["id"]?.stringValue)
            try await exchange(a, b)
            for store in [a, b] {
                _ = try await store.request("todo.done", args: ["id": .string(chore), "date": "2026-03-02"])
            }
            try await exchange(a, b)
            let tick = try await undo(a)
            #expect(tick.step.command == "todo.done" && tick.restored.isEmpty, "\(tick)")
            #expect(tick.left.first?.contains("done changed on ") == true, "\(tick.left)")
            try await exchange(a, b)
            for store in [a, b] {
                let reply = try await store.request(
                    "todo.occurrences", args: ["id": .string(chore), "from": "2026-03-01", "to": "2026-03-03"])
                let done = (reply["occurrences"]?.arrayValue ?? []).filter { $0["done"] == true }
                #expect(done.compactMap { $0["date"]?.stringValue } == ["2026-03-02"])
            }

            // What the step alone put inside what it made goes with it: a list and its own todo.
            _ = try await a.request("collection.add", args: ["name": "Garden", "kind": "list"])
            _ = try await a.request("todo.add", args: ["title": "Mow", "collection": "Garden"])
            #expect(try await undo(a).restored == ["todo 'Mow': removed"])
            #expect(try await undo(a).restored == ["collection 'Garden': removed"])
        }
    }
}
