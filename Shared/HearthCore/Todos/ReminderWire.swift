/// `reminder.list` on `scheduler.cmd`: this device's upcoming reminders, soonest first, each with
/// when it fires (a snoozed one at its snooze's end). Encoded by the scheduler, decoded by
/// `hearth reminder list`.
public struct ReminderList: Codable, Sendable, Equatable {
    /// One upcoming reminder.
    public struct Upcoming: Codable, Sendable, Equatable {
        /// The reminder's id: the todo's, or `<todo>@<date>` for one day of a repeating todo.
        public let id: String
        public let title: String
        /// When the todo is due (ISO 8601).
        public let due: String
        /// When the reminder pops up: the due time, or the end of its snooze (ISO 8601).
        public let fires: String
        public let snoozed: Bool

        public init(id: String, title: String, due: String, fires: String, snoozed: Bool) {
            (self.id, self.title, self.due, self.fires, self.snoozed) = (id, title, due, fires, snoozed)
        }
    }

    public let reminders: [Upcoming]

    public init(reminders: [Upcoming]) { self.reminders = reminders }
}

/// `reminder.due` (the scheduler's, for todos and check-ins): a reminder to raise, and what its
/// buttons offer. Encoded by `hearth-scheduler`, decoded by the notifier (and `reminder.showing`,
/// a list of them, by a notifier that starts late).
public struct ReminderDueEvent: Codable, Sendable, Equatable {
    public struct Reminder: Codable, Sendable, Equatable {
        /// The todo's id, `<todo>@<date>` for one day of a repeating todo, or `plan:<check-in>`.
        public let id: String
        public let title: String
        /// When it is due (ISO 8601).
        public let due: String?
        /// A line under the time ("Late: was due 2 h 53 min ago", "Sam · 30 min").
        public let detail: String?
        /// One Snooze button per entry, in minutes; none: one Snooze of the household's length.
        public let snoozeOptions: [Int]?
        /// The Reschedule button, when it offers one.
        public let reschedule: Reschedule?

        /// What Reschedule does: ask the scheduler for free slots (`true` on the wire), or move
        /// to one time (an ISO 8601 instant).
        public enum Reschedule: Sendable, Equatable {
            case slots
            case to(String)
        }

        public init(
            id: String, title: String, due: String?, detail: String? = nil, snoozeOptions: [Int]? = nil,
            reschedule: Reschedule? = nil
        ) {
            (self.id, self.title, self.due, self.detail) = (id, title, due, detail)
            (self.snoozeOptions, self.reschedule) = (snoozeOptions, reschedule)
        }

        enum CodingKeys: String, CodingKey {
            case id, title, due, detail, reschedule
            case snoozeOptions = "snooze_options"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            due = try container.decodeIfPresent(String.self, forKey: .due)
            detail = try container.decodeIfPresent(String.self, forKey: .detail)
            snoozeOptions = try container.decodeIfPresent([Int].self, forKey: .snoozeOptions)
            if let time = try? container.decodeIfPresent(String.self, forKey: .reschedule) {
                reschedule = .to(time)
            } else {
                reschedule = try container.decodeIfPresent(Bool.self, forKey: .reschedule) == true ? .slots : nil
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(title, forKey: .title)
            try container.encodeIfPresent(due, forKey: .due)
            try container.encodeIfPresent(detail, forKey: .detail)
            try container.encodeIfPresent(snoozeOptions, forKey: .snoozeOptions)
            switch reschedule {
            case .slots?: try container.encode(true, forKey: .reschedule)
            case .to(let time)?: try container.encode(time, forKey: .reschedule)
            case nil: break
            }
        }
    }

    public let reminder: Reminder

    public init(_ reminder: Reminder) { self.reminder = reminder }
}

/// A reminder named by its id (and title, where a popup shows it).
public struct ReminderRef: Codable, Sendable, Equatable {
    public let id: String
    public let title: String?

    public init(id: String, title: String? = nil) { (self.id, self.title) = (id, title) }
}

/// `reminder.done`, `reminder.cancelled` and `reminder.rescheduled`: the reminder is settled, its
/// popup closes (`to`: where a rescheduled check-in went, ISO 8601).
public struct ReminderClosedEvent: Codable, Sendable, Equatable {
    public let reminder: ReminderRef
    public let to: String?

