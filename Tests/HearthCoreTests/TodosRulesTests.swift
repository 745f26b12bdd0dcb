import HearthCore
import Testing

@Suite("Todos rules: every operation, local or synced, checked field by field", .timeLimit(.minutes(1)))
struct TodosRulesTests {
    private let todo = "0b7e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"

    private func operation(_ kind: String, _ id: String, _ fields: [String: FieldValue]) -> Operation {
        OperationLog().makeOperation(
            device: "8c1f0b7e-3f4a-4c2d-9e5f-0a9b8c1d2e3f", counter: 1, time: HybridTime(wall: 1, logical: 0),
            entity: EntityRef(kind: kind, id: id), values: fields)
    }

    private func refusal(_ kind: String, _ id: String, _ fields: [String: FieldValue]) -> RuleError? {
        do {
            try Todos.validate(operation(kind, id, fields))
            return nil
        } catch { return error }
    }

    @Test("a complete todo, collection, subtask and completion pass")
    func valid() throws {
        try Todos.validate(
            operation(
                Todos.todoKind, todo,
                [
                    "collection": .text(todo), "title": .text("Water"), "due_date": .text("2026-01-31"),
                    "due_time": .text("08:00:00"), "priority": .text("high"), "remind": .bool(true),
                    "repeat": .text("monthly"), "until": .text("2026-12-31"), "month_end": .text("clamp"),
                    "description": .text("two lines\nof notes"),
                ]))
        try Todos.validate(
            operation(
                Todos.collectionKind, todo, ["name": .text("Habits"), "kind": .text("habit"), "sort_order": .int(3)]))
        try Todos.validate(
            operation(Todos.subtaskKind, todo, ["todo": .text(todo), "title": .text("Step"), "position": .int(0)]))
        try Todos.validate(operation(Todos.completionKind, "\(todo)@2026-02-28", ["done": .bool(true)]))
    }

    @Test("the rules between a todo's fields hold for an operation from another device as for a command")
    func crossField() {
        func refused(_ fields: [String: FieldValue]) -> String? {
            refusal(Todos.todoKind, todo, fields).map { "\($0.field): \($0.rule)" }
        }
        // What the operation says decides: each rule it breaks with the fields it carries.
        #expect(refused(["due_time": .text("08:00:00"), "due_date": .null]) == "time: needs a due date ('due')")
        #expect(
            refused(["repeat": .text("daily"), "due_date": .null])
                == "repeat: needs a due date ('due'): it is the first occurrence")
        #expect(
            refused(["until": .text("2026-12-31"), "repeat": .text("none")])
                == "until: is the end of a repeating todo: give 'repeat' too")
        #expect(
            refused(["until": .text("2026-01-01"), "due_date": .text("2026-02-01"), "repeat": .text("weekly")])
                == "until: must not be before the due date 2026-02-01, got 2026-01-01")
        #expect(
            refused(["remind": .bool(true), "due_time": .null])
                == "remind: needs a due date and time ('due' and 'time')")
        // A field it does not carry is whatever the todo already holds: not a breach.
        #expect(refused(["due_time": .text("08:00:00")]) == nil)
        #expect(refused(["repeat": .text("daily")]) == nil)
        #expect(refused(["until": .text("2026-12-31")]) == nil)
        #expect(refused(["remind": .bool(true)]) == nil)
        // A todo's whole state: an absent field is unset.
        #expect(throws: RuleError.self) { try Todos.checkTodo(["remind": .bool(true)], whole: true) }
        #expect(throws: Never.self) {
            try Todos.checkTodo(
                ["due_date": .text("2026-01-01"), "due_time": .text("08:00:00"), "remind": .bool(true)], whole: true)
        }
    }

    @Test("bad values are refused naming the field and the rule")
    func refusals() {
        #expect(refusal(Todos.todoKind, todo, ["title": .text("  ")])?.field == "title")
        #expect(refusal(Todos.todoKind, todo, ["title": .text(String(repeating: "x", count: 201))])?.field == "title")
        #expect(refusal(Todos.todoKind, todo, ["due_date": .text("2026-02-31")])?.rule.contains("28 days") == true)
        #expect(refusal(Todos.todoKind, todo, ["priority": .text("urgent")])?.field == "priority")
        #expect(refusal(Todos.todoKind, todo, ["due_time": .text("08:00")])?.field == "due_time")
        #expect(
            refusal(Todos.todoKind, todo, ["due_date": .text("2026-03-01"), "until": .text("2026-02-01")])?.field
                == "until")
        #expect(refusal(Todos.todoKind, todo, ["collection": .text("not-a-uuid")])?.field == "collection")
        #expect(refusal(Todos.todoKind, todo, ["owner": .text("x")])?.field == "owner")
        #expect(refusal(Todos.todoKind, "ABC", ["title": .text("x")])?.field == "entity.id")
        #expect(refusal(Todos.collectionKind, todo, ["kind": .text("shopping")])?.field == "kind")
        #expect(refusal(Todos.completionKind, "\(todo)@2026-02-30", ["done": .bool(true)])?.field == "entity.id")
        #expect(refusal(Todos.completionKind, todo, ["done": .bool(true)])?.field == "entity.id")
        #expect(refusal("todo_bank", todo, [:])?.field == "entity.kind")
        #expect(refusal(Todos.subtaskKind, todo, ["title": .text("bell\u{07}")])?.rule.contains("control") == true)
    }

    @Test("titles are trimmed and required; choices name the allowed values")
    func helpers() throws {
        #expect(try Todos.title("  Buy milk \n") == "Buy milk")
        #expect(throws: RuleError(field: "title", rule: "is required and must not be blank")) { try Todos.title(" ") }
        #expect(throws: RuleError(field: "priority", rule: "must be one of high, medium, low, none, got 'urgent'")) {
            try Todos.choice("urgent", field: "priority", as: Todos.Priority.self)
        }
        let date = try LocalDate(parsing: "2026-02-28", field: "d")
        #expect(Todos.completionParts(Todos.completion(of: todo, on: date).id)! == (todo, date))
    }
}
