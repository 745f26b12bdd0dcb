/// When a person can be seen: some weekdays, one block of the day (`Mon-Fri 18:00-21:00`).
public struct AvailabilityWindow: Hashable, Sendable, CustomStringConvertible {
    /// ISO weekdays, 1 Monday … 7 Sunday.
    public let days: Set<Int>
    /// Minutes into the day; `end` after `start` (a block does not cross midnight).
    public let start: Int
    public let end: Int

    public init?(days: Set<Int>, start: Int, end: Int) {
        guard !days.isEmpty, days.allSatisfy((1...7).contains), start >= 0, end <= 24 * 60, start < end else {
            return nil
        }
        self.days = days
        self.start = start
        self.end = end
    }

    private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let spellings: [String: Int] = [
        "mon": 1, "monday": 1, "tue": 2, "tues": 2, "tuesday": 2, "wed": 3, "weds": 3, "wednesday": 3,
        "thu": 4, "thur": 4, "thurs": 4, "thursday": 4, "fri": 5, "friday": 5, "sat": 6, "saturday": 6,
        "sun": 7, "sunday": 7,
    ]
    private static let groups: [String: Set<Int>] = [
        "daily": Set(1...7), "everyday": Set(1...7), "weekdays": Set(1...5), "weekends": [6, 7], "weekend": [6, 7],
    ]

    /// Reads a window as a person writes it: days (`Mon`, `Mon-Fri`, `Mon,Wed,Fri`, `weekdays`,
    /// `weekends`, `daily`) then a block `HH:MM-HH:MM`.
    /// - Throws: `RuleError` for `field` naming what is wrong.
    public init(parsing text: String, field: String = "window") throws(RuleError) {
        let parts = text.split(whereSeparator: \.isWhitespace)
        guard parts.count == 2 else {
            throw RuleError(field: field, rule: "must be days then times, such as 'Mon-Fri 18:00-21:00', got '\(text)'")
        }
        var days: Set<Int> = []
        for item in parts[0].lowercased().split(separator: ",") {
            if let group = Self.groups[String(item)] {
                days.formUnion(group)
                continue
            }
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let first = Self.spellings[String(ends[0])],
                let last = Self.spellings[String(ends.last!)]
            else {
                throw RuleError(
                    field: field, rule: "has an unknown day '\(item)' (use Mon…Sun, ranges such as Mon-Fri, weekdays)")
            }
            // A range may wrap the week: Sat-Mon is Saturday, Sunday and Monday.
            var day = first
            while true {
                days.insert(day)
                if day == last { break }
                day = day % 7 + 1
            }
        }
        let times = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard times.count == 2 else {
            throw RuleError(field: field, rule: "must give a block of the day such as 18:00-21:00, got '\(parts[1])'")
        }
        let start = try LocalTime(parsing: String(times[0]), field: field)
        // 24:00 ends a block at midnight.
        let end = times[1] == "24:00" ? 24 * 60 : try LocalTime(parsing: String(times[1]), field: field).minutes
        guard let window = AvailabilityWindow(days: days, start: start.minutes, end: end) else {
            throw RuleError(field: field, rule: "must end after it starts, within one day, got '\(parts[1])'")
        }
        self = window
    }

    /// Reads the stored form: windows joined with "; ".
    /// - Throws: `RuleError` for `field`.
    public static func list(_ text: String, field: String = "windows") throws(RuleError) -> [AvailabilityWindow] {
        var windows: [AvailabilityWindow] = []
        for part in text.split(separator: ";") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { windows.append(try AvailabilityWindow(parsing: trimmed, field: field)) }
        }
        return windows
    }

    /// The stored form of `windows`.
    public static func text(_ windows: [AvailabilityWindow]) -> String {
        windows.map(\.description).joined(separator: "; ")
    }

    /// `Mon-Fri 18:00-21:00`: runs of three or more days as ranges.
    public var description: String {
        var runs: [String] = []
        var day = 1
        while day <= 7 {
            guard days.contains(day) else {
                day += 1
                continue
            }
            var last = day
            while last < 7 && days.contains(last + 1) { last += 1 }
            switch last - day {
            case 0: runs.append(Self.dayNames[day - 1])
            case 1: runs.append(contentsOf: [Self.dayNames[day - 1], Self.dayNames[last - 1]])
            default: runs.append("\(Self.dayNames[day - 1])-\(Self.dayNames[last - 1])")
            }
            day = last + 1
        }
        return "\(runs.joined(separator: ",")) \(Self.clock(start))-\(Self.clock(end))"
    }

    /// `HH:MM` of minutes into the day (`24:00` at the end of it).
    public static func clock(_ minutes: Int) -> String {
        let hours = minutes / 60
        let rest = minutes % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
}

extension LocalTime {
    /// Whole minutes into the day.
    public var minutes: Int { hour * 60 + minute }
}