    public init(id: String, to: String? = nil) { (reminder, self.to) = (ReminderRef(id: id), to) }
}

/// `reminder.snoozed`: the reminder comes back at `until` (ISO 8601); `moved` when a check-in
/// moved to another time (the notice names its day).
public struct ReminderSnoozedEvent: Codable, Sendable, Equatable {
    public let reminder: ReminderRef
    public let until: String
    public let moved: Bool?

    public init(id: String, title: String, until: String, moved: Bool? = nil) {
        (reminder, self.until, self.moved) = (ReminderRef(id: id, title: title), until, moved)
    }
}

/// `reminder.slots`: the free times a check-in's reminder may move to (ISO 8601), for a popup
/// of one button each.
public struct ReminderSlotsEvent: Codable, Sendable, Equatable {
    public let reminder: ReminderRef
    public let slots: [String]

    public init(id: String, title: String, slots: [String]) {
        (reminder, self.slots) = (ReminderRef(id: id, title: title), slots)
    }
}

/// `reminder.showing` on `scheduler.cmd`: the reminders on screen by the scheduler's record
/// (fired, not done, not snoozed), as their `reminder.due` events, for a notifier that starts
/// late.
public struct ReminderShowing: Codable, Sendable, Equatable {
    public let reminders: [ReminderDueEvent]

    public init(reminders: [ReminderDueEvent]) { self.reminders = reminders }
}

/// `reminder.sources` on `store.cmd` (for `hearth-scheduler`): the todos with a reminder this
/// device raises, a page at a time (`next`: the id to ask `after` for the next page).
public struct ReminderSources: Codable, Sendable, Equatable {
    /// One todo's reminder as the store holds it, with this device's record of it.
    public struct Todo: Codable, Sendable, Equatable {
        public let id: String
        public let title: String
        /// The first (or only) day, `YYYY-MM-DD`, and the time, `HH:MM:SS`.
        public let due: String
        public let time: String
        /// `none`, `daily`, `weekly`, `monthly` or `yearly`, with its last day and month-end rule.
        public let `repeat`: String
        public let until: String?
        public let monthEnd: String
        public let completed: Bool
        /// The days of a repeating todo done, from the day asked for on.
        public let completions: [String]
        /// The latest due instant that fired here (ms since 1970).
        public let firedDue: Int64?
        /// A snooze's end (ms) and the day of the occurrence snoozed.
        public let snoozedUntil: Int64?
        public let snoozedDate: String?
        /// When the reminder was last set as it is (ms): its time before that never fires.
        public let armedAt: Int64?
        /// A habit's streak, for its popup ("Drink water — 12-day streak").
        public var streak: ReminderStreak?
        /// The member the todo is for, when this device has no profile of that member (a shared
        /// device): its popup says whom it reminds ("For Dad").
        public var forMember: String?

        public init(
            id: String, title: String, due: String, time: String, repeat: String, until: String?, monthEnd: String,
            completed: Bool, completions: [String], firedDue: Int64?, snoozedUntil: Int64?, snoozedDate: String?,
            armedAt: Int64?
        ) {
            (self.id, self.title, self.due, self.time, self.repeat) = (id, title, due, time, `repeat`)
            (self.until, self.monthEnd, self.completed, self.completions) = (until, monthEnd, completed, completions)
            (self.firedDue, self.snoozedUntil, self.snoozedDate, self.armedAt) =
                (firedDue, snoozedUntil, snoozedDate, armedAt)
        }

        enum CodingKeys: String, CodingKey {
            case id, title, due, time, `repeat`, until, completed, completions
            case monthEnd = "month_end"
            case firedDue = "fired_due"
            case snoozedUntil = "snoozed_until"
            case snoozedDate = "snoozed_date"
            case armedAt = "armed_at"
            case streak
            case forMember = "for"
        }
    }

    public let reminders: [Todo]
    public let next: String?

    public init(reminders: [Todo], next: String?) { (self.reminders, self.next) = (reminders, next) }
}

/// A habit's streak as the store counted it on the day `through` (the household's today when it
/// answered), that day's own due date left open: its popup that day says `current`; on a later
/// day, the due dates from `through` on, all done, add to it (one missed ends it).
public struct ReminderStreak: Codable, Sendable, Equatable {
    public let through: String
    public let current: Int
    /// `day`, `week`, `month` or `year` (`HabitProgress.unit`).
    public let unit: String

    public init(through: String, current: Int, unit: String) {
        (self.through, self.current, self.unit) = (through, current, unit)
    }
}
