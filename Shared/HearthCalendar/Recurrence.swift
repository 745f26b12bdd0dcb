import CLibICal
import HearthCore

/// A repeating date rule expanded by libical's RFC 5545 iterator (`icalrecur_iterator`), in
/// floating dates only.
///
/// Chosen over Foundation's `Calendar.RecurrenceRule` on a measurement made for issue 10: both
/// give RFC 5545's skips (Jan 31 monthly → Mar 31, May 31 …; Feb 29 yearly only in leap years)
/// and RFC 7529's clamp, but expanding 1,000 mixed rules over one month took 789 ms through
/// Foundation (it walks every occurrence from the start) against 40 ms through libical (whose
/// `icalrecur_iterator_set_start` jumps to the range). libical's own time-zone conversion
/// drifts across daylight-saving changes (its issues #1402, #318), so no zone ever enters it:
/// it yields wall-calendar days, and `HouseholdTime` resolves a day and time to an instant.
public struct Recurrence: Hashable, Sendable {
    public enum Frequency: String, CaseIterable, Sendable {
        case daily, weekly, monthly, yearly
    }

    public let frequency: Frequency
    /// The first occurrence (RFC 5545 DTSTART).
    public let start: LocalDate
    /// The last day an occurrence may fall on, if any (UNTIL).
    public let until: LocalDate?
    /// A monthly or yearly date the month lacks falls on the month's last day
    /// (`RSCALE=GREGORIAN;SKIP=BACKWARD`) instead of being skipped.
    public let clampsMonthEnd: Bool

    public init(frequency: Frequency, start: LocalDate, until: LocalDate? = nil, clampsMonthEnd: Bool = false) {
        self.frequency = frequency
        self.start = start
        self.until = until
        self.clampsMonthEnd = clampsMonthEnd
        var parts = ["FREQ=\(frequency.rawValue.uppercased())"]
        if let until { parts.append(String(format: "UNTIL=%04d%02d%02d", until.year, until.month, until.day)) }
        if clampsMonthEnd { parts = ["RSCALE=GREGORIAN"] + parts + ["SKIP=BACKWARD"] }
        rule = parts.joined(separator: ";")
    }

    /// A todo's rule from the fields the store keeps and `reminder.sources` sends: `repeat`
    /// (`daily`…, or `none`), the due date (its first occurrence), `until` and `month_end`;
    /// `nil` for a one-off todo or a date that does not parse. The one place a todo's fields
    /// become its rule (the agenda, a completion, the scheduler's reminders).
    public init?(todoRepeat: String?, due: String?, until: String?, monthEnd: String?) {
        guard let frequency = todoRepeat.flatMap(Frequency.init(rawValue:)),
            let start = due.flatMap({ try? LocalDate(parsing: $0, field: "due") })
        else { return nil }
        self.init(
            frequency: frequency, start: start,
            until: until.flatMap { try? LocalDate(parsing: $0, field: "until") },
            clampsMonthEnd: monthEnd == Todos.MonthEnd.clamp.rawValue)
    }

    /// The rule as RFC 5545 `RRULE` text.
    public let rule: String

    /// Every occurrence in `from...through`, in date order.
    public func occurrences(from: LocalDate, through: LocalDate) -> [LocalDate] {
        occurrences(from: from, through: through, countingSimpleRules: true)
    }

    /// `occurrences`, with daily and weekly rules counted here or (`false`, for the tests that
    /// compare the two) expanded by libical like the others.
    func occurrences(from: LocalDate, through: LocalDate, countingSimpleRules: Bool) -> [LocalDate] {
        var dates: [LocalDate] = []
        expand(from: from, countingSimpleRules: countingSimpleRules) { date in
            guard date <= through else { return false }
            dates.append(date)
            return true
        }
        return dates
    }

    /// The first occurrence on or after `date`, if the rule has one.
    public func first(onOrAfter date: LocalDate) -> LocalDate? {
        var found: LocalDate?
        expand(from: date) { occurrence in
            found = occurrence
            return false
        }
        return found
    }

    /// The last occurrence on or before `date`, if any.
    public func last(onOrBefore date: LocalDate) -> LocalDate? {
        guard date >= start else { return nil }
        // The longest gap between occurrences is a leap cycle's eight years (29 February); look
        // back a frequency-sized window first, then further.
        let windows = [frequency == .yearly ? 366 : 62, 366 * 9]
        for days in windows {
            let from = Swift.max(start, date.adding(days: -days))
            if let last = occurrences(from: from, through: date).last { return last }
            if from == start { return nil }
        }
        return nil
    }

    /// Whether the rule falls on `date`.
    public func occurs(on date: LocalDate) -> Bool { first(onOrAfter: date) == date }

    /// Feeds occurrences on or after `from` to `body` until it returns `false` or they end.
    private func expand(from: LocalDate, countingSimpleRules: Bool = true, _ body: (LocalDate) -> Bool) {
        if let until, from > until { return }
        // A daily or weekly rule with no BY parts is every day, or every seventh, from its start:
        // counted here, as libical would give them (`RecurrenceTests` compares the two), without
        // its iterator's per-step cost (a year of 50 daily habits for `todo.stats` took 290 ms).
        if countingSimpleRules, frequency == .daily || frequency == .weekly {
            let step = frequency == .daily ? 1 : 7
            var day = start.dayNumber
            if from > start { day += (from.dayNumber - start.dayNumber + step - 1) / step * step }
            while true {
                let date = LocalDate(dayNumber: day)
                if let until, date > until { return }
                guard date.year <= 9999, body(date) else { return }
                day += step
            }
        }
        _ = LibICal.ready
        let parsed = icalrecurrencetype_from_string(rule)
        guard let iterator = icalrecur_iterator_new(parsed, Self.icalDate(start)) else { return }
        defer { icalrecur_iterator_free(iterator) }
        if from > start { icalrecur_iterator_set_start(iterator, Self.icalDate(from)) }
        while true {
            let next = icalrecur_iterator_next(iterator)
            guard icaltime_is_null_time(next) == 0,
                let date = LocalDate(year: Int(next.year), month: Int(next.month), day: Int(next.day))
            else { return }
            if date < from { continue }
            if let until, date > until { return }
            guard body(date) else { return }
        }
    }

    private static func icalDate(_ date: LocalDate) -> icaltimetype {
        icaltimetype(
            year: Int32(date.year), month: Int32(date.month), day: Int32(date.day), hour: 0, minute: 0, second: 0,
            is_date: 1, is_daylight: 0, zone: nil)
    }
}
