import Foundation
import Testing

@testable import HearthCore

@Suite("LocalDate: day numbers counted by hand equal Foundation's Gregorian calendar")
struct LocalDateTests {
    /// Foundation's Gregorian calendar in UTC (proleptic after 1582), what `LocalDate` is checked against.
    static let floating: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    @Test("from 1601 to 9999: a day number and back, against Foundation's calendar in UTC; weekdays; parsing")
    func dayNumbers() throws {
        var random = SystemRandomNumberGenerator()
        let first = -134_774  // 1601-01-01
        let last = 2_932_896  // 9999-12-31
        for _ in 0..<20_000 {
            let number = Int.random(in: first...last, using: &random)
            let date = LocalDate(dayNumber: number)
            let parts = Self.floating.dateComponents(
                [.year, .month, .day], from: Date(timeIntervalSince1970: Double(number) * 86_400))
            #expect(
                (date.year, date.month, date.day) == (parts.year!, parts.month!, parts.day!), "day \(number)")
            #expect(date.dayNumber == number)
            #expect(try LocalDate(parsing: date.description, field: "d") == date)
        }
        #expect(LocalDate(dayNumber: first).description == "1601-01-01")
        #expect(LocalDate(dayNumber: last).description == "9999-12-31")
        #expect(LocalDate(dayNumber: 0).description == "1970-01-01" && LocalDate(dayNumber: 0).weekday == 4)
        #expect(try LocalDate(parsing: "2024-02-29", field: "d").adding(days: 1).description == "2024-03-01")
        for bad in ["2026-2-01", "2026/02/01", "+026-02-01", "2026-02-30", "20260201xx", "2026-02-0١", ""] {
            #expect(throws: RuleError.self) { try LocalDate(parsing: bad, field: "d") }
        }
    }
}
