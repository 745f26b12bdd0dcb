import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// One check-in's reminder: raised `lead` before the check-in starts, with Done, three snoozes
/// and Reschedule.
struct PlanReminder: Sendable, Equatable {
    /// The check-in's id.
    let item: String
    let title: String
    let name: String
    let start: Date
    let end: Date
    let fireAt: Date

    /// The reminder's id on the bus: `plan:<item>` (todo reminders use the todo's id).
    var id: String { PlanBoard.prefix + item }

    /// The snoozes the popup offers, in minutes: an hour, a day, three days (SPEC part 5).
    static let snoozes = [60, 1440, 4320]

    /// `reminder.due`'s event: Done, the three snoozes and Reschedule (free slots).
    func event(now: Date, household: HouseholdTime) -> ReminderDueEvent {
        let minutes = Int(end.timeIntervalSince(start) / 60)
        var detail = "\(name) · \(Social.durationText(minutes))"
        if now >= start { detail += " · started at \(household.wallClock(at: start).time.short)" }
        return ReminderDueEvent(
            .init(
                id: id, title: title, due: Timestamp.format(start), detail: detail, snoozeOptions: Self.snoozes,
                reschedule: .slots))
    }
}

/// The pending check-ins whose reminders are still to come (`plan.sources`), and the daily
/// refresh time. None of its methods suspends, so each runs whole.
actor PlanBoard {
    static let prefix = "plan:"

    private var reminders: [PlanReminder] = []
    private var raised: Set<String> = []
    /// When the daily refresh runs, on the household's wall clock.
    private(set) var refresh = Social.Preferences().refresh
    /// Set when a social planner entity changed since the load.
    private(set) var stale = true
    let clock: HouseholdTime

    init(clock: HouseholdTime) { self.clock = clock }

    var count: Int { reminders.count }

    func markStale() { stale = true }

    /// Takes a `plan.sources` reply.
    func load(_ sources: PlanSources) {
        let lead = Double(sources.lead) * 60
        if let time = try? LocalTime(parsing: sources.refresh, field: "refresh") { refresh = time }
        // A reminder whose time falls in the planner's quiet hours waits for their end (never
        // past the check-in's start): a 07:15 check-in with a 30-minute lead reminds at 07:00.
        let quiet = try? QuietHours(parsing: sources.quiet)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = clock.timeZone
        reminders = sources.items.compactMap { item in
            guard let start = Timestamp.parse(item.start), let end = Timestamp.parse(item.end) else { return nil }
            if item.fired == true { raised.insert(item.id) }
            var fireAt = start.addingTimeInterval(-lead)
            if let quiet, quiet.contains(fireAt, calendar: calendar) {
                fireAt = min(quiet.end(after: fireAt, calendar: calendar), start)
            }
            return PlanReminder(
                item: item.id, title: item.title, name: item.name, start: start, end: end, fireAt: fireAt)
        }
        .sorted { ($0.fireAt, $0.item) < ($1.fireAt, $1.item) }
        stale = false
    }

    /// The reminders to raise now: their time has come, the check-in has not ended, and this
    /// device has not raised them (a scheduler that was down raises a missed one once, late).
    func ready(now: Date) -> [PlanReminder] {
        reminders.filter { $0.fireAt <= now && now < $0.end && !raised.contains($0.item) }
    }

    /// Notes that `reminder` was raised (recorded in the store first).
    func raise(_ reminder: PlanReminder) { raised.insert(reminder.item) }

    /// When the next reminder is due, if any.
    func nextWake(after now: Date) -> Date? {
        reminders.first { !raised.contains($0.item) && $0.fireAt > now }?.fireAt
    }

    func reminder(_ item: String) -> PlanReminder? { reminders.first { $0.item == item } }

    /// What is to come, soonest first (for `plan.reminders`).
    func upcoming() -> PlanReminderList {
        PlanReminderList(
            reminders: reminders.map { reminder in
                .init(
                    id: reminder.id, title: reminder.title, start: Timestamp.format(reminder.start),
                    fires: Timestamp.format(reminder.fireAt), raised: raised.contains(reminder.item))
            })
    }
}
