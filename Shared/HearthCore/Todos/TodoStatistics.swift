/// `todo.stats {collection?, weeks?, today?}`: how the household's habits and collections went
/// over the last weeks: each habit's days as a heatmap, its completion rate per week and month,
/// its best and worst weekday and its streaks; each collection's rate and its open and done todos.
///
/// A rate counts the due dates that are over: a date skipped is not due, and the pending one
/// (today's, not done yet; this week's for a weekly habit) is not counted until it is over.
public struct TodoStatistics: Codable, Sendable, Equatable {
    /// The first day shown (a Monday, `weeks` weeks back) and the last (today).
    public let from: String
    public let to: String
    public let weeks: Int
    public let habits: [HabitStatistics]
    public let collections: [CollectionStatistics]

    public init(from: String, to: String, weeks: Int, habits: [HabitStatistics], collections: [CollectionStatistics]) {
        (self.from, self.to, self.weeks, self.habits, self.collections) = (from, to, weeks, habits, collections)
    }

    /// The Monday `weeks - 1` weeks before the week of `today`: the first day of the statistics.
    public static func firstDay(weeks: Int, today: LocalDate) -> LocalDate {
        today.adding(days: -(today.weekday - 1) - 7 * (weeks - 1))
    }
}

/// What one day of a habit was; on the wire, one letter a day (`HabitStatistics.days`).
public enum DayMark: String, Codable, Sendable, Equatable, CaseIterable {
    /// Due and done.
    case done
    /// Due, not done, and over.
    case missed
    /// Due, marked skipped (or in a pause).
    case skipped
    /// Due and not over yet: the last due date, not done.
    case pending
    /// Not a day the habit falls on.
    case off

    /// Its letter: `d` done, `m` missed, `s` skipped, `p` pending, `_` not due.
    public var letter: Character { Character(Unicode.Scalar(byte)) }

    /// Its letter as an ASCII byte: a year of days for 50 habits is written as bytes, since
    /// `String` made from 18,550 `Character`s was a seventh of `todo.stats`' time.
    public var byte: UInt8 {
        switch self {
        case .done: UInt8(ascii: "d")
        case .missed: UInt8(ascii: "m")
        case .skipped: UInt8(ascii: "s")
        case .pending: UInt8(ascii: "p")
        case .off: UInt8(ascii: "_")
        }
    }

    public init?(letter: Character) {
        guard let mark = Self.allCases.first(where: { $0.letter == letter }) else { return nil }
        self = mark
    }
}

/// Due dates and those done in one week (`start` its Monday) or month (`start` its first day).
/// On the wire `[start, due, done]`: a year of weeks for 50 habits stays well inside a reply.
public struct PeriodRate: Codable, Sendable, Equatable {
    public let start: String
    public var due: Int
    public var done: Int

    public init(start: String, due: Int = 0, done: Int = 0) { (self.start, self.due, self.done) = (start, due, done) }

    /// Done over due, 0 to 1; `nil` when nothing was due.
    public var rate: Double? { due > 0 ? Double(done) / Double(due) : nil }

    /// "67%" for `done` of `due`; "—" when nothing was due (the terminal's and the page's).
    public static func percent(_ done: Int, _ due: Int) -> String {
        due > 0 ? "\(Int((Double(done) / Double(due) * 100).rounded()))%" : "—"
    }

    /// A month's start as a person reads it: "Mar 2026".
    public var monthLabel: String {
        guard let date = try? LocalDate(parsing: start, field: "start") else { return start }
        return "\(YearPlanner.monthName(date.month).prefix(3)) \(date.year)"
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        start = try container.decode(String.self)
        due = try container.decode(Int.self)
        done = try container.decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(start)
        try container.encode(due)
        try container.encode(done)
    }
}

/// A run of due dates done in a row (skipped ones passed over), within the days shown.
public struct StreakRun: Codable, Sendable, Equatable {
    public let start: String
    public let end: String
    public let length: Int

    public init(start: String, end: String, length: Int) { (self.start, self.end, self.length) = (start, end, length) }
}

/// One habit over the days shown.
public struct HabitStatistics: Codable, Sendable, Equatable {
    public let id: String
    public let title: String
    public let collection: String
    /// Its streak and strength today, over its whole history.
    public let progress: HabitProgress
    /// One letter per day from the statistics' `from` through `to` (`DayMark.letter`): a year
    /// of days is 371 bytes on the wire.
    public let days: String
    /// The days as marks.
    public var marks: [DayMark] { days.map { DayMark(letter: $0) ?? .off } }
    public let weeks: [PeriodRate]
    public let months: [PeriodRate]
    /// Over all the days shown.
    public let due: Int
    public let done: Int
    /// The weekdays (1 Monday … 7 Sunday) with the highest and the lowest rate, among those with
    /// a due date over; the earlier weekday on a tie. `nil` when nothing was due.
    public let bestWeekday: Int?
    public let worstWeekday: Int?
    /// The last runs of done due dates within the days shown (at most `shownStreaks`), oldest first.
    public let streaks: [StreakRun]
    /// The most streak runs a habit's statistics carry: the latest.
    public static let shownStreaks = 10

