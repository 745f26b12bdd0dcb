import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// The social planner's timers: check-in reminders and the daily refresh.
extension SchedulerService {
    /// Loads the pending check-ins when stale, runs the refresh at start and at the preferred
    /// time each day, raises the reminders whose time has come (recorded in the store first, so
    /// never twice), and sleeps until the next reminder, the next refresh or a change.
    func firePlans() async {
        var refreshed: Date?
        while !Task.isCancelled {
            planWake.reset()
            let now = clock.now()
            do {
                let due: Date? = if let refreshed { await nextRefresh(after: refreshed) } else { nil }
                if due.map({ now >= $0 }) ?? true {
                    let plan = try await store.send(PlanCommands.Week(now: ReminderBoard.milliseconds(now)))
                    refreshed = now
                    logger.info("hearth-scheduler: daily plan refresh placed \(plan.placed.count) check-ins")
                    // What it changed comes back on the store's change feed, which marks the board
                    // stale and wakes this loop: no second load here.
                }
                if await plans.stale {
                    await plans.load(
                        try await store.send(PlanCommands.Sources(now: ReminderBoard.milliseconds(now))))
                }
                let ready = await plans.ready(now: now)
                if !ready.isEmpty {
                    _ = try await store.send(
                        PlanCommands.Record(
                            items: ready.map { .init(item: $0.item, start: ReminderBoard.milliseconds($0.start)) }))
                    for reminder in ready {
                        await plans.raise(reminder)
                        publish("reminder.due", JSONValue(wire: reminder.event(now: now, household: plans.clock)))
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("hearth-scheduler: cannot load, refresh or record check-in reminders: \(error)")
                // A retry timer while the store is away, not synchronisation.
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            let next = [await plans.nextWake(after: now), await nextRefresh(after: refreshed ?? now)].compactMap { $0 }
                .min()
            await clock.wait(until: next, or: planWake)
        }
    }

    /// The first refresh time after `instant`.
    private func nextRefresh(after instant: Date) async -> Date {
        let time = await plans.refresh
        let day = plans.clock.today(at: instant)
        let same = plans.clock.instant(day, time)
        return same > instant ? same : plans.clock.instant(day.adding(days: 1), time)
    }
}
