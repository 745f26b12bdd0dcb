import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// What a reminder's buttons (and `hearth`) ask of the scheduler.
struct SchedulerCommands: Sendable {
    let board: ReminderBoard
    let classes: ClassBoard
    let plans: PlanBoard
    let calendars: CalendarSubscriptions
    let store: CommandClient
    let snooze: Duration
    let clock: any SchedulerClock
    /// Loads every reminder again; whether that finished in time.
    let reload: @Sendable () async -> Bool
    let publish: @Sendable (String, JSONValue) -> Void

    func handle(_ request: CommandRequest) async throws -> JSONValue {
        switch request.command {
        case SchedulerQueries.ReadBusy.name:
            return try await SchedulerService.readNow(
                try request.decode(SchedulerQueries.ReadBusy.self), store: store, calendars: calendars,
                publish: publish)
        case ReminderActions.Done.name:
            let command = try request.decode(ReminderActions.Done.self)
            if let item = Self.checkIn(command.id) { return try JSONValue(reply: try await checkInDone(item)) }
            return try JSONValue(reply: try await done(command.id))
        case ReminderActions.Snooze.name:
            let command = try request.decode(ReminderActions.Snooze.self)
            if let item = Self.checkIn(command.id) {
                return try JSONValue(reply: try await checkInSnooze(item, minutes: command.minutes))
            }
            return try JSONValue(reply: try await snooze(command.id, minutes: command.minutes))
        case ReminderActions.Reschedule.name:
            let command = try request.decode(ReminderActions.Reschedule.self)
            guard let item = Self.checkIn(command.id) else {
                throw CommandError.invalidArgument(
                    "id", "only a check-in's reminder (plan:<id>) can be rescheduled here")
            }
            return try JSONValue(reply: try await checkInReschedule(item, to: command.to))
        case SchedulerQueries.CheckIns.name: return JSONValue(wire: await plans.upcoming())
        case SchedulerQueries.Showing.name: return JSONValue(wire: ReminderShowing(reminders: await board.showing()))
        case SchedulerQueries.Reminders.name: return try JSONValue(encoding: await board.upcomingList())
        case SchedulerQueries.Reload.name:
            guard await reload() else {
                throw CommandError(code: "unavailable", message: "the store did not answer: reminders not reloaded")
            }
            return try JSONValue(reply: RemindersReloaded(reminders: await board.count))
        case SchedulerQueries.Classes.name: return JSONValue(wire: await classes.upcoming(now: clock.now()))
        default: throw CommandError.unknownCommand(request.command, service: "scheduler")
        }
    }

    /// The check-in a reminder id names (`plan:<item>`), if it names one.
    private static func checkIn(_ id: String) -> String? {
        id.hasPrefix(PlanBoard.prefix) ? String(id.dropFirst(PlanBoard.prefix.count)) : nil
    }

    /// The reminder an id names: a todo id, or `<todo>@<YYYY-MM-DD>` for one day of a recurring
    /// todo.
    private func reminder(_ id: String) throws -> (id: String, todo: String, date: LocalDate?) {
        if let (todo, date) = Todos.completionParts(id) { return (id, todo, date) }
        guard Todos.isEntityID(id) else {
            throw CommandError.invalidArgument("id", "must be a todo id or '<todo id>@YYYY-MM-DD', got '\(id)'")
        }
        return (id, id, nil)
    }

    /// Completes the todo (or that day's occurrence) through the store and closes the popup.
    private func done(_ given: String) async throws -> ReminderActed {
        let (id, todo, date) = try reminder(given)
        let day = date ?? board.clock.today(at: clock.now())
        _ = try await store.send(TodoCommands.Done(id: todo, date: day.description))
        if await board.source(todo)?.snoozedUntil != nil {
            _ = try await store.send(ReminderCommands.Record(records: [.init(id: todo, snoozedUntil: .some(nil))]))
            await board.clearSnooze(todo)
        }
        publish("reminder.done", JSONValue(wire: ReminderClosedEvent(id: id)))
        return ReminderActed(id: id)
    }

    /// Snoozes the reminder for `minutes` (default `[reminders] snooze`); the snooze is kept in
    /// the store, so it survives a restart.
    private func snooze(_ given: String, minutes: Int64?) async throws -> ReminderActed {
        let (id, todo, date) = try reminder(given)
        var delay = snooze
        if let minutes {
            guard (1...1440).contains(minutes) else { throw CommandError.invalidArgument("minutes", "must be 1–1440") }
            delay = .seconds(minutes * 60)
        }
        guard let source = await board.source(todo) else {
            throw CommandError(code: "not_found", message: "'id': no reminder '\(id)' (done, removed or turned off)")
        }
        let until = clock.now().addingTimeInterval(Double(delay.components.seconds))
        let record = ReminderCommands.Record.Entry(
            id: todo, snoozedUntil: .some(ReminderBoard.milliseconds(until)), snoozedDate: date?.description)
        _ = try await store.send(ReminderCommands.Record(records: [record]))
        _ = await board.snooze(id, until: until)
        publish(
            "reminder.snoozed",
            JSONValue(wire: ReminderSnoozedEvent(id: id, title: source.title, until: Timestamp.format(until))))
        return ReminderActed(id: id, until: Timestamp.format(until))
    }

    // MARK: - Check-in reminders

    /// A check-in reminder's Done: the check-in happened.
    private func checkInDone(_ item: String) async throws -> ReminderActed {
        let id = PlanBoard.prefix + item
        _ = try await store.send(PlanCommands.Done(item: item, now: ReminderBoard.milliseconds(clock.now())))
        publish("reminder.done", JSONValue(wire: ReminderClosedEvent(id: id)))
        return ReminderActed(id: id)
    }

    /// A check-in reminder's Snooze: the check-in moved by 1 hour, 1 day or 3 days (`minutes`,
    /// an hour when absent); the store re-checks clashes.
    private func checkInSnooze(_ item: String, minutes: Int64?) async throws -> ReminderActed {
        let id = PlanBoard.prefix + item
        let title = await plans.reminder(item)?.title
        let moved = try await store.send(
            PlanCommands.Snooze(
                item: item, minutes: Int(minutes ?? 60), now: ReminderBoard.milliseconds(clock.now())))
        publish(
            "reminder.snoozed",
            JSONValue(wire: ReminderSnoozedEvent(id: id, title: title ?? moved.title, until: moved.start, moved: true)))
        return ReminderActed(id: id, until: moved.start)
    }

    /// A check-in reminder's Reschedule: with `to`, the check-in moves there; without, a popup of
    /// its own offers free slots.
    private func checkInReschedule(_ item: String, to: String?) async throws -> ReminderActed {
        let id = PlanBoard.prefix + item
        if let to {
            let moved = try await store.send(PlanCommands.Reschedule(item: item, to: .text(to)))
            publish("reminder.rescheduled", JSONValue(wire: ReminderClosedEvent(id: id, to: moved.start)))
            return ReminderActed(id: id, to: moved.start)
        }
        let title = await plans.reminder(item)?.title
        let offer = try await store.send(
            PlanCommands.Slots(item: item, now: ReminderBoard.milliseconds(clock.now())))
        let slots = Array(offer.slots.prefix(4))
        publish(
            "reminder.slots",
            JSONValue(wire: ReminderSlotsEvent(id: id, title: title ?? offer.item?.title ?? "", slots: slots)))
        return ReminderActed(id: id, slots: slots)
    }
}
