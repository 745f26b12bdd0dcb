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
        // Byte by byte: dates are read by the thousand (a year of completions for each habit).
        var text = text
        let fields = text.withUTF8 { Self.fields(iso: $0) }
        guard let (year, month, day) = fields else {
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

    /// The day number (`dayNumber`) of the `YYYY-MM-DD` in `bytes`, exactly ten of them; `nil`
    /// for another form or a day that does not exist. For dates read by the thousand straight
    /// from the bytes SQLite returns, with no `String` or error made for each.
    public static func dayNumber(iso bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let (year, month, day) = fields(iso: bytes), let date = LocalDate(year: year, month: month, day: day)
        else { return nil }
        return date.dayNumber
    }

    /// Year, month and day digits of `YYYY-MM-DD`, not yet checked as a date.
    private static func fields(iso bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int)? {
        guard bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        return (year, month, day)
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

    /// Days since 1970-01-01 (negative before), in the proleptic Gregorian calendar (RFC 5545's,
    /// libical's), counted by `days(fromCivil:)` rather than through Foundation's `Calendar`,
    /// which cost about 2 µs a date (a year of statistics for 50 habits spent most of its 290 ms
    /// there); `LocalDateTests` compares the two from 1601 to 9999.
    public var dayNumber: Int { Self.days(fromCivil: year, month, day) }

    /// The date `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) { (year, month, day) = Self.civil(fromDays: dayNumber) }

    /// Days since 1970-01-01 of a proleptic Gregorian date: Howard Hinnant's `days_from_civil`,
    /// in 400-year eras. Also the envelope's timestamps' (`Timestamp`).
    @inlinable public static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Hinnant's `civil_from_days`, the
    /// inverse of `days(fromCivil:)`).
    @inlinable public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
    }

    /// The date `days` later (earlier when negative).
    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// ISO weekday: 1 Monday … 7 Sunday (1970-01-01 was a Thursday).
    public var weekday: Int { Self.weekday(ofDay: dayNumber) }

    /// The ISO weekday of the day `dayNumber` days after 1970-01-01.
    public static func weekday(ofDay dayNumber: Int) -> Int { ((dayNumber % 7 + 7 + 3) % 7) + 1 }

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
