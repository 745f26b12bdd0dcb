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
        #expect(throws: RuleError(field: "day", rule: "must be 1–28 for February 2026, got 29")) {
            try YearPlanner.validate(year: 2026, month: 2, title: "x", location: nil, day: 29)
        }
        #expect(throws: RuleError.self) {
            try YearPlanner.validate(year: 2000, month: 2, title: "x", location: nil, day: 30)
        }
        try YearPlanner.validate(year: 2000, month: 2, title: "x", location: nil, day: 29)
        #expect(throws: RuleError.self) {
            try YearPlanner.validate(year: 1900, month: 2, title: "x", location: nil, day: 29)
        }
        #expect(throws: RuleError.self) {
            try YearPlanner.validate(year: 2026, month: 4, title: "x", location: nil, day: 31)
        }
    }

    @Test("titles are required and at most 200 characters; locations at most 200")
    func text() throws {
        #expect(throws: RuleError(field: "title", rule: "is required and must not be blank")) {
            try YearPlanner.validate(year: 2026, month: 8, title: "  ", location: nil, day: nil)
        }
        try YearPlanner.validate(
            year: 2026, month: 8, title: String(repeating: "é", count: 200), location: nil, day: nil)
        #expect(throws: RuleError.self) {
            try YearPlanner.validate(
                year: 2026, month: 8, title: String(repeating: "a", count: 201), location: nil, day: nil)
        }
        #expect(throws: RuleError.self) {
            try YearPlanner.validate(
                year: 2026, month: 8, title: "x", location: String(repeating: "a", count: 201), day: nil)
        }
        #expect(throws: RuleError(field: "month", rule: "must be 1–12, got 13")) {
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

@Suite("Domain rules: the planner's operations and text", .timeLimit(.minutes(1)))
struct PlannerRulesTests {
    static let device = "dadd0000-0000-4000-8000-00000000000b"

    static func operation(_ kind: String, _ id: String, _ fields: [String: FieldValue]) -> Operation {
        Operation(
            id: OperationID(device: device, counter: 1), time: HybridTime(wall: 1),
            entity: EntityRef(kind: kind, id: id),
            fields: fields.mapValues { FieldWrite(value: $0) })
    }

    @Test("cards: a real month's id, known fields of the right type, a day the month has")
    func cards() throws {
        try YearPlanner.validate(Self.operation("event_card", "2028-02", ["day": .int(29), "title": .text("Leap")]))
        #expect(throws: RuleError(field: "day", rule: "must be 1–28 for February 2026, got 29")) {
            try YearPlanner.validate(Self.operation("event_card", "2026-02", ["day": .int(29)]))
        }
        for id in ["2026-13", "2026-00", "2026-8", "0000-01", "12026-01", "2026-08-01"] {
            #expect(throws: RuleError.self, "\(id)") {
                try YearPlanner.validate(Self.operation("event_card", id, ["title": .text("x")]))
            }
        }
        #expect(throws: RuleError(field: "title", rule: "must be text or null, got a number")) {
            try YearPlanner.validate(Self.operation("event_card", "2026-08", ["title": .int(7)]))
        }
        #expect(throws: RuleError(field: "title", rule: "must not be blank")) {
            try YearPlanner.validate(Self.operation("event_card", "2026-08", ["title": .text("   ")]))
        }
        #expect(throws: RuleError.self) {
            try YearPlanner.validate(Self.operation("event_card", "2026-08", ["owner": .text("x")]))
        }
    }

    @Test("suggestions: a UUID id, a status of open, accepted or declined")
    func suggestions() throws {
        let id = "0f0f0f0f-0000-4000-8000-000000000001"
        try YearPlanner.validate(
            Self.operation("suggestion", id, ["year": .int(2026), "month": .int(8), "status": .text("open")]))
        #expect(throws: RuleError.self) {
            try YearPlanner.validate(Self.operation("suggestion", id, ["status": .text("maybe")]))
        }
        #expect(throws: RuleError.self) {
            try YearPlanner.validate(Self.operation("suggestion", "../etc", ["status": .text("open")]))
        }
    }

    @Test("text: control characters and direction overrides are refused; emoji sequences are text")
    func text() throws {
        try TextRules.check("👨‍👩‍👧‍👦 and 🏳️‍🌈", field: "name", maximumLength: 32)
        for bad in ["bell\u{07}", "esc\u{1B}[31m", "del\u{7F}", "c1\u{85}", "rlo\u{202E}txt", "iso\u{2066}x"] {
            #expect(throws: RuleError.self, "\(bad.unicodeScalars.map(\.value))") {
                try TextRules.check(bad, field: "title", maximumLength: 200)
            }
        }
        #expect(throws: RuleError.self) { try TextRules.check("two\nlines", field: "title", maximumLength: 200) }
        try TextRules.check("two\nlines\tand a tab", field: "note", maximumLength: 200, multiline: true)
    }
}
