import HearthCore
import Testing

@Suite("Family hub rules: the two-week rotation, spellings, clashes")
struct TimetableRulesTests {
    private func date(_ text: String) -> LocalDate { try! LocalDate(parsing: text, field: "date") }

    /// Week 1 starts on Wednesday 9 September 2026: its Monday, the 7th, starts Week 1.
    private let start = try! LocalDate(parsing: "2026-09-09", field: "week1_start")

    @Test("weeks alternate from the Monday of the Week-1 start, Monday to Sunday, over many weeks")
    func rotation() {
        let school = SchoolCalendar(week1Start: start)
        #expect(school.week(of: date("2026-09-07")) == 1)
        #expect(school.week(of: date("2026-09-13")) == 1)  // Sunday ends Week 1
        #expect(school.week(of: date("2026-09-14")) == 2)
        #expect(school.week(of: date("2026-09-21")) == 1)
        for offset in 0..<20 {
            let monday = date("2026-09-07").adding(days: 7 * offset)
            #expect(school.week(of: monday) == offset % 2 + 1)
            #expect(school.week(of: monday.adding(days: 4)) == offset % 2 + 1)
        }
        #expect(school.day(date("2026-09-12")) == .weekend(week: 1))
        #expect(school.day(date("2026-09-14")) == .school(week: 2))
    }

    @Test("dates before the Week-1 start follow the same alternation backwards")
    func beforeStart() {
        let school = SchoolCalendar(week1Start: start)
        #expect(school.week(of: date("2026-09-06")) == 2)  // the Sunday before
        #expect(school.week(of: date("2026-08-31")) == 2)
        #expect(school.week(of: date("2026-08-24")) == 1)
        #expect(school.week(of: date("2025-12-31")) == 1)  // 36 weeks before
    }

    @Test("a holiday is marked and does not shift the count; the week after carries on by the calendar")
    func acrossHoliday() {
        let school = SchoolCalendar(
            week1Start: start,
            holidays: [.init(name: "Half term", from: date("2026-10-26"), to: date("2026-10-30"))])
        #expect(school.day(date("2026-10-19")) == .school(week: 1))
        #expect(school.day(date("2026-10-26")) == .holiday(name: "Half term", week: 2))
        #expect(school.day(date("2026-10-30")) == .holiday(name: "Half term", week: 2))
        #expect(school.day(date("2026-11-02")) == .school(week: 1))
        #expect(school.nextSchoolDay(onOrAfter: date("2026-10-24")) == date("2026-11-02"))
    }

    @Test("an override re-anchors its range (its first week is the given week, then alternation) and ends with it")
    func override() {
        let school = SchoolCalendar(
            week1Start: start,
            overrides: [.init(week: 1, from: date("2026-11-02"), to: date("2026-11-15"))])
        #expect(school.week(of: date("2026-10-26")) == 2)
        #expect(school.week(of: date("2026-11-02")) == 1)  // by the count alone: 1 too
        let shifted = SchoolCalendar(
            week1Start: start, overrides: [.init(week: 2, from: date("2026-11-02"), to: date("2026-11-15"))])
        #expect(shifted.week(of: date("2026-11-02")) == 2)
        #expect(shifted.week(of: date("2026-11-06")) == 2)
        #expect(shifted.week(of: date("2026-11-09")) == 1)
        #expect(shifted.week(of: date("2026-11-16")) == 1)  // after the range: the plain count again
        #expect(shifted.week(of: date("2026-10-30")) == 2)
        let later = SchoolCalendar(
            week1Start: start,
            overrides: [
                .init(week: 2, from: date("2026-11-02"), to: date("2026-11-30")),
                .init(week: 1, from: date("2026-11-16"), to: date("2026-11-20")),
            ])
        #expect(later.week(of: date("2026-11-17")) == 1)  // the later override wins where they overlap
        #expect(later.week(of: date("2026-11-10")) == 1)
    }

