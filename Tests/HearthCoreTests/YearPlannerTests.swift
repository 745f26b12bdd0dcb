import HearthCore
import Testing

@Suite("Year planner rules", .timeLimit(.minutes(1)))
struct YearPlannerTests {
    @Test(
        "months read from numbers, names and abbreviations",
        arguments: [
            ("8", 8), ("august", 8), ("Aug", 8), ("DEC", 12), ("1", 1), ("sept", 9),
        ])
    func months(_ text: String, _ month: Int) {
        #expect(YearPlanner.month(from: text) == month)
    }

    @Test("bad months are not months", arguments: ["0", "13", "ju", "smarch", ""])
    func badMonths(_ text: String) {
        #expect(YearPlanner.month(from: text) == nil)
    }

    @Test("29 February only in leap years; 30 February never")
    func february() throws {
        try YearPlanner.validate(year: 2028, month: 2, title: "Leap", location: nil, day: 29)
        #expect(throws: PlannerError(field: "day", rule: "must be 1–28 for February 2026, got 29")) {
            try YearPlanner.validate(year: 2026, month: 2, title: "x", location: nil, day: 29)
        }
        #expect(throws: PlannerError.self) {
            try YearPlanner.validate(year: 2000, month: 2, title: "x", location: nil, day: 30)
        }
        try YearPlanner.validate(year: 2000, month: 2, title: "x", location: nil, day: 29)
        #expect(throws: PlannerError.self) {
            try YearPlanner.validate(year: 1900, month: 2, title: "x", location: nil, day: 29)
        }
        #expect(throws: PlannerError.self) {
            try YearPlanner.validate(year: 2026, month: 4, title: "x", location: nil, day: 31)
        }
    }

    @Test("titles are required and at most 200 characters; locations at most 200")
    func text() throws {
        #expect(throws: PlannerError(field: "title", rule: "is required and must not be blank")) {
            try YearPlanner.validate(year: 2026, month: 8, title: "  ", location: nil, day: nil)
        }
        try YearPlanner.validate(
            year: 2026, month: 8, title: String(repeating: "é", count: 200), location: nil, day: nil)
        #expect(throws: PlannerError.self) {
            try YearPlanner.validate(
                year: 2026, month: 8, title: String(repeating: "a", count: 201), location: nil, day: nil)
        }
        #expect(throws: PlannerError.self) {
            try YearPlanner.validate(
                year: 2026, month: 8, title: "x", location: String(repeating: "a", count: 201), day: nil)
        }
        #expect(throws: PlannerError(field: "month", rule: "must be 1–12, got 13")) {
            try YearPlanner.validate(year: 2026, month: 13, title: "x", location: nil, day: nil)
        }
    }

    @Test("every month has its own default colour, and ids read back")
    func coloursAndIDs() {
        #expect(Set(YearPlanner.defaultColours).count == 12)
        let entity = YearPlanner.entity(year: 2026, month: 8)
        #expect(entity.id == "2026-08")
        #expect(YearPlanner.yearAndMonth(of: entity)! == (2026, 8))
    }
}
