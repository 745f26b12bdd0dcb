import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// What a reminder's buttons (and `hearth`) ask of the scheduler.
struct SchedulerCommands: Sendable {
    let board: ReminderBoard
    let classes: ClassBoard
    let store: CommandClient
    let snooze: Duration
    let clock: any SchedulerClock
    let publish: @Sendable (String, JSONValue) -> Void

    func handle(_ request: CommandRequest) async throws -> JSONValue {
        switch request.command {
        case "reminder.done": return try await done(request.arguments)
        case "reminder.snooze": return try await snooze(request.arguments)
        case "reminder.showing": return ["reminders": .array(await board.showing())]
        case "reminder.list": return ["reminders": .array(await board.upcomingList())]
        case "class.list": return ["classes": .array(await classes.upcoming(now: clock.now()))]
        default: throw CommandError.unknownCommand(request.command, service: "scheduler")
        }
    }

    /// The reminder a request names: a todo id, or `<todo>@<YYYY-MM-DD>` for one day of a
    /// recurring todo.
    private func reminder(_ arguments: [String: JSONValue]) throws -> (id: String, todo: String, date: LocalDate?) {
        guard let id = arguments["id"]?.stringValue else { throw CommandError.invalidArgument("id", "is required") }
        if let (todo, date) = Todos.completionParts(id) { return (id, todo, date) }
        guard Todos.isEntityID(id) else {
            throw CommandError.invalidArgument("id", "must be a todo id or '<todo id>@YYYY-MM-DD', got '\(id)'")
        }
        return (id, id, nil)
    }

    /// Completes the todo (or that day's occurrence) through the store and closes the popup.
    private func done(_ arguments: [String: JSONValue]) async throws -> JSONValue {
        let (id, todo, date) = try reminder(arguments)
        var completion: [String: JSONValue] = ["id": .string(todo)]
        completion["date"] = .string((date ?? board.clock.today(at: clock.now())).description)
        let reply = try await store.request("todo.done", args: completion)
        if await board.source(todo)?.snoozedUntil != nil {
            _ = try await store.request(
                "reminder.record", args: ["records": [["id": .string(todo), "snoozed_until": .null]]])
            await board.clearSnooze(todo)
        }
        publish("reminder.done", ["reminder": ["id": .string(id)]])
        return ["reminder": ["id": .string(id)], "todo": reply["todo"] ?? .null]
    }

    /// Snoozes the reminder for `minutes` (default `[reminders] snooze`); the snooze is kept in
    /// the store, so it survives a restart.
    private func snooze(_ arguments: [String: JSONValue]) async throws -> JSONValue {
        let (id, todo, date) = try reminder(arguments)
        var delay = snooze
        if let minutes = arguments["minutes"], minutes != .null {
            guard let count = minutes.intValue, (1...1440).contains(count) else {
                throw CommandError.invalidArgument("minutes", "must be 1–1440")
            }
            delay = .seconds(count * 60)
        }
        guard let source = await board.source(todo) else {
            throw CommandError(code: "not_found", message: "'id': no reminder '\(id)' (done, removed or turned off)")
        }
        let until = clock.now().addingTimeInterval(Double(delay.components.seconds))
        var record: [String: JSONValue] = [
            "id": .string(todo), "snoozed_until": .int(ReminderBoard.milliseconds(until)),
        ]
        if let date { record["snoozed_date"] = .string(date.description) }
        _ = try await store.request("reminder.record", args: ["records": [.object(record)]])
        _ = await board.snooze(id, until: until)
        publish(
            "reminder.snoozed",
            [
                "reminder": ["id": .string(id), "title": .string(source.title)],
                "until": .string(Timestamp.format(until)),
            ])
        return ["reminder": ["id": .string(id)], "until": .string(Timestamp.format(until))]
    }
}
