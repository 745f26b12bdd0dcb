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
        if request.command == "busy.read" {
            return try await SchedulerService.readNow(
                try request.arguments(as: BusyReadArguments.self), store: store, calendars: calendars,
                publish: publish)
        }
        let arguments = try request.arguments(as: ReminderCommandArguments.self)
        if let id = arguments.id, id.hasPrefix(PlanBoard.prefix) {
            return try await checkIn(request.command, item: String(id.dropFirst(PlanBoard.prefix.count)), arguments)
        }
        switch request.command {
        case "reminder.done": return try await done(arguments)
        case "reminder.snooze": return try await snooze(arguments)
        case "reminder.reschedule":
            throw CommandError.invalidArgument("id", "only a check-in's reminder (plan:<id>) can be rescheduled here")
        case "plan.reminders": return Wire.data(await plans.upcoming())
        case "reminder.showing": return Wire.data(ReminderShowing(reminders: await board.showing()))
        case "reminder.list": return try JSONValue(encoding: await board.upcomingList())
        case "reminder.reload":
            guard await reload() else {
                throw CommandError(code: "unavailable", message: "the store did not answer: reminders not reloaded")
            }
            return ["reminders": .int(Int64(await board.count))]
        case "class.list": return Wire.data(await classes.upcoming(now: clock.now()))
        default: throw CommandError.unknownCommand(request.command, service: "scheduler")
        }
    }

    /// The reminder a request names: a todo id, or `<todo>@<YYYY-MM-DD>` for one day of a
    /// recurring todo.
    private func reminder(_ arguments: ReminderCommandArguments) throws -> (id: String, todo: String, date: LocalDate?)
    {
        guard let id = arguments.id else { throw CommandError.invalidArgument("id", "is required") }
        if let (todo, date) = Todos.completionParts(id) { return (id, todo, date) }
        guard Todos.isEntityID(id) else {
            throw CommandError.invalidArgument("id", "must be a todo id or '<todo id>@YYYY-MM-DD', got '\(id)'")
        }
        return (id, id, nil)
    }

    /// Completes the todo (or that day's occurrence) through the store and closes the popup.
    private func done(_ arguments: ReminderCommandArguments) async throws -> JSONValue {
        let (id, todo, date) = try reminder(arguments)
        let day = date ?? board.clock.today(at: clock.now())
        let reply = try await store.send(TodoCommands.Done(id: todo, date: day.description))
        if await board.source(todo)?.snoozedUntil != nil {
            _ = try await store.send(ReminderCommands.Record(records: [.init(id: todo, snoozedUntil: .some(nil))]))
            await board.clearSnooze(todo)
        }
        publish("reminder.done", Wire.data(ReminderClosedEvent(id: id)))
        return ["reminder": ["id": .string(id)], "todo": try reply.todo.map { try JSONValue(reply: $0) } ?? .null]
    }

    /// Snoozes the reminder for `minutes` (default `[reminders] snooze`); the snooze is kept in
    /// the store, so it survives a restart.
    private func snooze(_ arguments: ReminderCommandArguments) async throws -> JSONValue {
        let (id, todo, date) = try reminder(arguments)
        var delay = snooze
        if let minutes = arguments.minutes {
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
            Wire.data(ReminderSnoozedEvent(id: id, title: source.title, until: Timestamp.format(until))))
        return ["reminder": ["id": .string(id)], "until": .string(Timestamp.format(until))]
    }

    // MARK: - Check-in reminders

    /// A check-in reminder's buttons: Done (the check-in happened), Snooze by 1 hour, 1 day or
    /// 3 days (the store re-checks clashes), Reschedule (without `to`: offers free slots in a
    /// popup of their own; with `to`: moves it there).
    private func checkIn(
        _ command: String, item: String, _ arguments: ReminderCommandArguments
    ) async throws -> JSONValue {
        let id = PlanBoard.prefix + item
        let milliseconds = ReminderBoard.milliseconds(clock.now())
        let title = await plans.reminder(item)?.title
        switch command {
        case "reminder.done":
            let reply = try await store.send(PlanCommands.Done(item: item, now: milliseconds))
            publish("reminder.done", Wire.data(ReminderClosedEvent(id: id)))
            return try JSONValue(reply: reply)
        case "reminder.snooze":
            let minutes = arguments.minutes ?? 60
            let moved = try await store.send(PlanCommands.Snooze(item: item, minutes: Int(minutes), now: milliseconds))
            publish(
                "reminder.snoozed",
                Wire.data(ReminderSnoozedEvent(id: id, title: title ?? moved.title, until: moved.start, moved: true)))
            return try JSONValue(reply: moved)
        case "reminder.reschedule":
            if let to = arguments.to {
                let moved = try await store.send(PlanCommands.Reschedule(item: item, to: .text(to)))
                publish("reminder.rescheduled", Wire.data(ReminderClosedEvent(id: id, to: moved.start)))
                return try JSONValue(reply: moved)
            }
            let offer = try await store.send(PlanCommands.Slots(item: item, now: milliseconds))
            let slots = Array(offer.slots.prefix(4))
            publish(
                "reminder.slots",
                Wire.data(ReminderSlotsEvent(id: id, title: title ?? offer.item?.title ?? "", slots: slots)))
            return ["slots": .array(slots.map(JSONValue.string))]
        default:
            throw CommandError.invalidArgument("id", "'\(command)' does not take a check-in's reminder")
        }
    }
}
