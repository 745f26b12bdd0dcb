import Foundation
import HearthCalendar
import HearthCore
import Testing

@testable import SchedulerService

/// When reminders fire, driven by an injected clock across daylight-saving changes: the
/// scheduler's own reckoning (`ReminderSource.next`), run as the scheduler runs it — fire at the
/// reminder's time, record it, ask again.
@Suite("Scheduler: reminder times across daylight saving, with the clock driven", .timeLimit(.minutes(1)))
struct ReminderTimelineTests {
    private func date(_ text: String) -> LocalDate { try! LocalDate(parsing: text, field: "date") }
    private func time(_ text: String) -> LocalTime { try! LocalTime(parsing: text, field: "time") }
    private func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    private func source(_ due: String, _ at: String, _ frequency: Recurrence.Frequency?) -> ReminderSource {
        ReminderSource(
            todo: "0b7e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b", title: "Meds", due: date(due), time: time(at),
            recurrence: frequency.map { Recurrence(frequency: $0, start: date(due)) })
    }

    /// Every firing from `start` through `end`, as the scheduler would make them: the clock
    /// jumps to each reminder's time, which is recorded as fired. (Whatever was due before
    /// `start` fired already.)
    private func firings(_ source: ReminderSource, from start: Date, through end: Date, in zone: String) -> [Date] {
        let clock = HouseholdTime(timeZone: TimeZone(identifier: zone)!)
        var source = source
        source.firedDue = ReminderBoard.milliseconds(start)
        var now = start
        var fired: [Date] = []
        while let next = source.next(now: now, clock: clock), next.fireAt <= end, fired.count < 1000 {
            now = max(now, next.fireAt)
            fired.append(next.fireAt)
            source.firedDue = ReminderBoard.milliseconds(next.due)
        }
        return fired
    }

    private func wall(_ instants: [Date], _ zone: String) -> [String] {
        let clock = HouseholdTime(timeZone: TimeZone(identifier: zone)!)
        return instants.map { "\(clock.wallClock(at: $0).date) \(clock.wallClock(at: $0).time.short)" }
    }

    @Test(
        "a 09:00 daily reminder stays at 09:00 local across both changes",
        arguments: [
            ("Europe/London", "2026-03-27", "2026-10-23"), ("America/New_York", "2026-03-06", "2026-10-30"),
        ])
    func nineOClock(zone: String, spring: String, autumn: String) {
        for week in [spring, autumn] {
            let start = HouseholdTime(timeZone: TimeZone(identifier: zone)!).instant(date(week), time("00:00"))
            let fired = firings(
                source("2026-01-01", "09:00", .daily), from: start, through: start.addingTimeInterval(5 * 86_400 - 1),
                in: zone)
            #expect(wall(fired, zone) == (0..<5).map { "\(date(week).adding(days: $0)) 09:00" })
        }
    }

    @Test(
        "on the autumn day a 01:30 reminder fires once, at the first 01:30",
        arguments: [
            ("Europe/London", "2026-10-25", "2026-10-25T00:30:00Z"),
            ("America/New_York", "2026-11-01", "2026-11-01T05:30:00Z"),
        ])
    func repeatedHour(zone: String, day: String, first: String) {
        let clock = HouseholdTime(timeZone: TimeZone(identifier: zone)!)
        let start = clock.instant(date(day), time("00:00"))
        let end = clock.instant(date(day), time("12:00"))
        for frequency in [Recurrence.Frequency.daily, nil] {
            let fired = firings(source(day, "01:30", frequency), from: start, through: end, in: zone)
            #expect(fired == [instant(first)], "\(String(describing: frequency))")
        }
    }

    @Test(
        "in the spring gap a reminder fires an hour on (02:30 → 03:30 in New York, 01:30 → 02:30 in London)",
        arguments: [
            ("America/New_York", "2026-03-08", "02:30", "2026-03-08T07:30:00Z", "03:30"),
            ("Europe/London", "2026-03-29", "01:30", "2026-03-29T01:30:00Z", "02:30"),
        ])
    func springGap(zone: String, day: String, at: String, expected: String, local: String) {
        let clock = HouseholdTime(timeZone: TimeZone(identifier: zone)!)
        let start = clock.instant(date(day).adding(days: -1), time("12:00"))
        let fired = firings(
            source("2026-01-01", at, .daily), from: start, through: start.addingTimeInterval(86_400 * 2 - 1), in: zone)
        #expect(fired.first == instant(expected))
        // That day's at the hour after; the next day's at its own time again.
        #expect(wall(fired, zone) == ["\(day) \(local)", "\(date(day).adding(days: 1)) \(at)"])
    }

