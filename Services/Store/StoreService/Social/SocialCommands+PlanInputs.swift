import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// What the planner reads from the store, and the household's clock: instants on the wire and
/// in the tables, wall minutes inside `SocialPlanner`.
extension SocialCommands {
    var household: HouseholdTime { HouseholdTime(timeZone: timeZone) }

    /// A typed command's `now` (milliseconds since 1970, for tests and the scheduler's injected
    /// clock), else the real time.
    func now(_ milliseconds: Int64?) throws -> Date {
        guard let milliseconds else { return Date() }
        guard Social.instantRange.contains(milliseconds) else {
            throw CommandError.invalidArgument("now", "must be milliseconds since 1970, got \(milliseconds)")
        }
        return Date(milliseconds: milliseconds)
    }

    /// A typed command's optional time argument: `nil` when not given.
    func instant(_ argument: TimeArgument?, _ name: String) throws -> Date? {
        try argument.map { try instant($0, name) }
    }

    /// A time argument: milliseconds since 1970, a timestamp (`2026-11-24T18:00:00Z`) or the
    /// household's wall clock (`2026-11-24 18:00`).
    func instant(_ argument: TimeArgument, _ name: String) throws -> Date {
        switch argument {
        case .milliseconds(let milliseconds):
            guard Social.instantRange.contains(milliseconds) else {
                throw CommandError.invalidArgument(name, "must be a time from 1970 to 9999, got \(milliseconds)")
            }
            return Date(milliseconds: milliseconds)
        case .text(let given):
            let text = given.trimmingCharacters(in: .whitespaces)
            if let date = Timestamp.parse(text) { return date }
            let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
            if parts.count == 2, let date = try? LocalDate(parsing: String(parts[0]), field: name),
                let time = try? LocalTime(parsing: String(parts[1]), field: name)
            {
                return household.instant(date, time)
            }
            throw CommandError.invalidArgument(name, "must be a time such as '2026-11-24 18:00', got '\(text)'")
        }
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The household's wall minute at `date`.
    func wallMinute(_ date: Date) -> Int {
        let (day, time) = household.wallClock(at: date)
        return SocialPlanner.minute(day, time)
    }

    /// The instant of a wall minute.
    func instant(_ minute: Int) -> Date {
        let day = SocialPlanner.day(minute)
        let rest = minute - day * 1440
        return household.instant(LocalDate(dayNumber: day), LocalTime(hour: rest / 60, minute: rest % 60)!)
    }

    /// The planning preferences, defaults where none were set.
    static func preferences(in db: Database) throws -> Social.Preferences {
        var preferences = Social.Preferences()
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM plan_prefs WHERE id = ?", arguments: [Social.prefsID])
        else { return preferences }
        let time = { (name: String) in (row[name] as String?).flatMap { try? LocalTime(parsing: $0, field: name) } }
        if let capacity = row["capacity"] as Int? { preferences.capacity = capacity }
        if let start = time("quiet_start") { preferences.quietStart = start }
        if let end = time("quiet_end") { preferences.quietEnd = end }
        if let horizon = row["horizon"] as Int? { preferences.horizon = horizon }
        if let lead = row["lead"] as Int? { preferences.lead = lead }
        if let refresh = time("refresh") { preferences.refresh = refresh }
        if let morning = time("morning") { preferences.morning = morning }
        return preferences
    }

    /// Everyone with a goal, as the planner takes them (`only` one person, sized `duration`).
    func plannerPeople(in db: Database, only: String? = nil, duration: Int? = nil) throws -> [SocialPlanner.Person] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT g.*, p.name FROM social_goal AS g JOIN person AS p ON p.id = g.person
                WHERE ?1 IS NULL OR g.person = ?1 ORDER BY g.person
                """, arguments: [only])
        return try rows.map { row in
            let id: String = row["person"]
            return SocialPlanner.Person(
                id: id, name: row["name"], cadence: row["every"], importance: row["importance"],
                duration: duration ?? row["duration"],
                windows: (try? AvailabilityWindow.list(row["windows"])) ?? [],
                excluded: Set((try? Social.excluded([(row["exclude"] as String?) ?? ""])) ?? []),
                lastCompleted: try Self.lastCompleted(id, goal: row, household: household, in: db))
        }
    }

    /// A planner holding the check-ins that take time (all but `excluding`) from a week before
    /// this one, the busy times from then on, and a year of outcomes to learn from.
    func planner(
        in db: Database, now: Date, preferences: Social.Preferences, excluding: Set<String> = []
    ) throws -> SocialPlanner {
        let today = household.today(at: now)
        let weekStart = household.instant(today.adding(days: 1 - today.weekday - 7), LocalTime(hour: 0, minute: 0)!)
        let since = Self.milliseconds(weekStart)
        let items = try Row.fetchAll(
            db,
            sql: "SELECT id, start, duration FROM plan_item WHERE status IN ('pending', 'done') AND start >= ?",
            arguments: [since]
        )
        .filter { !excluding.contains($0["id"]) }
        .map { row in booking(start: row["start"], end: row["start"] + (row["duration"] as Int64) * 60_000) }
        let busy = try Row.fetchAll(
            db, sql: #"SELECT start, "end", summary FROM social_busy WHERE "end" > ?"#, arguments: [since]
        )
        .map { row in booking(start: row["start"], end: row["end"], label: row["summary"]) }
        let history = try Row.fetchAll(
            db, sql: "SELECT start, status FROM plan_item WHERE status <> 'pending' AND start >= ?",
            arguments: [Self.milliseconds(now) - 365 * 86_400_000]
        )
        .compactMap { row -> (start: Int, succeeded: Bool)? in
            guard let outcome = Social.Status(rawValue: row["status"])?.succeeded else { return nil }
            return (wallMinute(Date(milliseconds: row["start"])), outcome)
        }
        return SocialPlanner(preferences: preferences, items: items, busy: busy, history: history)
    }

    private func booking(start: Int64, end: Int64, label: String? = nil) -> SocialPlanner.Booking {
        // An end inside a minute still takes that minute.
        SocialPlanner.Booking(
            start: wallMinute(Date(milliseconds: start)),
            end: wallMinute(Date(milliseconds: end + 59_999)), label: label)
    }

    /// A wall minute as a person reads it on the household's clock: `Thu 2026-12-24 19:00`.
    static func wallText(_ minute: Int) -> String {
        let day = SocialPlanner.day(minute)
        let date = LocalDate(dayNumber: day)
        let rest = minute - day * 1440
        let weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][date.weekday - 1]
        return "\(weekday) \(date) " + String(format: "%02d:%02d", rest / 60, rest % 60)
    }
}
