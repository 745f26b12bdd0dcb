import Foundation

/// How a habit is going: its current and best streak and its strength, counted in its own
/// recurrence (a daily habit in days, a weekly one in weeks: one step per due date).
///
/// - A due date done extends the streak; one not done breaks it once it is over, that is once
///   the habit's next due date has come (for a daily habit, once the day is over on the
///   household's wall clock): today not yet done never breaks it, nor this week's for a weekly one.
/// - A due date skipped (not applicable: the pool was closed) neither breaks nor extends a streak,
///   so a streak never begins or ends on one.
/// - Completions are instances per due date, made on any device: each counts once.
///
/// **Strength**, as Loop Habit Tracker keeps it: an exponential smoothing over the due dates,
/// `s ← s·m + (1 − m)·c` with `c` 1 for a date done and 0 for one missed (skipped and pending
/// dates leave it as it is), from 0. Loop's multiplier per day is `0.5^(√f / 13)` for a habit due
/// `f` times a day; per due date of a habit due every `p` days that is `m = 0.5^(√p / 13)`: a
/// half-life of 13 due dates for a daily habit (13 days), 4.9 for a weekly one (34 days), 2.4 for
/// a monthly one (71 days). A single lapse after a long run barely dents it (after 60 days done,
/// one missed day takes it from 96% to 91%); frequent lapses hold it low (one day in two missed
/// settles between 49% and 51%), and it takes 13 days done in a row to climb from 0 to 50%.
public struct HabitProgress: Codable, Sendable, Equatable {
    /// Due dates done in a row up to now (skipped ones passed over; the pending one not counted).
    public let current: Int
    /// The longest run ever.
    public let best: Int
    /// 0 to 1.
    public let strength: Double
    /// What a step of the streak is: `day`, `week`, `month`, `year`.
    public let unit: String

    public init(current: Int, best: Int, strength: Double, unit: String) {
        (self.current, self.best, self.strength, self.unit) = (current, best, strength, unit)
    }

    /// A due date's state.
    public enum Mark: Sendable, Equatable {
        case done, skipped, missed
    }

    /// The progress of a habit due on `dates` (ascending, every due date from its start through
    /// `today`), every `period` days (1, 7, 30, 365), with `marks` for the dates done or skipped
    /// (any other is missed once over). The last date, when undone, is pending: it is not over
    /// before the next due date comes, which is after `today`.
    public static func of(dates: [LocalDate], marks: HabitMarks, period: Int, unit: String) -> HabitProgress {
        let multiplier = pow(0.5, Double(max(period, 1)).squareRoot() / 13)
        var (run, best, strength) = (0, 0, 0.0)
        for (index, date) in dates.enumerated() {
            switch marks[day: date.dayNumber] ?? .missed {
            case .skipped:
                continue
            case .done:
                run += 1
                best = max(best, run)
                strength = strength * multiplier + (1 - multiplier)
            case .missed:
                if index == dates.count - 1 { continue }  // pending: its time is not over
                run = 0
                strength *= multiplier
            }
        }
        return HabitProgress(current: run, best: best, strength: strength, unit: unit)
    }

    /// "12-day streak", "3-week streak"; `nil` without a streak.
    public var streakText: String? { current > 0 ? "\(current)-\(unit) streak" : nil }

    /// "12-day streak · best 20 · strength 64%".
    public var summary: String {
        let streak = streakText ?? "no streak"
        return "\(streak) · best \(best) · strength \(Int((strength * 100).rounded()))%"
    }
}

/// A habit's days done and skipped, in an array indexed by day number (`LocalDate.dayNumber`)
/// rather than a dictionary keyed by date: `todo.stats` for 50 habits over a year looks up and
/// sets some 50,000 days, and hashing each date was a third of its time (p99 59 ms against the
/// 50 ms target in `hearth-bench todos`; Benchmarks/README has the figures with this).
public struct HabitMarks: Sendable, ExpressibleByDictionaryLiteral {
    /// The day number of `marks[0]`.
    private var first: Int
    private var marks: [HabitProgress.Mark?]

    /// No day marked.
    public init() { (first, marks) = (0, []) }

    /// No day marked; the days `from` through `through` held without growing.
    public init(from: LocalDate, through: LocalDate) {
        first = from.dayNumber
        marks = Array(repeating: nil, count: max(0, through.dayNumber - first + 1))
    }

    /// `[date: .done, …]`.
    public init(dictionaryLiteral elements: (LocalDate, HabitProgress.Mark)...) {
        self.init()
        for (date, mark) in elements { self[date] = mark }
    }

    public subscript(date: LocalDate) -> HabitProgress.Mark? {
        get { self[day: date.dayNumber] }
        set { self[day: date.dayNumber] = newValue }
    }

    /// The mark of the day `day` days after 1970-01-01.
    public subscript(day day: Int) -> HabitProgress.Mark? {
        get {
            let index = day - first
            return index >= 0 && index < marks.count ? marks[index] : nil
        }
        set {
            if marks.isEmpty {
                guard newValue != nil else { return }
                (first, marks) = (day, [nil])
            } else if day < first {
                guard newValue != nil else { return }
                marks.insert(contentsOf: repeatElement(nil, count: first - day), at: 0)
                first = day
            }
            let index = day - first
            if index >= marks.count {
                guard newValue != nil else { return }
                marks.append(contentsOf: repeatElement(nil, count: index - marks.count + 1))
            }
            marks[index] = newValue
        }
    }
}
