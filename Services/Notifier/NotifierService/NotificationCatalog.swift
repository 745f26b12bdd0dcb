import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthNotify

/// One popup to show (or replace) under a key.
struct Popup: Equatable, Sendable {
    let key: String
    let category: NotifySettings.Category
    var notification: DesktopNotification
    /// What each action key does when pressed.
    let buttons: [String: Button]
}

/// What the notifier does with one bus event.
enum NotificationPlan: Equatable {
    case show(Popup)
    /// Close these keys' popups: what they showed has changed or is over.
    case close([String])
    /// Each of these, in order (a game's popups closed, then its statistics shown).
    case all([NotificationPlan])
    case ignore
}

/// What pressing a button does: a command to the service that owns the thing shown, with the
/// original event's ids.
struct Button: Equatable, Sendable {
    let service: HearthService
    let command: String
    let arguments: [String: JSONValue]
}

extension Button {
    /// A button that sends a typed command (`HearthCommand`) to `service`. Encoding a command
    /// fails only for a non-finite number, which no button's command holds (codes, ids, seqs);
    /// were one to, the press would reach the service without that field and be refused naming
    /// it, reported as `notify.failed`.
    init<C: HearthCommand>(_ service: HearthService, _ command: C) {
        self.init(service: service, command: C.name, arguments: (try? command.arguments()) ?? [:])
    }
}

/// The table from event types to notifications. Services only publish; this is the one place
/// that decides what a person sees. The events and the data each must carry:
///
/// | type | data | shows |
/// |---|---|---|
/// | `turn.your-turn` | `YourTurnEvent`: `code`, `seq`, `turn`, `player {id, name, device}` | "Your turn, NAME" (critical, **Done**) on the player's device, "NAME is playing" (low) elsewhere; one popup per game |
/// | `turn.changed` | `TurnChangedEvent`: `session` (a whole `TurnSession`), `change {kind, player}`, `clock_now` | joined / left / skipped / reversed / timer (low), "You are the leader now"; the warning ("10 seconds left, Ann", from the clock's stage) and "Time's up, Ann"; "Game paused" (**Resume** at the leader's); "You are sitting out" (**I'm back**); `ended` closes the game's popups and shows its statistics |
/// | `reminder.due` | `reminder {id, title, due, detail?, snooze_options?, reschedule?}` | title and time, **Done**, **Snooze** (one button per `snooze_options` minutes: "+1 hour", "+1 day", "+3 days"), **Reschedule** when offered (`true`: asks for slots) |
/// | `reminder.slots` | `reminder {id, title}`, `slots` (instants) | "Reschedule: TITLE", one button per slot ("Tue 18:00"), replacing the reminder |
/// | `reminder.snoozed` | `reminder {id, title}`, `until`, `moved?` | "Snoozed until 18:30" ("Moved to Tue 18:30" when `moved`), replacing the reminder |
/// | `reminder.done`, `reminder.rescheduled`, `reminder.cancelled` | `reminder {id}` | closes the reminder |
/// | `class.next` | `class {id, member {id, name}, subject, room, teacher?, period, start}` | "Next: Maths in R12 at 10:00 · Mr S" (normal, brief), one popup per member |
/// | `sync.completed` | `peer {device, name}`, `received`, `sent`, `conflicts` | "Synced with Mum — 3 received, 1 sent" (low; normal with conflicts; none when nothing moved) |
/// | `sync.failed` | `peer {device, name}`, `reason` | "Sync with Mum failed" (normal) |
/// | `sync.changed` | `peer {device, name}`, `changes [{year, month, by {device, name}, before, after}]` | "Mum changed August: Beach day → Beach weekend" (normal), one per sync |
/// | `sync.refused` | `OperationsRefusedEvent`: `peer {device, name}`, `count`, `refused [{id, field, rule}]` | "Refused 3 changes from Dad's laptop" (normal), the first reason; once per device's refused operations |
/// | `device.pairing` | `device`, `name`, `code`, `fingerprint` | "Pair with Dad's laptop? Code 123 456" (critical), **Confirm**, **Reject** |
/// | `device.paired`, `device.pairing.ended` | `device` | closes the pairing popup |
/// | `device.clone` | `host`, `detail` | "Another device is using this device's identity" (critical) |
/// | `store.changed` on `store.suggestion.changed` | `suggestion {…}` | "Mum suggested 'Beach day' for August", **Accept**, **Decline**; closed once decided |
///
/// Turn events are ordered by the session's `seq`: one older than the newest seen for its game is
/// stale and ignored, so a late or repeated update never brings back a finished turn.
struct NotificationCatalog {
    /// The publishers (`src`) whose events this table shows, with every topic prefix each one
    /// publishes under: the notifier subscribes to exactly these, and all of a source's topics,
    /// so a gap in its `seq` means events were really missed.
    static let sources: [String: [String]] = [
        "turn": ["turn."], "store": ["store."], "scheduler": ["reminder.", "plan.", "class."],
        "sync": ["sync.", "device."],
    ]

