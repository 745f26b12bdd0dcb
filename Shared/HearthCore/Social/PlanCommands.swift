/// What a person does with a planned check-in, as commands to the store (`store.cmd`), one type
/// each: what the CLI, the page and hearth-scheduler (a check-in reminder's buttons) send, and
/// what the store decodes. A check-in is named by its id or a unique id prefix; a person by name
/// (any case), id or unique id prefix. `now` (milliseconds since 1970) stands in for the clock,
/// for tests, `--now` and the scheduler's own clock.
public enum PlanCommands {
    /// Plans a check-in a person chose (`origin: manual`) at `at`, for `duration` ("45m"; default
    /// the person's goal's); refused when it clashes.
    public struct Add: HearthCommand {
        public typealias Reply = PlanItemChange
        public static let name = "plan.add"
        public var person: String
        public var at: TimeArgument
        public var duration: String?
        public var now: Int64?
        public init(person: String, at: TimeArgument, duration: String? = nil, now: Int64? = nil) {
            (self.person, self.at, self.duration, self.now) = (person, at, duration, now)
        }
    }

    /// The check-in happened: logged as an interaction (`met`, `call`, `text` or `other`;
    /// default `met`), which restarts the person's cadence.
    public struct Done: HearthCommand {
        public typealias Reply = PlanItemChange
        public static let name = "plan.done"
        public var item: String
        public var outcome: String?
        public var now: Int64?
        public init(item: String, outcome: String? = nil, now: Int64? = nil) {
            (self.item, self.outcome, self.now) = (item, outcome, now)
        }
    }

    /// Cancels a check-in.
    public struct Cancel: HearthCommand {
        public typealias Reply = PlanItemChange
        public static let name = "plan.cancel"
        public var item: String
        public init(item: String) { self.item = item }
    }

    /// Snoozes a check-in by `minutes` (5 to 14 days' worth; default 60) from its start, or from
    /// now if that has passed, moved on to the next valid slot if that time clashes.
    public struct Snooze: HearthCommand {
        public typealias Reply = PlanItemView
        public static let name = "plan.snooze"
        public var item: String
        public var minutes: Int?
        public var now: Int64?
        public init(item: String, minutes: Int? = nil, now: Int64? = nil) {
            (self.item, self.minutes, self.now) = (item, minutes, now)
        }
    }

    /// Moves a check-in to `to`, which must be free (`plan.slots` offers valid times).
    public struct Reschedule: HearthCommand {
        public typealias Reply = PlanItemView
        public static let name = "plan.reschedule"
        public var item: String
        public var to: TimeArgument
        public var now: Int64?
        public init(item: String, to: TimeArgument, now: Int64? = nil) {
            (self.item, self.to, self.now) = (item, to, now)
        }
    }

    /// Moves today's pending check-ins to tomorrow morning, each on to the next valid slot if
    /// that clashes.
    public struct SnoozeTonight: HearthCommand {
        public typealias Reply = PlanMoved
        public static let name = "plan.snooze_tonight"
        public var now: Int64?
        public init(now: Int64? = nil) { self.now = now }
    }

    /// "Plan my week": marks past pending check-ins missed, then places everyone who needs one.
    public struct Week: HearthCommand {
        public typealias Reply = PlanWeek
        public static let name = "plan.week"
        public var now: Int64?
        public init(now: Int64? = nil) { self.now = now }
    }

    /// "What's next": the next `count` (1–100, default 3) pending check-ins.
    public struct Next: HearthCommand {
        public typealias Reply = PlanItems
        public static let name = "plan.next"
        public var count: Int?
        public var now: Int64?
        public init(count: Int? = nil, now: Int64? = nil) { (self.count, self.now) = (count, now) }
    }

    /// Every check-in from `from` to `to` (dates, `YYYY-MM-DD`; default this week), any status.
    public struct List: HearthCommand {
        public typealias Reply = PlanItems
        public static let name = "plan.list"
        public var from: String?
        public var to: String?
        public var now: Int64?
        public init(from: String? = nil, to: String? = nil, now: Int64? = nil) {
            (self.from, self.to, self.now) = (from, to, now)
        }
    }

    /// The times a check-in may be rescheduled to: the earliest valid slot on each of the next
    /// days that have one (five at most).
    public struct Slots: HearthCommand {
        public typealias Reply = PlanSlots
        public static let name = "plan.slots"
        public var item: String
        public var now: Int64?
        public init(item: String, now: Int64? = nil) { (self.item, self.now) = (item, now) }
    }

    /// The check-ins from 30 days ago on as iCalendar text.
    public struct Export: HearthCommand {
        public typealias Reply = PlanExport
        public static let name = "plan.export"
        public var now: Int64?
        public init(now: Int64? = nil) { self.now = now }
    }

    /// The pending check-ins whose reminder may still come, for hearth-scheduler.
    public struct Sources: HearthCommand {
        public typealias Reply = PlanSources
        public static let name = "plan.sources"
        public var now: Int64?
        public init(now: Int64? = nil) { self.now = now }
    }

    /// The planning preferences.
    public struct Preferences: HearthCommand {
        public typealias Reply = PlanPreferences
        public static let name = "plan.prefs"
        public init() {}
    }

    /// Sets planning preferences: check-ins a week (`capacity`), days ahead (`horizon`), minutes
    /// of warning (`lead`), and times of day `HH:MM` (`quietStart`, `quietEnd`, `refresh`,
    /// `morning`). At least one; the rest keep theirs.
    public struct SetPreferences: HearthCommand, Equatable {
        public typealias Reply = PlanPreferences
        public static let name = "plan.prefs.set"
        public var capacity: Int?
        public var horizon: Int?
        public var lead: Int?
        public var quietStart: String?
        public var quietEnd: String?
        public var refresh: String?
        public var morning: String?
        public init(
            capacity: Int? = nil, horizon: Int? = nil, lead: Int? = nil, quietStart: String? = nil,
            quietEnd: String? = nil, refresh: String? = nil, morning: String? = nil
        ) {
            (self.capacity, self.horizon, self.lead) = (capacity, horizon, lead)
            (self.quietStart, self.quietEnd, self.refresh, self.morning) = (quietStart, quietEnd, refresh, morning)
        }
    }

    /// Records that this device raised the reminders of `items` (hearth-scheduler), so a restart
    /// does not raise them again.
    public struct Record: HearthCommand {
        public typealias Reply = PlanAlertsRecorded
        public static let name = "plan.record"
        /// A check-in's reminder raised: the check-in, and its start as it was then (milliseconds).
        public struct Raised: Codable, Sendable, Equatable {
            public var item: String
            public var start: Int64
            public init(item: String, start: Int64) { (self.item, self.start) = (item, start) }
        }
        public var items: [Raised]
        public init(items: [Raised]) { self.items = items }
    }
}

/// `plan.record`'s reply: how many reminders were recorded.
public struct PlanAlertsRecorded: Codable, Sendable, Equatable {
    public let recorded: Int
    public init(recorded: Int) { self.recorded = recorded }
}
