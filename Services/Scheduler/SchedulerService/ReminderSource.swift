import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// One todo with a reminder, as `reminder.sources` gives it, and this device's record of it:
/// enough to say when its reminder fires next, which one is on screen, and never to fire one
/// twice (`firedDue` only grows).
struct ReminderSource: Sendable, Equatable {
    let todo: String
    let title: String
    let due: LocalDate
    let time: LocalTime
    /// The repeat rule; `nil` for a one-off todo.
    let recurrence: Recurrence?
    let completed: Bool
    /// The days of a recurring todo already done (from yesterday on).
    let completions: Set<LocalDate>
    /// The latest due instant that fired (ms since 1970).
    var firedDue: Int64?
    var snoozedUntil: Int64?
    var snoozedDate: LocalDate?
    /// When the reminder was last set as it is (ms since 1970): one whose time came before that
    /// never fires (a daily 08:00 habit made at 10:53 first pops tomorrow, not at once, late).
    var armedAt: Int64?
    /// A habit's streak as the store counted it on `through`, that day left open.
    var streak: Streak?
    /// The member it is for, on a device without that member's profile ("For Dad").
    var forMember: String?

    struct Streak: Sendable, Equatable {
        let through: LocalDate
        let current: Int
        let unit: String
    }

    /// The store's source, its days and times parsed; `nil` when they do not parse.
    init?(_ wire: ReminderSources.Todo) {
        guard let due = try? LocalDate(parsing: wire.due, field: "due"),
            let time = try? LocalTime(parsing: wire.time, field: "time")
        else { return nil }
        self.todo = wire.id
        self.title = wire.title
        self.due = due
        self.time = time
        recurrence = Recurrence(todoRepeat: wire.repeat, due: wire.due, until: wire.until, monthEnd: wire.monthEnd)
        completed = wire.completed
        completions = Set(wire.completions.compactMap { try? LocalDate(parsing: $0, field: "date") })
        firedDue = wire.firedDue
        snoozedUntil = wire.snoozedUntil
        snoozedDate = wire.snoozedDate.flatMap { try? LocalDate(parsing: $0, field: "date") }
        armedAt = wire.armedAt
        streak = wire.streak.flatMap { streak in
            (try? LocalDate(parsing: streak.through, field: "through")).map {
                Streak(through: $0, current: streak.current, unit: streak.unit)
            }
        }
        forMember = wire.forMember
    }

    /// What the popup of `reminder` says: the title, with a habit's streak that day ("Drink
    /// water — 12-day streak"). On a day after the store counted it, the due dates between, all
    /// done (or skipped: this device's source holds them alike), add to it; one not done ends it.
    func popupTitle(_ reminder: Reminder) -> String {
        guard let date = reminder.date, let recurrence, let streak, date >= streak.through else { return title }
        var current = streak.current
        for day in recurrence.occurrences(from: streak.through, through: date.adding(days: -1)) {
            guard completions.contains(day) else { return title }
            current += 1
        }
        return current > 0 ? "\(title) — \(current)-\(streak.unit) streak" : title
    }

    init(
        todo: String, title: String, due: LocalDate, time: LocalTime, recurrence: Recurrence?,
        completed: Bool = false, completions: Set<LocalDate> = [], firedDue: Int64? = nil, armedAt: Int64? = nil
    ) {
        self.todo = todo
        self.title = title
        self.due = due
        self.time = time
        self.recurrence = recurrence
        self.completed = completed
        self.completions = completions
        self.firedDue = firedDue
        self.armedAt = armedAt
    }

    /// One reminder: a one-off todo's (id: the todo's), or one day's of a recurring todo
    /// (id: `<todo>@<date>`, what Done completes).
    struct Reminder: Sendable, Equatable {
        let id: String
        let todo: String
        let date: LocalDate?
        /// When the todo is due.
        let due: Date
        /// When the reminder fires: the due time, or the end of a snooze.
        let fireAt: Date
        let snoozed: Bool
    }

    private func reminder(on date: LocalDate, at due: Date, fireAt: Date? = nil) -> Reminder {
        Reminder(
            id: recurrence == nil ? todo : "\(todo)@\(date)", todo: todo, date: recurrence == nil ? nil : date,
            due: due, fireAt: fireAt ?? due, snoozed: fireAt != nil)
    }

    /// Whether the reminder due at `due` fired, or came before the reminder was set (it never
    /// will: only one missed while it was set fires late).
    private func hasFired(_ due: Date) -> Bool {
        let milliseconds = Int64((due.timeIntervalSince1970 * 1000).rounded())
        if let armedAt, milliseconds < armedAt { return true }
        guard let firedDue else { return false }
        return milliseconds <= firedDue
    }

    private func isDone(_ date: LocalDate) -> Bool { recurrence == nil ? completed : completions.contains(date) }

    /// The reminder to fire next, as of `now`: a snooze's end; else, for a one-off todo, its due
    /// time unless it fired or is done; for a recurring one, the latest day whose time passed
    /// unfired (it fires once, late), else the first day still to come that is not done.
    func next(now: Date, clock: HouseholdTime) -> Reminder? {
        if let snoozedUntil {
            let date = snoozedDate ?? due
            if !isDone(date) {
                return reminder(
                    on: date, at: clock.instant(date, time),
                    fireAt: Date(timeIntervalSince1970: Double(snoozedUntil) / 1000))
            }
        }
        guard let recurrence else {
            let instant = clock.instant(due, time)
            return completed || hasFired(instant) ? nil : reminder(on: due, at: instant)
        }
        let today = clock.today(at: now)
        // The last day whose time has come (today's, or the day before if today's is later).
        var passed = recurrence.last(onOrBefore: today)
        if let day = passed, clock.instant(day, time) > now {
            passed = recurrence.last(onOrBefore: day.adding(days: -1))
        }
        if let day = passed, !hasFired(clock.instant(day, time)), !isDone(day) {
            return reminder(on: day, at: clock.instant(day, time))
        }
        var from = passed.map { $0.adding(days: 1) } ?? recurrence.start
        for _ in 0..<400 {
            guard let day = recurrence.first(onOrAfter: from) else { return nil }
            let instant = clock.instant(day, time)
            if !isDone(day) && !hasFired(instant) { return reminder(on: day, at: instant) }
            from = day.adding(days: 1)
        }
        return nil
    }

    /// The reminder that fired and is not done or snoozed: what is on screen now.
    func showing(clock: HouseholdTime) -> Reminder? {
        guard let firedDue, snoozedUntil == nil else { return nil }
        let fired = Date(timeIntervalSince1970: Double(firedDue) / 1000)
        guard let recurrence else {
            let instant = clock.instant(due, time)
            return !completed && hasFired(instant) && instant == fired ? reminder(on: due, at: instant) : nil
        }
        let day = clock.wallClock(at: fired).date
        guard recurrence.occurs(on: day), !isDone(day), clock.instant(day, time) == fired else { return nil }
        return reminder(on: day, at: fired)
    }
}