    /// This device's id: "Your turn" goes to the players sitting at it.
    let device: String
    /// The time zone clock times are shown in.
    var timeZone: TimeZone = .current
    var newestTurn: [String: Int64] = [:]
    /// Per game, the `turn_start_seq` of the turn whose warning, and whose time's up, was shown:
    /// each once a turn, however many states of it arrive.
    var timerShown: [String: (warned: Int64?, up: Int64?)] = [:]

    init(device: String, timeZone: TimeZone = .current) {
        self.device = device
        self.timeZone = timeZone
    }

    mutating func plan(topic: String, envelope: Envelope) -> NotificationPlan {
        let data = envelope.data
        switch envelope.type {
        case "turn.your-turn":
            guard let event = try? data.decode(YourTurnEvent.self), accept(code: event.code, seq: event.seq) else {
                return .ignore
            }
            return yourTurn(event)
        case "turn.changed":
            guard let event = try? data.decode(TurnChangedEvent.self),
                accept(code: event.session.code, seq: event.session.seq)
            else { return .ignore }
            return turnChanged(event)
        case "reminder.due":
            guard let event = try? data.decode(ReminderDueEvent.self) else { return .ignore }
            return reminderDue(event.reminder)
        case "reminder.snoozed":
            guard let event = try? data.decode(ReminderSnoozedEvent.self) else { return .ignore }
            return snoozed(event)
        case "reminder.slots":
            guard let event = try? data.decode(ReminderSlotsEvent.self) else { return .ignore }
            return slots(event)
        case "reminder.done", "reminder.rescheduled", "reminder.cancelled":
            guard let event = try? data.decode(ReminderClosedEvent.self) else { return .ignore }
            return .close(["reminder.\(event.reminder.id)"])
        case "plan.unplaced":
            guard let event = try? data.decode(PlanUnplacedEvent.self) else { return .ignore }
            return unplaced(event)
        case "class.next":
            guard let event = try? data.decode(ClassNextEvent.self) else { return .ignore }
            return nextClass(event.lesson)
        case "sync.completed":
            guard let event = try? data.decode(SyncCompletedEvent.self) else { return .ignore }
            return synced(event)
        case "sync.failed":
            guard let event = try? data.decode(SyncFailedEvent.self) else { return .ignore }
            return syncFailed(event)
        case "sync.changed":
            guard let event = try? data.decode(CardsChangedEvent.self) else { return .ignore }
            return remoteChanges(event)
        case "sync.refused":
            guard let event = try? data.decode(OperationsRefusedEvent.self) else { return .ignore }
            return refused(event)
        case "device.pairing":
            guard let event = try? data.decode(PairingView.self) else { return .ignore }
            return pairing(event)
        case "device.paired", "device.pairing.ended":
            guard let event = try? data.decode(PairingEndedEvent.self) else { return .ignore }
            return .close(["pairing.\(event.device)"])
        case "device.clone":
            guard let event = try? data.decode(DeviceCloneEvent.self) else { return .ignore }
            return clone(event)
        case "store.changed" where topic == "store.device_key.changed":
            guard let event = try? data.decode(DeviceKeyChange.Event.self) else { return .ignore }
            return keyConflict(event.deviceKey)
        case "store.changed" where topic == "store.suggestion.changed":
            guard let suggestion = try? data.decode(SuggestionMade.self).suggestion else { return .ignore }
            return self.suggestion(suggestion)
        default:
            return .ignore
        }
    }

