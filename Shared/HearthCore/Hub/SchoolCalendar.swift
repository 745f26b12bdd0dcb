/// Which week of the two-week rotation a date is in, and whether it is a school day: the
/// rotation counted in calendar weeks (Monday to Sunday) from the Monday of the Week-1 start
/// date, with manual overrides and school holidays on top. Every view and notification asks it.
///
/// Holidays do not shift the count: a school that restarts on Week 1 after a holiday sets an
/// override. An override re-anchors the rotation inside its range (the week holding its `from`
/// date is its week, the next the other, and so on until `to`); where overrides overlap, the one
/// starting later wins. Dates before the Week-1 start follow the same alternation backwards.
public struct SchoolCalendar: Sendable, Equatable {
    public struct Override: Sendable, Equatable {
        public let week: Int
        public let from: LocalDate
        public let to: LocalDate

        public init(week: Int, from: LocalDate, to: LocalDate) {
            self.week = week
            self.from = from
            self.to = to
        }
    }

    public struct Holiday: Sendable, Equatable {
        public let name: String?
        public let from: LocalDate
        public let to: LocalDate

        public init(name: String?, from: LocalDate, to: LocalDate) {
            self.name = name
            self.from = from
            self.to = to
        }
    }

    /// What a date is to the school.
    public enum Day: Sendable, Equatable {
        /// A school day in `week`.
        case school(week: Int)
        /// A Saturday or Sunday.
        case weekend(week: Int)
        /// A weekday inside a school holiday.
        case holiday(name: String?, week: Int)

        public var week: Int {
            switch self {
            case .school(let week), .weekend(let week), .holiday(_, let week): week
            }
        }

        public var isSchoolDay: Bool { if case .school = self { true } else { false } }
    }

    public let week1Start: LocalDate
    public let overrides: [Override]
    public let holidays: [Holiday]

    public init(week1Start: LocalDate, overrides: [Override] = [], holidays: [Holiday] = []) {
        self.week1Start = week1Start
        self.overrides = overrides.sorted { ($0.from, $0.to) < ($1.from, $1.to) }
        self.holidays = holidays
    }

    /// Of a day's lessons (each its start and end, `nil` where a time is unknown), the one on at
    /// `time` and the next to start after it, as indices. Lessons with their own times may run
    /// out of period order: the next is the soonest, not the first listed.
    public static func nowAndNext(
        _ lessons: [(start: LocalTime?, end: LocalTime?)], at time: LocalTime
    ) -> (now: Int?, next: Int?) {
        let now = lessons.indices.first { index in
            guard let start = lessons[index].start, let end = lessons[index].end else { return false }
            return start <= time && time < end
        }
        let next = lessons.indices.filter { lessons[$0].start.map { $0 > time } ?? false }
            .min { lessons[$0].start! < lessons[$1].start! }
        return (now, next)
    }

    /// The Monday of `date`'s week.
    public static func monday(of date: LocalDate) -> LocalDate { date.adding(days: 1 - date.weekday) }

    /// The rotation week, 1 or 2, of `date`.
    public func week(of date: LocalDate) -> Int {
        let anchor: (monday: LocalDate, week: Int) =
            overrides.last { $0.from <= date && date <= $0.to }.map { (Self.monday(of: $0.from), $0.week) }
            ?? (Self.monday(of: week1Start), 1)
        let weeks = (Self.monday(of: date).dayNumber - anchor.monday.dayNumber) / 7
        return ((anchor.week - 1 + weeks) % 2 + 2) % 2 + 1
    }

    /// What `date` is: a school day of its week, a weekend, or a holiday.
    public func day(_ date: LocalDate) -> Day {
        let week = week(of: date)
        if date.weekday > 5 { return .weekend(week: week) }
        if let holiday = holidays.first(where: { $0.from <= date && date <= $0.to }) {
            return .holiday(name: holiday.name, week: week)
        }
        return .school(week: week)
    }

    /// The first school day on or after `date`, looking at most `limit` days ahead.
    public func nextSchoolDay(onOrAfter date: LocalDate, limit: Int = 400) -> LocalDate? {
        (0..<limit).lazy.map { date.adding(days: $0) }.first { day($0).isSchoolDay }
    }
}
