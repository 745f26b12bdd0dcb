/// The social planner's check-ins on `store.cmd` and `scheduler.cmd`: the week's plan, moves,
/// slots, and the reminders' sources. Encoded by `hearth-store` and `hearth-scheduler` (replies
/// with absent fields as `null`), decoded by the command line, the page and `hearth-scheduler`.

/// A check-in as replies show it.
public struct PlanItemView: Codable, Sendable, Equatable {
    public let id: String
    /// The person's id and name, and the title ("Catch up with Sam").
    public let person: String
    public let name: String
    public let title: String
    /// When it starts and ends (ISO 8601), and its length in minutes.
    public let start: String
    public let end: String
    public let duration: Int
    /// `pending`, `done`, `canceled`, `missed`, `snoozed` or `rescheduled`.
    public let status: String
    /// `auto` (placed by the planner) or `manual`.
    public let origin: String
    /// The check-in this one was moved from.
    public let previous: String?
    public let conflicted: Bool
    /// On a check-in just placed: its person's score.
    @OmittedWhenNil public var score: Double?
    /// When the id given named a check-in since moved: that id.
    @OmittedWhenNil public var movedFrom: String?
    /// In `plan.sources`: the start in ms, and whether its reminder was raised on this device.
    @OmittedWhenNil public var startMs: Int64?
    @OmittedWhenNil public var fired: Bool?

    public init(
        id: String, person: String, name: String, title: String, start: String, end: String, duration: Int,
        status: String, origin: String, previous: String?, conflicted: Bool
    ) {
        (self.id, self.person, self.name, self.title, self.start, self.end) = (id, person, name, title, start, end)
        (self.duration, self.status, self.origin, self.previous, self.conflicted) = (
            duration, status, origin, previous, conflicted
        )
    }

    enum CodingKeys: String, CodingKey {
        case id, person, name, title, start, end, duration, status, origin, previous, conflicted, score, fired
        case movedFrom = "moved_from"
        case startMs = "start_ms"
    }
}

/// `plan.week`: the check-ins placed, who could not be placed or was skipped and why, and how
/// many past check-ins were marked missed.
public struct PlanWeek: Codable, Sendable, Equatable {
    public struct Unplaced: Codable, Sendable, Equatable {
        public let person: String
        public let name: String
        public let reason: String

        public init(person: String, name: String, reason: String) {
            (self.person, self.name, self.reason) = (person, name, reason)
        }
    }

    public let placed: [PlanItemView]
    public let unplaced: [Unplaced]
    public let skipped: [Unplaced]
    public let missed: Int
    public let today: String
    /// How many days ahead the planner looks.
    public let horizon: Int

    public init(
        placed: [PlanItemView], unplaced: [Unplaced], skipped: [Unplaced], missed: Int, today: String, horizon: Int
    ) {
        (self.placed, self.unplaced, self.skipped, self.missed, self.today, self.horizon) = (
            placed, unplaced, skipped, missed, today, horizon
        )
    }
}

/// The reply to `plan.add`, `plan.done` and `plan.cancel`: the check-in with the operation, and
/// `moved_from` when the id given named a check-in since moved.
public struct PlanItemChange: Codable, Sendable, Equatable {
    public var item: PlanItemView
    @OmittedWhenNil public var op: String?
    @OmittedWhenNil public var seq: Int64?
    @OmittedWhenNil public var unchanged: Bool?
    @OmittedWhenNil public var movedFrom: String?

    enum CodingKeys: String, CodingKey {
        case item, op, seq, unchanged
        case movedFrom = "moved_from"
    }
}

/// `plan.next` (the next few) and `plan.list` (a week's, with its `from` and `to`).
public struct PlanItems: Codable, Sendable, Equatable {
    @OmittedWhenNil public var from: String?
    @OmittedWhenNil public var to: String?
    public let items: [PlanItemView]

    public init(items: [PlanItemView], from: String? = nil, to: String? = nil) {
        (self.items, self.from, self.to) = (items, from, to)
    }
}

/// `plan.slots`: the times a check-in may move to.
public struct PlanSlots: Codable, Sendable, Equatable {
    public let item: PlanItemView?
    /// ISO 8601 instants, soonest first.
    public let slots: [String]

    public init(item: PlanItemView?, slots: [String]) { (self.item, self.slots) = (item, slots) }
}

/// `plan.snooze_tonight`: the check-ins moved, as they now are.
public struct PlanMoved: Codable, Sendable, Equatable {
    public let moved: [PlanItemView]

    public init(moved: [PlanItemView]) { self.moved = moved }
}

/// `plan.sources` (for `hearth-scheduler`): the reminders' lead, the daily refresh, quiet hours,
/// and the pending check-ins still to come with their start in ms and whether they were raised.
public struct PlanSources: Codable, Sendable, Equatable {
    public let lead: Int
    /// `HH:MM:SS`, and `HH:MM-HH:MM`.
    public let refresh: String
    public let quiet: String
    public let items: [PlanItemView]

    public init(lead: Int, refresh: String, quiet: String, items: [PlanItemView]) {
        (self.lead, self.refresh, self.quiet, self.items) = (lead, refresh, quiet, items)
    }
}

/// `plan.reminders` on `scheduler.cmd`: the check-in reminders loaded, soonest first.
public struct PlanReminderList: Codable, Sendable, Equatable {
    public struct Upcoming: Codable, Sendable, Equatable {
        /// `plan:<check-in>`, as the reminder's buttons name it.
        public let id: String
        public let title: String
        /// When the check-in starts and when its reminder comes (ISO 8601), and whether it came.
        public let start: String
        public let fires: String
        public let raised: Bool

        public init(id: String, title: String, start: String, fires: String, raised: Bool) {
            (self.id, self.title, self.start, self.fires, self.raised) = (id, title, start, fires, raised)
        }
    }

    public let reminders: [Upcoming]

    public init(reminders: [Upcoming]) { self.reminders = reminders }
}