    @Test("weeks, days and periods are read in the spellings people write, and refused naming the rule")
    func spellings() throws {
        for text in ["1", "Week 1", "week1", "WK 1", "w1", " A "] { #expect(try Hub.week(text) == 1) }
        for text in ["2", "Week 2", "wk2", "B"] { #expect(try Hub.week(text) == 2) }
        #expect(throws: RuleError(field: "week", rule: "must be week 1 or 2 (1, 2, Week 1, Week 2), got '3'")) {
            try Hub.week("3")
        }
        for text in ["Mon", "monday", "MONDAY", " mon ", "1"] { #expect(try SchoolDay(parsing: text) == .monday) }
        for text in ["Thu", "thurs", "Thursday", "THUR"] { #expect(try SchoolDay(parsing: text) == .thursday) }
        let weekend = #expect(throws: RuleError.self) { try SchoolDay(parsing: "Sat") }
        #expect(weekend?.rule.contains("weekend") == true)
        let unknown = #expect(throws: RuleError.self) { try SchoolDay(parsing: "Funday") }
        #expect(unknown?.rule.contains("unknown day") == true)
        let periods: [(String, Period)] = [
            ("AM Registration", .amRegistration), ("am reg", .amRegistration), ("AM_REG", .amRegistration),
            ("a.m. registration", .amRegistration), ("3", .third), ("Period 3", .third), ("P3", .third),
            ("lesson 5", .fifth), ("PM Reg", .pmRegistration), ("pm registration", .pmRegistration),
        ]
        for (text, period) in periods { #expect(try Period(parsing: text) == period, "\(text)") }
        for text in ["6", "Period 0", "P7"] {
            let error = #expect(throws: RuleError.self) { try Period(parsing: text) }
            #expect(error?.rule.contains("out of range") == true, "\(text)")
        }
        let lunch = #expect(throws: RuleError.self) { try Period(parsing: "Lunch") }
        #expect(lunch?.rule.contains("unknown period") == true)
    }

    private let bells: Bells = [
        .first: (LocalTime(hour: 9, minute: 0)!, LocalTime(hour: 10, minute: 0)!),
        .second: (LocalTime(hour: 10, minute: 0)!, LocalTime(hour: 11, minute: 0)!),
    ]

    private func lesson(
        _ id: String, _ member: String, _ period: Period, _ subject: String, teacher: String?, room: String,
        day: SchoolDay = .monday, week: Int = 1, start: String? = nil, end: String? = nil
    ) -> TimetableEntry {
        TimetableEntry(
            id: id, member: member, week: week, day: day, period: period, subject: subject, teacher: teacher,
            room: room, start: start.map { try! LocalTime(parsing: $0, field: "start") },
            end: end.map { try! LocalTime(parsing: $0, field: "end") })
    }

    @Test("a teacher in two rooms and a room with two lessons are clashes across members; a shared class is not")
    func clashes() {
        let entries = [
            lesson("a1", "ann", .first, "Maths", teacher: "MrS", room: "R12"),
            lesson("b1", "bob", .first, "Physics", teacher: "mrs", room: "R5"),  // MrS again, other room
            lesson("a2", "ann", .second, "Art", teacher: "MsA", room: "A1"),
            lesson("b2", "bob", .second, "Music", teacher: "MrM", room: " a1 "),  // room A1 again
            lesson("a3", "ann", .third, "French", teacher: "MmeF", room: "L2"),
            lesson("b3", "bob", .third, "French", teacher: "MmeF", room: "L2"),  // one class, two twins
        ]
        let found = TimetableClash.find(in: entries, bells: bells)
        #expect(found.map { "\($0.kind.rawValue) \($0.first.id) \($0.second.id)" } == ["teacher a1 b1", "room a2 b2"])
        #expect(found.first?.value == "MrS")
    }

    @Test("no clash where there is none: other days, other weeks, back-to-back times, different teachers and rooms")
    func noClashes() {
        let entries = [
            lesson("a1", "ann", .first, "Maths", teacher: "MrS", room: "R12"),
            lesson("b1", "bob", .first, "Maths", teacher: "MrS", room: "R12", day: .tuesday),
            lesson("c1", "cy", .first, "Maths", teacher: "MrS", room: "R12", week: 2),
            lesson("d1", "dee", .second, "Maths", teacher: "MrS", room: "R5"),  // 10:00 after 09:00–10:00
            lesson("e1", "eve", .first, "Art", teacher: nil, room: "A1"),
            lesson("f1", "fay", .first, "Drama", teacher: nil, room: "D1"),
        ]
        #expect(TimetableClash.find(in: entries, bells: bells).isEmpty)
    }

    @Test("lessons in different periods clash when their own times overlap")
    func overlappingTimes() {
        let entries = [
            lesson("a1", "ann", .first, "Maths", teacher: "MrS", room: "R12"),  // 09:00–10:00 by the bell
            lesson("b2", "bob", .second, "Physics", teacher: "MrS", room: "R5", start: "09:45", end: "10:45"),
        ]
        let found = TimetableClash.find(in: entries, bells: bells)
        #expect(found.count == 1)
        #expect(found.first?.kind == .teacher)
    }
}
