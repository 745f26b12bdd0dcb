import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// Every reminder this device knows, in memory: each todo's source and the next reminder it
/// fires. None of its methods suspends, so each runs whole.
actor ReminderBoard {
    private var sources: [String: ReminderSource] = [:]
    private var upcoming: [String: ReminderSource.Reminder] = [:]
    let clock: HouseholdTime
    private let now: @Sendable () -> Date

    init(clock: HouseholdTime, now: @escaping @Sendable () -> Date) {
        self.clock = clock
        self.now = now
    }

    var count: Int { sources.count }

    /// When this board first saw each todo's reminder set as it is (its `armedAt`), on the
    /// scheduler's clock: a reminder counts as set from the earlier of the two. The store's time
    /// is the operation's (another device's clock, or a test's real one beside an injected
    /// clock); a reminder seen here before its time is set then, whatever that said.
    private var seen: [String: (armedAt: Int64?, at: Int64)] = [:]

    /// `source` with its `armedAt` no later than when this board first saw it so.
    private func armed(_ source: ReminderSource) -> ReminderSource {
        var source = source
        let known = seen[source.todo]
        let at = known.flatMap { $0.armedAt == source.armedAt ? $0.at : nil } ?? Self.milliseconds(now())
        seen[source.todo] = (source.armedAt, at)
        source.armedAt = source.armedAt.map { min($0, at) }
        return source
    }

    /// Puts the sources of a full load in place of everything held.
    func load(_ all: [ReminderSource]) {
        let all = all.map(armed)
        sources = Dictionary(all.map { ($0.todo, $0) }) { $1 }
        seen = seen.filter { sources[$0.key] != nil }
        upcoming = [:]
        let time = now()
        for source in all { upcoming[source.todo] = source.next(now: time, clock: clock) }
    }

    /// What the popups must hear when a todo's source changed (nil: it has no reminder any
    /// more): `reminder.done` if what was on screen or snoozed is done, `reminder.cancelled` if
    /// the todo went or its reminder was turned off.
    func update(todo: String, to given: ReminderSource?) -> [(topic: String, data: JSONValue)] {
        let source = given.map(armed)
        if given == nil { seen[todo] = nil }
        let before = sources[todo]
        let shown = before.flatMap {
            $0.showing(clock: clock) ?? ($0.snoozedUntil != nil ? $0.next(now: now(), clock: clock) : nil)
        }
        sources[todo] = source
        upcoming[todo] = source?.next(now: now(), clock: clock)
        guard let shown else { return [] }
        let closed = JSONValue(wire: ReminderClosedEvent(id: shown.id))
        guard let source else { return [("reminder.cancelled", closed)] }
        let done = shown.date.map { source.completions.contains($0) } ?? source.completed
        if done { return [("reminder.done", closed)] }
        let stillShown = source.showing(clock: clock)?.id == shown.id || source.snoozedUntil != nil
        return stillShown ? [] : [("reminder.cancelled", closed)]
    }

    /// Reminders recorded in the store as fired ahead of their time (by todo), not yet published.
    private var recorded: [String: ReminderSource.Reminder] = [:]

    /// The reminders due within `lead` of now that are not recorded yet, earliest first.
    func toRecord(within lead: Duration) -> [ReminderSource.Reminder] {
        let limit = now().addingTimeInterval(lead.seconds)
        return upcoming.values.filter { $0.fireAt <= limit && recorded[$0.todo] != $0 }
            .sorted { ($0.fireAt, $0.id) < ($1.fireAt, $1.id) }
    }

    /// Notes that the store holds these reminders as fired.
    func markRecorded(_ reminders: [ReminderSource.Reminder]) {
        for reminder in reminders { recorded[reminder.todo] = reminder }
    }

    /// The recorded reminders whose time has come, earliest first (a reminder that changed since
    /// it was recorded waits to be recorded again).
    func ready() -> [ReminderSource.Reminder] {
        let time = now()
        return upcoming.values.filter { $0.fireAt <= time && recorded[$0.todo] == $0 }
            .sorted { ($0.fireAt, $0.id) < ($1.fireAt, $1.id) }
    }

    /// When to look again: a recorded reminder's time, or `lead` before an unrecorded one's.
    func nextWake(lead: Duration) -> Date? {
        upcoming.values.map { recorded[$0.todo] == $0 ? $0.fireAt : $0.fireAt.addingTimeInterval(-lead.seconds) }.min()
    }

    /// Records that `reminder` fired: it is on screen, and the next one is scheduled.
    func fired(_ reminder: ReminderSource.Reminder) {
        recorded[reminder.todo] = nil
        guard var source = sources[reminder.todo] else { return }
        source.firedDue = max(source.firedDue ?? 0, Self.milliseconds(reminder.due))
        source.snoozedUntil = nil
        source.snoozedDate = nil
        sources[reminder.todo] = source
        upcoming[reminder.todo] = source.next(now: now(), clock: clock)
    }

    /// Snoozes the reminder `id` (a todo's, or `<todo>@<date>`) until `until`.
    func snooze(_ id: String, until: Date) -> ReminderSource? {
        let todo = String(id.prefix { $0 != "@" })
        guard var source = sources[todo] else { return nil }
        source.snoozedUntil = Self.milliseconds(until)
        source.snoozedDate = Todos.completionParts(id)?.date
        sources[todo] = source
        upcoming[todo] = source.next(now: now(), clock: clock)
        return source
    }

    /// Clears a snooze (the reminder was done).
    func clearSnooze(_ todo: String) {
        guard var source = sources[todo], source.snoozedUntil != nil else { return }
        source.snoozedUntil = nil
        source.snoozedDate = nil
        sources[todo] = source
        upcoming[todo] = source.next(now: now(), clock: clock)
    }

    func source(_ todo: String) -> ReminderSource? { sources[todo] }

    /// The reminders on screen now, as `reminder.due` events (for a notifier that starts late).
    func showing() -> [ReminderDueEvent] {
        sources.values.compactMap { source in
            source.showing(clock: clock).map {
                Self.dueEvent($0, title: source.popupTitle($0), for: source.forMember, now: now())
            }
        }
        .sorted { $0.reminder.id < $1.reminder.id }
    }

    /// Every upcoming reminder, soonest first (`reminder.list`).
    func upcomingList() -> ReminderList {
        ReminderList(
            reminders: upcoming.values.sorted { ($0.fireAt, $0.id) < ($1.fireAt, $1.id) }.map { reminder in
                .init(
                    id: reminder.id, title: sources[reminder.todo]?.title ?? "",
                    due: Timestamp.format(reminder.due), fires: Timestamp.format(reminder.fireAt),
                    snoozed: reminder.snoozed)
            })
    }

    /// `reminder.due`'s data, as the notifier catalog specifies: whom it is for, on a device
    /// without that member's profile ("For Dad"), and whether it is over a minute late (the
    /// scheduler was down at its time).
    static func dueEvent(
        _ reminder: ReminderSource.Reminder, title: String, for member: String?, now: Date
    ) -> ReminderDueEvent {
        let late = !reminder.snoozed && now.timeIntervalSince(reminder.due) > 60
        let lines = [
            member.map { "For \($0)" },
            late ? "Late: was due \(Self.ago(now.timeIntervalSince(reminder.due))) ago" : nil,
        ]
        .compactMap { $0 }
        return ReminderDueEvent(
            .init(
                id: reminder.id, title: title, due: Timestamp.format(reminder.due),
                detail: lines.isEmpty ? nil : lines.joined(separator: " · ")))
    }

    /// A duration as a person says it: "5 min", "2 h 53 min", "3 days 4 h".
    static func ago(_ seconds: TimeInterval) -> String {
        let minutes = Int(seconds / 60)
        if minutes < 60 { return "\(minutes) min" }
        if minutes < 48 * 60 {
            let rest = minutes % 60
            return "\(minutes / 60) h" + (rest > 0 ? " \(rest) min" : "")
        }
        let hours = minutes / 60 % 24
        return "\(minutes / 1_440) days" + (hours > 0 ? " \(hours) h" : "")
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}

extension Duration {
    var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
