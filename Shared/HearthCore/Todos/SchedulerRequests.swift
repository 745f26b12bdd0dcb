/// hearth-scheduler's commands (`scheduler.cmd`), one type each: the buttons of a reminder's
/// popup (what the notifier sends when one is pressed) and what the CLI, the notifier and the
/// tests ask of it. A reminder is named by its id: a todo's (`<todo>` or `<todo>@<date>` for one
/// day of a repeating one) or a check-in's (`plan:<item>`).
public enum ReminderActions {
    /// Done: the todo (or that day's occurrence) completed, or the check-in marked as happened;
    /// the popup closes.
    public struct Done: HearthCommand {
        public typealias Reply = ReminderActed
        public static let name = "reminder.done"
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// Snooze: a todo's reminder again after `minutes` (1–1440; the household's snooze when
    /// absent); a check-in moved by `minutes` (60 when absent), past any clash.
    public struct Snooze: HearthCommand {
        public typealias Reply = ReminderActed
        public static let name = "reminder.snooze"
        public var id: String
        public var minutes: Int64?
        public init(id: String, minutes: Int64? = nil) { (self.id, self.minutes) = (id, minutes) }
    }

    /// Reschedule a check-in: to `to` (an instant or the household's wall clock), or without it,
    /// a popup offering free slots.
    public struct Reschedule: HearthCommand {
        public typealias Reply = ReminderActed
        public static let name = "reminder.reschedule"
        public var id: String
        public var to: String?
        public init(id: String, to: String? = nil) { (self.id, self.to) = (id, to) }
    }
}

/// What a reminder's button did: the reminder, and when it comes again (`until`, a snooze), where
/// its check-in moved (`to`), or the free times offered (`slots`).
public struct ReminderActed: Codable, Sendable, Equatable {
    public let id: String
    @OmittedWhenNil public var until: String?
    @OmittedWhenNil public var to: String?
    @OmittedWhenNil public var slots: [String]?

    public init(id: String, until: String? = nil, to: String? = nil, slots: [String]? = nil) {
        (self.id, self.until, self.to, self.slots) = (id, until, to, slots)
    }
}

/// What the scheduler holds, asked for.
public enum SchedulerQueries {
    /// Upcoming reminders, soonest first; a snoozed one at its new time.
    public struct Reminders: HearthCommand {
        public typealias Reply = ReminderList
        public static let name = "reminder.list"
        public init() {}
    }

    /// The reminders on screen by the scheduler's record (for a notifier that starts late).
    public struct Showing: HearthCommand {
        public typealias Reply = ReminderShowing
        public static let name = "reminder.showing"
        public init() {}
    }

    /// Loads every reminder from the store again (the device's profile changed).
    public struct Reload: HearthCommand {
        public typealias Reply = RemindersReloaded
        public static let name = "reminder.reload"
        public init() {}
    }

    /// Today's and tomorrow's next-class notifications to come.
    public struct Classes: HearthCommand {
        public typealias Reply = ClassList
        public static let name = "class.list"
        public init() {}
    }

    /// The check-ins' reminders to come.
    public struct CheckIns: HearthCommand {
        public typealias Reply = PlanReminderList
        public static let name = "plan.reminders"
        public init() {}
    }

    /// Reads the subscribed calendar `url` now (every one when absent).
    public struct ReadBusy: HearthCommand {
        public typealias Reply = BusyReads
        public static let name = "busy.read"
        public var url: String?
        public init(url: String? = nil) { self.url = url }
    }
}

/// `reminder.reload`: how many todos with reminders the scheduler holds now.
public struct RemindersReloaded: Codable, Sendable, Equatable {
    public let reminders: Int

    public init(reminders: Int) { self.reminders = reminders }
}
