import Foundation

/// A daily span of local time, such as 22:00–07:00 (it may wrap past midnight).
public struct QuietHours: Sendable, Equatable, CustomStringConvertible {
    /// Minutes after local midnight.
    public let start: Int
    public let end: Int

    public struct ParseError: Error, Sendable {
        public let rule: String
    }

    /// Parses `HH:MM-HH:MM` (24-hour clock; start and end differ).
    public init(parsing text: String) throws(ParseError) {
        let rule = "must be two 24-hour times such as \"22:00-07:00\""
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]) else {
            throw ParseError(rule: rule)
        }
        guard start != end else { throw ParseError(rule: "must not start and end at the same time") }
        self.start = start
        self.end = end
    }

    private static func minutes(_ text: Substring) -> Int? {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2, fields[1].count == 2, (1...2).contains(fields[0].count),
            let hour = Int(fields[0]), let minute = Int(fields[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    public var description: String {
        func clock(_ minutes: Int) -> String {
            let hours = minutes / 60
            let rest = minutes % 60
            return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
        }
        return "\(clock(start))-\(clock(end))"
    }

    /// The start's or end's local clock time, "07:00".
    public var endText: String { String(description.split(separator: "-")[1]) }

    /// Whether `date` falls inside the quiet hours, in `calendar`'s time zone.
    public func contains(_ date: Date, calendar: Calendar = .current) -> Bool {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let minute = parts.hour! * 60 + parts.minute!
        return start < end ? (start..<end).contains(minute) : (minute >= start || minute < end)
    }

    /// The first end of the quiet hours after `date`.
    public func end(after date: Date, calendar: Calendar = .current) -> Date {
        let components = DateComponents(hour: end / 60, minute: end % 60, second: 0)
        return calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime) ?? date
    }
}