    /// Takes the turn service's own `seq` of every game in play as the newest seen: the owner is
    /// authoritative, and games it no longer has are forgotten.
    mutating func adoptTurnSeqs(_ seqs: [String: Int64]) {
        newestTurn = seqs
    }

    /// Whether a turn event is at least as new as the newest seen for its game.
    mutating func accept(code: String, seq: Int64) -> Bool {
        if let newest = newestTurn[code], seq < newest { return false }
        newestTurn[code] = seq
        return true
    }

    // MARK: - Reminders and snoozes

    /// The title and time, with Done, Snooze and (when the event offers it) Reschedule.
    private func reminderDue(_ reminder: ReminderDueEvent.Reminder) -> NotificationPlan {
        let (id, title) = (reminder.id, reminder.title)
        var body: [String] = []
        if let due = reminder.due.flatMap(Timestamp.parse) { body.append("Due \(clock(due))") }
        if let detail = reminder.detail { body.append(detail) }
        var actions = [(key: "done", label: "Done")]
        var buttons = ["done": Button(.scheduler, ReminderActions.Done(id: id))]
        let snoozes = (reminder.snoozeOptions ?? []).filter { $0 > 0 }.prefix(3)
        if snoozes.isEmpty {
            actions.append((key: "snooze", label: "Snooze"))
            buttons["snooze"] = Button(.scheduler, ReminderActions.Snooze(id: id))
        }
        for minutes in snoozes {
            actions.append((key: "snooze-\(minutes)", label: Self.snoozeLabel(minutes)))
            buttons["snooze-\(minutes)"] = Button(.scheduler, ReminderActions.Snooze(id: id, minutes: Int64(minutes)))
        }
        if let reschedule = reminder.reschedule {
            actions.append((key: "reschedule", label: "Reschedule"))
            let to: String? =
                switch reschedule {
                case .slots: nil
                case .to(let time): time
                }
            buttons["reschedule"] = Button(.scheduler, ReminderActions.Reschedule(id: id, to: to))
        }
        return .show(
            Popup(
                key: "reminder.\(id)", category: .reminders,
                notification: DesktopNotification(
                    summary: title, body: body.joined(separator: " · "), icon: "appointment-soon", urgency: .normal,
                    category: "hearth.reminder", timeout: 0, actions: actions, sound: "message-new-instant"),
                buttons: buttons))
    }

    /// "+1 hour", "+1 day", "+3 days", "+90 min".
    static func snoozeLabel(_ minutes: Int) -> String {
        switch minutes {
        case let whole where whole % 1440 == 0: "+\(whole / 1440) day\(whole == 1440 ? "" : "s")"
        case let whole where whole % 60 == 0: "+\(whole / 60) hour\(whole == 60 ? "" : "s")"
        default: "+\(minutes) min"
        }
    }

    /// The times a reminder's item can move to, one button each, in place of the reminder.
    private func slots(_ event: ReminderSlotsEvent) -> NotificationPlan {
        let (id, title) = (event.reminder.id, event.reminder.title ?? "")
        let times = event.slots.prefix(4)
        guard !times.isEmpty else {
            return .show(
                Popup(
                    key: "reminder.\(id)", category: .reminders,
                    notification: DesktopNotification(
                        summary: "No free time to move it to", body: title,
                        icon: "appointment-soon", urgency: .normal, category: "hearth.reminder", timeout: 5_000),
                    buttons: [:]))
        }
        var actions: [(key: String, label: String)] = []
        var buttons: [String: Button] = [:]
        for (index, time) in times.enumerated() {
            guard let instant = Timestamp.parse(time) else { continue }
            actions.append((key: "slot-\(index)", label: dayAndClock(instant)))
            buttons["slot-\(index)"] = Button(.scheduler, ReminderActions.Reschedule(id: id, to: time))
        }
        return .show(
            Popup(
                key: "reminder.\(id)", category: .reminders,
                notification: DesktopNotification(
                    summary: "Reschedule: \(title)", body: "Choose a new time",
                    icon: "appointment-soon", urgency: .normal, category: "hearth.reminder", timeout: 0,
                    actions: actions),
                buttons: buttons))
    }

