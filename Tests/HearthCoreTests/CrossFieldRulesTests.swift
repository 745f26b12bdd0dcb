import HearthCore
import Testing

/// The rules between an entity's fields live once, in its domain's validator: the store's
/// commands check an entity's whole state with them, and an operation from another device meets
/// them on the fields it carries (the todo's are in `TodosRulesTests`).
@Suite("Rules between fields: a lesson's times, a goal's cadence and windows", .timeLimit(.minutes(1)))
struct CrossFieldRulesTests {
    private let id = "0b7e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"

    private func refusal(_ kind: String, _ fields: [String: FieldValue]) -> String? {
        let operation = OperationLog().makeOperation(
            device: "8c1f0b7e-3f4a-4c2d-9e5f-0a9b8c1d2e3f", counter: 1, time: HybridTime(wall: 1, logical: 0),
            entity: EntityRef(kind: kind, id: id), values: fields)
        do {
            try HouseholdDomains.validate(operation)
            return nil
        } catch { return "\(error.field): \(error.rule)" }
    }

    @Test("a lesson's own times: the end after the start, in an operation and on a lesson's whole state")
    func lessonTimes() throws {
        #expect(
            refusal(Hub.entryKind, ["start": .text("10:00:00"), "end": .text("09:30:00")])
                == "end: must be after start 10:00:00, got 09:30:00")
        #expect(refusal(Hub.entryKind, ["start": .text("10:00:00"), "end": .text("10:00:00")]) != nil)
        // One end alone cannot be judged without the lesson: the store checks its whole state.
        #expect(refusal(Hub.entryKind, ["end": .text("09:30:00")]) == nil)
        #expect(throws: RuleError.self) {
            try Hub.checkEntry(["subject": .text("Maths"), "start": .text("10:00:00"), "end": .text("09:30:00")])
        }
        try Hub.checkEntry(["start": .text("09:00:00"), "end": .text("09:30:00")])
        try Hub.checkEntry(["start": .null, "end": .text("09:30:00")])
    }

    @Test("a goal has a cadence and at least one window, from a command or another device")
    func goals() throws {
        #expect(refusal(Social.goalKind, ["windows": .text("")]) == "windows: needs at least one window")
        #expect(refusal(Social.goalKind, ["windows": .text(" ; ")]) == "windows: needs at least one window")
        #expect(refusal(Social.goalKind, ["windows": .null]) == "windows: needs at least one window")
        #expect(refusal(Social.goalKind, ["windows": .text("Mon-Fri 18:00-21:00")]) == nil)
        #expect(refusal(Social.goalKind, ["deleted": .bool(true)]) == nil)
        // A new goal's whole state: both are required.
        #expect(throws: RuleError.self) { try Social.checkGoal(["windows": .text("Sat 10:00-12:00")], whole: true) }
        #expect(throws: RuleError.self) { try Social.checkGoal(["every": .int(7)], whole: true) }
        try Social.checkGoal(["every": .int(7), "windows": .text("Sat 10:00-12:00")], whole: true)
        // An edit of an existing goal changes what it carries.
        try Social.checkGoal(["importance": .int(5)], whole: false)
    }
}
