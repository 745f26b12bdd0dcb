import HearthCore
import Testing

@Suite("Local dates and times: parsing names the field and the rule", .timeLimit(.minutes(1)))
struct LocalDateTests {
    @Test("real dates parse; 31 February, month 13 and other forms are refused naming the field")
    func dates() throws {
        #expect(try LocalDate(parsing: "2028-02-29", field: "due").description == "2028-02-29")
        #expect(
            throws: RuleError(field: "due", rule: "must be a real date: February 2026 has 28 days, got '2026-02-31'")
        ) {
            try LocalDate(parsing: "2026-02-31", field: "due")
        }
        for bad in ["2026-13-01", "2026-2-01", "26-02-01", "2026/02/01", "", "2026-02-0x", "0000-01-01"] {
            #expect(throws: RuleError.self) { try LocalDate(parsing: bad, field: "due") }
        }
    }

    @Test("day numbers, weekdays and adding days agree with the calendar across centuries")
    func arithmetic() throws {
        let epoch = try LocalDate(parsing: "1970-01-01", field: "d")
        #expect(epoch.dayNumber == 0)
        #expect(epoch.weekday == 4)  // Thursday
        #expect(try LocalDate(parsing: "2026-11-23", field: "d").weekday == 1)  // Monday
        #expect(epoch.adding(days: -1).description == "1969-12-31")
        #expect(try LocalDate(parsing: "2100-02-28", field: "d").adding(days: 1).description == "2100-03-01")
        #expect(try LocalDate(parsing: "2000-02-28", field: "d").adding(days: 1).description == "2000-02-29")
        for number in stride(from: -200_000, to: 200_000, by: 997) {
            #expect(LocalDate(dayNumber: number).dayNumber == number)
        }
    }

    @Test("times: HH:MM and HH:MM:SS, stored with seconds")
    func times() throws {
        #expect(try LocalTime(parsing: "09:05", field: "time").description == "09:05:00")
        #expect(try LocalTime(parsing: "23:59:59", field: "time").short == "23:59:59")
        for bad in ["24:00", "9:00", "09:60", "09:00:60", "0900", "09:00:00:00", "ab:cd"] {
            #expect(throws: RuleError.self) { try LocalTime(parsing: bad, field: "time") }
        }
    }
}