    /// `Tue 18:00` in the household's zone.
    private func dayAndClock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let weekday = calendar.component(.weekday, from: date)
        return "\(["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][weekday - 1]) \(clock(date))"
    }

    /// A brief "Snoozed until 18:30" in place of the reminder.
    /// - Parameter withDay: the item moved (a check-in snoozed a day on): "Moved to Tue 18:00".
    private func snoozed(_ event: ReminderSnoozedEvent) -> NotificationPlan {
        guard let until = Timestamp.parse(event.until) else { return .ignore }
        let (id, withDay) = (event.reminder.id, event.moved == true)
        return .show(
            Popup(
                key: "reminder.\(id)", category: .snoozes,
                notification: DesktopNotification(
                    summary: withDay ? "Moved to \(dayAndClock(until))" : "Snoozed until \(clock(until))",
                    body: event.reminder.title ?? "",
                    icon: "appointment-soon", urgency: .low, category: "hearth.snooze", timeout: 3_000),
                buttons: [:]))
    }

    private func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (parts.hour! < 10 ? "0" : "") + "\(parts.hour!):" + (parts.minute! < 10 ? "0" : "") + "\(parts.minute!)"
    }

    // MARK: - Classes

    /// "Next: Maths in R12 at 10:00 · Mr S", brief, under the member's key (the next one replaces it).
    private func nextClass(_ lesson: ClassNextEvent.Lesson) -> NotificationPlan {
        guard let start = Timestamp.parse(lesson.start) else { return .ignore }
        let (member, subject, room) = (lesson.member.id, lesson.subject, lesson.room)
        let teacher = lesson.teacher.map { " · \($0)" } ?? ""
        let period = Int(lesson.period) != nil ? "period \(lesson.period)" : lesson.period
        let body = [lesson.member.name, period]
        return .show(
            Popup(
                key: "class.\(member)", category: .classes,
                notification: DesktopNotification(
                    summary: "Next: \(subject) in \(room) at \(clock(start))\(teacher)",
                    body: body.joined(separator: " · "),
                    icon: "x-office-calendar", urgency: .normal, category: "hearth.class", timeout: 10_000),
                buttons: [:]))
    }

    // MARK: - Suggestions

    /// "Mum suggested 'Beach day' for August", with Accept and Decline; closed once decided.
    private func suggestion(_ suggestion: SuggestionView) -> NotificationPlan {
        let id = suggestion.id
        let key = "suggestion.\(id)"
        guard suggestion.status == "open" else { return .close([key]) }
        let (who, month) = (suggestion.suggestedByName, suggestion.monthName)
        var what: [String] = []
        if let title = suggestion.title { what.append("'\(title)'") }
        if let location = suggestion.location { what.append("at \(location)") }
        if let day = suggestion.day { what.append("on the \(Ordinal.english(day))") }
        let notification = DesktopNotification(
            summary: "\(who) suggested \(what.isEmpty ? "a change" : what.joined(separator: " ")) for \(month)",
            body: "Year planner, \(month) \(suggestion.year)",
            icon: "x-office-calendar", urgency: .normal, category: "hearth.suggestion", timeout: 0,
            actions: [(key: "accept", label: "Accept"), (key: "decline", label: "Decline")])
        return .show(
            Popup(
                key: key, category: .suggestions, notification: notification,
                buttons: [
                    "accept": Button(.store, EventCommands.Accept(id: id)),
                    "decline": Button(.store, EventCommands.Decline(id: id)),
                ]))
    }
}