    @Test("down for three days, a daily reminder fires once late (the latest missed day), then on time")
    func missedDays() {
        let clock = HouseholdTime(timeZone: TimeZone(identifier: "Europe/London")!)
        var meds = source("2026-06-01", "09:00", .daily)
        meds.firedDue = ReminderBoard.milliseconds(clock.instant(date("2026-06-01"), time("09:00")))
        let back = instant("2026-06-04T12:00:00Z")
        let late = try! #require(meds.next(now: back, clock: clock))
        #expect(late.id == "\(meds.todo)@2026-06-04")
        #expect(late.fireAt == clock.instant(date("2026-06-04"), time("09:00")))
        meds.firedDue = ReminderBoard.milliseconds(late.due)
        #expect(meds.next(now: back, clock: clock)?.date == date("2026-06-05"))
        // A day already done is passed over.
        let done = ReminderSource(
            todo: meds.todo, title: "Meds", due: meds.due, time: meds.time, recurrence: meds.recurrence,
            completions: [date("2026-06-05")], firedDue: meds.firedDue)
        #expect(done.next(now: back, clock: clock)?.date == date("2026-06-06"))
        // A one-off reminder that fired, or whose todo is done, fires no more.
        var once = source("2026-06-04", "09:00", nil)
        #expect(once.next(now: back, clock: clock)?.id == once.todo)
        once.firedDue = ReminderBoard.milliseconds(clock.instant(date("2026-06-04"), time("09:00")))
        #expect(once.next(now: back, clock: clock) == nil)
        #expect(once.showing(clock: clock)?.id == once.todo)
    }

    @Test(
        "a time that passed before the reminder was set never fires; one missed while it was set fires once, late by the real time"
    )
    func armed() throws {
        let clock = HouseholdTime(timeZone: TimeZone(identifier: "Europe/London")!)
        let made = instant("2026-11-27T10:53:00Z")
        // A daily 08:00 habit made at 10:53: its first reminder is tomorrow's, not today's, late.
        var habit = source("2026-11-27", "08:00", .daily)
        habit.armedAt = ReminderBoard.milliseconds(made)
        let first = habit.next(now: made, clock: clock)
        #expect(first.map { wall([$0.fireAt], "Europe/London") } == ["2026-11-28 08:00"])
        // A one-off due at 09:00 today, made at 10:53: never.
        var once = source("2026-11-27", "09:00", nil)
        once.armedAt = ReminderBoard.milliseconds(made)
        #expect(once.next(now: made, clock: clock) == nil)
        // Set at 07:00, the scheduler down from 07:30 to 10:53: today's fires once, saying how late.
        var missed = source("2026-11-27", "08:00", .daily)
        missed.armedAt = ReminderBoard.milliseconds(instant("2026-11-27T07:00:00Z"))
        let late = try #require(missed.next(now: made, clock: clock))
        #expect(wall([late.due], "Europe/London") == ["2026-11-27 08:00"])
        let event = ReminderBoard.dueEvent(late, title: "Drink water", for: nil, now: made)
        #expect(event.reminder.detail == "Late: was due 2 h 53 min ago")
        #expect(ReminderBoard.ago(5 * 60 + 30) == "5 min")
        #expect(ReminderBoard.ago(3 * 86_400 + 4 * 3_600) == "3 days 4 h")
    }
}

extension ReminderTimelineTests {
    @Test(
        "a habit's popup carries its streak: the store's count on its day; later days add the dates done between, and one not done ends it"
    )
    func streakInTitle() {
        var source = ReminderSource(
            todo: "t", title: "Drink water", due: date("2026-11-01"), time: time("08:00:00"),
            recurrence: Recurrence(frequency: .daily, start: date("2026-11-01")),
            completions: [date("2026-11-20"), date("2026-11-21")])
        source.streak = .init(through: date("2026-11-20"), current: 12, unit: "day")
        func reminder(_ day: String) -> ReminderSource.Reminder {
            .init(
                id: "t@\(day)", todo: "t", date: date(day), due: instant("\(day)T08:00:00Z"),
                fireAt: instant("\(day)T08:00:00Z"), snoozed: false)
        }
        #expect(source.popupTitle(reminder("2026-11-20")) == "Drink water — 12-day streak")
        #expect(source.popupTitle(reminder("2026-11-22")) == "Drink water — 14-day streak")
        // The 22nd was not done: on the 23rd the streak is over.
        #expect(source.popupTitle(reminder("2026-11-23")) == "Drink water")
        // A day before the store counted says nothing rather than guess.
        #expect(source.popupTitle(reminder("2026-11-19")) == "Drink water")
        source.streak = .init(through: date("2026-11-20"), current: 0, unit: "day")
        #expect(source.popupTitle(reminder("2026-11-20")) == "Drink water")
        let once = ReminderSource(
            todo: "o", title: "Dentist", due: date("2026-11-20"), time: time("09:00:00"), recurrence: nil)
        #expect(
            once.popupTitle(
                .init(
                    id: "o", todo: "o", date: nil, due: instant("2026-11-20T09:00:00Z"),
                    fireAt: instant("2026-11-20T09:00:00Z"), snoozed: false)) == "Dentist")
    }
}
