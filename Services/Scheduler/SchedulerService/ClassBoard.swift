import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// One next-class notification: a member's lesson on one date, raised `lead` minutes before it
/// starts.
struct ClassAlert: Sendable, Equatable {
    /// `<entry>@<YYYY-MM-DD>`.
    let id: String
    let member: String
    let memberName: String
    let subject: String
    let room: String
    let teacher: String?
    let period: String
    let start: Date
    let fireAt: Date

    /// The lesson as `class.next` names it.
    var lesson: ClassNextEvent.Lesson {
        .init(
            id: id, member: .init(id: member, name: memberName), subject: subject, room: room, teacher: teacher,
            period: period, start: Timestamp.format(start))
    }
}

/// The next-class notifications of the days loaded (`class.sources`: today and tomorrow, school
/// days of the right week only, never in holidays), and how far each member's have been raised
/// on this device. None of its methods suspends, so each runs whole.
actor ClassBoard {
    private var alerts: [ClassAlert] = []
    /// Per member: the start (ms) of the latest lesson whose notification was raised here.
    private var alertedUntil: [String: Int64] = [:]
    /// The last day loaded: past it, the board must load again.
    private(set) var loadedThrough: LocalDate?
    /// Set when the timetable changed since the load.
    private(set) var stale = true
    let clock: HouseholdTime

    init(clock: HouseholdTime) { self.clock = clock }

    var count: Int { alerts.count }

    func markStale() { stale = true }

    /// Takes a `class.sources` reply for the days up to `through`.
    func load(_ sources: ClassSources, through: LocalDate) {
        var loaded: [ClassAlert] = []
        for member in sources.members {
            let id = member.id
            if let until = member.alertedUntil { alertedUntil[id] = max(alertedUntil[id] ?? 0, until) }
            for lesson in member.classes {
                guard let date = lesson.date.flatMap({ try? LocalDate(parsing: $0, field: "date") }),
                    let time = lesson.times.start
                else { continue }
                let start = clock.instant(date, time)
                loaded.append(
                    ClassAlert(
                        id: "\(lesson.id)@\(date)", member: id, memberName: member.name, subject: lesson.subject,
                        room: lesson.room, teacher: lesson.teacher, period: lesson.period, start: start,
                        fireAt: start.addingTimeInterval(-Double(member.lead) * 60)))
            }
        }
        alerts = loaded.sorted { ($0.fireAt, $0.id) < ($1.fireAt, $1.id) }
        loadedThrough = through
        stale = false
    }

    private func raised(_ alert: ClassAlert) -> Bool {
        guard let until = alertedUntil[alert.member] else { return false }
        return ReminderBoard.milliseconds(alert.start) <= until
    }

    /// The notifications to raise now: their time has come, the lesson has not started, and no
    /// later one of the member's was raised (a scheduler that was down raises only what is
    /// still ahead).
    func ready(now: Date) -> [ClassAlert] {
        alerts.filter { $0.fireAt <= now && now < $0.start && !raised($0) }
    }

    /// Notes that `alert` was raised (recorded in the store first).
    func raisedAlert(_ alert: ClassAlert) {
        alertedUntil[alert.member] = max(alertedUntil[alert.member] ?? 0, ReminderBoard.milliseconds(alert.start))
    }

    /// When to look again: the next notification not yet raised whose lesson is ahead.
    func nextWake(after now: Date) -> Date? {
        alerts.first { $0.start > now && !raised($0) && $0.fireAt > now }?.fireAt
    }

    /// What is to come, soonest first (for `class.list`).
    func upcoming(now: Date) -> ClassList {
        ClassList(
            classes: alerts.filter { $0.start > now }.map { alert in
                .init(lesson: alert.lesson, fires: Timestamp.format(alert.fireAt), raised: raised(alert))
            })
    }
}
