import Foundation

/// A day on the household's wall calendar, with no time zone: "2026-03-29" is the same day in
/// London and New York. Recurrence expands in these (floating) dates; only a reminder's instant
/// is resolved to UTC, through `HouseholdTime`.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A valid Gregorian date, or `nil` (31 February, month 13, year 0).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...YearPlanner.days(inMonth: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Reads `YYYY-MM-DD`.
    /// - Throws: `RuleError` naming `field` for another form or a day the month does not have.
    public init(parsing text: String, field: String) throws(RuleError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else {
            throw RuleError(field: field, rule: "must be a date YYYY-MM-DD, got '\(text)'")
        }
        guard let date = LocalDate(year: year, month: month, day: day) else {
            let rule =
                (1...12).contains(month) && year >= 1
                ? "must be a real date: \(YearPlanner.monthName(month)) \(year) has "
                    + "\(YearPlanner.days(inMonth: month, year: year)) days, got '\(text)'"
                : "must be a real date (month 01–12, year 0001–9999), got '\(text)'"
            throw RuleError(field: field, rule: rule)
        }
        self = date
    }

    /// `YYYY-MM-DD`, written digit by digit (`String(format:)` cost about 1 µs a date, and a
    /// month of a household's todos formats tens of thousands).
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The proleptic Gregorian calendar in UTC: with no offsets, its days are exactly 86,400 s,
    /// so a floating date maps to one instant and back.
    static let floating: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// Days since 1970-01-01 (negative before).
    public var dayNumber: Int {
        let midnight = Self.floating.date(from: DateComponents(year: year, month: month, day: day))!
        return Int((midnight.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The date `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) {
        let parts = Self.floating.dateComponents(
            [.year, .month, .day], from: Date(timeIntervalSince1970: Double(dayNumber) * 86_400))
        year = parts.year!
        month = parts.month!
        day = parts.day!
    }

    /// The date `days` later (earlier when negative).
    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// ISO weekday: 1 Monday … 7 Sunday (1970-01-01 was a Thursday).
    public var weekday: Int { ((dayNumber % 7 + 7 + 3) % 7) + 1 }

    /// The first and last days of the week holding this date, a week starting on `weekStart`
    /// (the household's: 1 Monday … 7 Sunday).
    public func week(startingOn weekStart: Int) -> (first: LocalDate, last: LocalDate) {
        let first = adding(days: -((weekday - weekStart + 7) % 7))
        return (first, first.adding(days: 6))
    }

    /// The first and last days of this date's month.
    public var wholeMonth: (first: LocalDate, last: LocalDate) {
        (
            LocalDate(year: year, month: month, day: 1)!,
            LocalDate(year: year, month: month, day: YearPlanner.days(inMonth: month, year: year))!
        )
    }

    /// Today on the wall clock of `timeZone` at `instant`.
    public init(_ instant: Date, in timeZone: TimeZone) {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: instant)
        self.init(dayNumber: Int((Double(seconds) / 86_400).rounded(.down)))
    }
}

/// A time of day on the household's wall clock, to the second.
public struct LocalTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int
    public let second: Int

    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The time on the wall clock of `timeZone` at `instant` (the same reckoning as
    /// `LocalDate(_:in:)`).
    public init(_ instant: Date, in timeZone: TimeZone) {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: instant)
        let second = ((seconds % 86_400) + 86_400) % 86_400
        self.init(hour: second / 3600, minute: second % 3600 / 60, second: second % 60)!
    }

    /// Reads `HH:MM` or `HH:MM:SS` (24-hour).
    /// - Throws: `RuleError` naming `field`.
    public init(parsing text: String, field: String) throws(RuleError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]),
            let time = LocalTime(hour: hour, minute: minute, second: parts.count == 3 ? Int(parts[2]) ?? -1 : 0)
        else {
            throw RuleError(field: field, rule: "must be a time HH:MM or HH:MM:SS (00:00–23:59:59), got '\(text)'")
        }
        self = time
    }

    /// `HH:MM:SS`, the stored form.
    public var description: String { String(format: "%02d:%02d:%02d", hour, minute, second) }

    /// `HH:MM`, or `HH:MM:SS` when the seconds are not zero: what a person reads.
    public var short: String {
        second == 0 ? String(format: "%02d:%02d", hour, minute) : description
    }

    public var secondsIntoDay: Int { hour * 3600 + minute * 60 + second }

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool { lhs.secondsIntoDay < rhs.secondsIntoDay }
}