    enum CodingKeys: String, CodingKey {
        case id, title, collection, progress, days, weeks, months, due, done, streaks
        case bestWeekday = "best_weekday"
        case worstWeekday = "worst_weekday"
    }

    /// The statistics of a habit due on `dates` (ascending: every due date from `from` through
    /// `today`) with `marks` for the days done or skipped; `progress` is its streak and
    /// strength over its whole history (`HabitProgress.of`).
    public init(
        id: String, title: String, collection: String, progress: HabitProgress, dates: [LocalDate],
        marks: HabitMarks, from: LocalDate, today: LocalDate
    ) {
        (self.id, self.title, self.collection, self.progress) = (id, title, collection, progress)
        var days = [DayMark](repeating: .off, count: max(0, today.dayNumber - from.dayNumber + 1))
        var weeks = stride(from: from.dayNumber, through: today.dayNumber, by: 7).map {
            PeriodRate(start: LocalDate(dayNumber: $0).description)
        }
        var months: [PeriodRate] = []
        var lastMonth = 0
        var weekdays = [PeriodRate](repeating: PeriodRate(start: ""), count: 8)
        var (runs, run): ([StreakRun], (start: LocalDate, end: LocalDate, length: Int)?) = ([], nil)
        let (first, last) = (from.dayNumber, today.dayNumber)
        for (index, date) in dates.enumerated() {
            let day = date.dayNumber
            guard day >= first && day <= last else { continue }
            let mark: DayMark =
                switch marks[day: day] {
                case .done: .done
                case .skipped: .skipped
                case .missed, nil: index == dates.count - 1 ? .pending : .missed
                }
            days[day - first] = mark
            guard mark == .done || mark == .missed else { continue }
            let month = date.year * 12 + date.month
            if month != lastMonth {
                months.append(PeriodRate(start: LocalDate(year: date.year, month: date.month, day: 1)!.description))
                lastMonth = month
            }
            let done = mark == .done ? 1 : 0
            let week = (day - first) / 7
            weeks[week].due += 1
            weeks[week].done += done
            months[months.count - 1].due += 1
            months[months.count - 1].done += done
            let weekday = LocalDate.weekday(ofDay: day)
            weekdays[weekday].due += 1
            weekdays[weekday].done += done
            if mark == .done {
                run = (run?.start ?? date, date, (run?.length ?? 0) + 1)
            } else if let ended = run {
                runs.append(StreakRun(start: ended.start.description, end: ended.end.description, length: ended.length))
                run = nil
            }
        }
        if let run {
            runs.append(StreakRun(start: run.start.description, end: run.end.description, length: run.length))
        }
        (self.days, self.weeks, self.months) = (String(decoding: days.map(\.byte), as: UTF8.self), weeks, months)
        streaks = Array(runs.suffix(Self.shownStreaks))
        due = weeks.reduce(0) { $0 + $1.due }
        done = weeks.reduce(0) { $0 + $1.done }
        let rated = (1...7).compactMap { day in weekdays[day].rate.map { (day, $0) } }
        bestWeekday = rated.max { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 > $1.0) }?.0
        worstWeekday = rated.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
    }
}

/// One collection over the weeks shown: its habits' due dates and its one-off todos due then,
/// and how many of its one-off todos are open and done now.
public struct CollectionStatistics: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let kind: String
    public let open: Int
    public let done: Int
    public var weeks: [PeriodRate]
    public var months: [PeriodRate]

    public init(
        id: String, name: String, kind: String, open: Int, done: Int, weeks: [PeriodRate], months: [PeriodRate]
    ) {
        (self.id, self.name, self.kind, self.open, self.done) = (id, name, kind, open, done)
        (self.weeks, self.months) = (weeks, months)
    }

    /// Adds a one-off todo due on `date` (counted when within the weeks from `from`).
    public mutating func count(_ date: LocalDate, from: LocalDate, done: Bool) {
        let week = (date.dayNumber - from.dayNumber) / 7
        guard date >= from, weeks.indices.contains(week) else { return }
        let month = String(date.description.prefix(7)) + "-01"
        add(
            weeks: [week: PeriodRate(start: "", due: 1, done: done ? 1 : 0)],
            months: [PeriodRate(start: month, due: 1, done: done ? 1 : 0)])
    }

    /// Adds a habit's due dates, week by week (its weeks start on the same Monday) and month by month.
    public mutating func add(_ habit: HabitStatistics) {
        add(
            weeks: Dictionary(uniqueKeysWithValues: habit.weeks.enumerated().map { ($0.offset, $0.element) }),
            months: habit.months)
    }

    private mutating func add(weeks added: [Int: PeriodRate], months addedMonths: [PeriodRate]) {
        for (week, rate) in added where weeks.indices.contains(week) {
            weeks[week].due += rate.due
            weeks[week].done += rate.done
        }
        for rate in addedMonths {
            if let index = months.firstIndex(where: { $0.start == rate.start }) {
                months[index].due += rate.due
                months[index].done += rate.done
            } else {
                months.append(rate)
            }
        }
        months.sort { $0.start < $1.start }
    }
}
