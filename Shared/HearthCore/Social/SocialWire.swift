/// The social planner's replies on `store.cmd`: people, check-ins, the week's plan, busy times
/// and preferences. Encoded by `hearth-store` (absent fields as `null`, as replies are), decoded
/// by the command line, the page and `hearth-scheduler`.

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

/// A person as replies show one: who they are; with a goal, how due a check-in is; in
/// `people.show`, their recent interactions and check-ins.
public struct PersonView: Codable, Sendable, Equatable {
    /// How often, how much, how long and when.
    public struct Goal: Codable, Sendable, Equatable {
        /// Days between check-ins, importance 1–5, minutes.
        public let every: Int
        public let importance: Int
        public let duration: Int
        /// `Mon-Fri 18:00-21:00; Sun 14:00-17:00`.
        public let windows: String
        /// Dates never planned on, comma-separated.
        public let exclude: String?

        public init(every: Int, importance: Int, duration: Int, windows: String, exclude: String?) {
            (self.every, self.importance, self.duration, self.windows, self.exclude) = (
                every, importance, duration, windows, exclude
            )
        }
    }

    /// A person with a goal: the goal, and where they stand on the day asked about.
    public struct Standing: Sendable, Equatable {
        public let goal: Goal
        /// The last check-in's day, the day one is due, and how many days overdue it is.
        public let last: String?
        public let due: String
        public let overdueDays: Int
        /// How overdue (0–1) and the planner's score (urgency and importance).
        public let urgency: Double
        public let score: Double

        public init(goal: Goal, last: String?, due: String, overdueDays: Int, urgency: Double, score: Double) {
            (self.goal, self.last, self.due, self.overdueDays, self.urgency, self.score) = (
                goal, last, due, overdueDays, urgency, score
            )
        }
    }

    /// A logged interaction.
    public struct Interaction: Codable, Sendable, Equatable {
        public let id: String
        /// When (ISO 8601) and how: `met`, `call`, `text` or `other`.
        public let at: String
        public let outcome: String
        public let note: String?

        public init(id: String, at: String, outcome: String, note: String?) {
            (self.id, self.at, self.outcome, self.note) = (id, at, outcome, note)
        }
    }

    public let id: String
    public let name: String
    public let tags: String?
    public let purpose: String?
    public let conflicted: Bool
    public var standing: Standing?
    /// Their next pending check-in.
    public var next: PlanItemView?
    /// In `people.show`: the latest 20 interactions and check-ins.
    public var interactions: [Interaction]?
    public var items: [PlanItemView]?

    public init(id: String, name: String, tags: String?, purpose: String?, conflicted: Bool) {
        (self.id, self.name, self.tags, self.purpose, self.conflicted) = (id, name, tags, purpose, conflicted)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, tags, purpose, conflicted, goal, last, due, urgency, score, next, interactions, items
        case overdueDays = "overdue_days"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        tags = try container.decodeIfPresent(String.self, forKey: .tags)
        purpose = try container.decodeIfPresent(String.self, forKey: .purpose)
        conflicted = try container.decode(Bool.self, forKey: .conflicted)
        if let goal = try container.decodeIfPresent(Goal.self, forKey: .goal) {
            standing = Standing(
                goal: goal, last: try container.decodeIfPresent(String.self, forKey: .last),
                due: try container.decode(String.self, forKey: .due),
                overdueDays: try container.decode(Int.self, forKey: .overdueDays),
                urgency: try container.decode(Double.self, forKey: .urgency),
                score: try container.decode(Double.self, forKey: .score))
        }
        next = try container.decodeIfPresent(PlanItemView.self, forKey: .next)
        interactions = try container.decodeIfPresent([Interaction].self, forKey: .interactions)
        items = try container.decodeIfPresent([PlanItemView].self, forKey: .items)
    }

    /// The goal's fields only for a person with a goal (`last` then `null` when never seen);
    /// `next`, `interactions` and `items` only where there are.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(tags, forKey: .tags)
        try container.encode(purpose, forKey: .purpose)
        try container.encode(conflicted, forKey: .conflicted)
        if let standing {
            try container.encode(standing.goal, forKey: .goal)
            try container.encode(standing.last, forKey: .last)
            try container.encode(standing.due, forKey: .due)
            try container.encode(standing.overdueDays, forKey: .overdueDays)
            try container.encode(standing.urgency, forKey: .urgency)
            try container.encode(standing.score, forKey: .score)
        }
        // Not encodeIfPresent: an encoder that writes nulls writes those.
        if let next { try container.encode(next, forKey: .next) }
        if let interactions { try container.encode(interactions, forKey: .interactions) }
        if let items { try container.encode(items, forKey: .items) }
    }
}

/// The reply to `people.add` and `people.edit`: the person as they now are, with the operation.
public struct PersonChange: Codable, Sendable, Equatable {
    public let person: PersonView
    @OmittedWhenNil public var op: String?
    @OmittedWhenNil public var seq: Int64?
    @OmittedWhenNil public var unchanged: Bool?
}

/// `people.remove`: the person removed, and how many pending check-ins were cancelled.
public struct PersonRemoved: Codable, Sendable, Equatable {
    public struct Ref: Codable, Sendable, Equatable {
        public let id: String
    }

    public let person: Ref
    public let op: String
    public let seq: Int64
    public let canceledItems: Int

    enum CodingKeys: String, CodingKey {
        case person, op, seq
        case canceledItems = "canceled_items"
    }
}

/// `people.list`: everyone, highest score first (people without a goal last).
public struct PeopleList: Codable, Sendable, Equatable {
    public let people: [PersonView]
    /// The day the scores are for.
    public let today: String

    public init(people: [PersonView], today: String) { (self.people, self.today) = (people, today) }
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

/// `plan.prefs` and `plan.prefs.set`.
public struct PlanPreferences: Codable, Sendable, Equatable {
    /// Check-ins a week, and how many days ahead the planner looks.
    public let capacity: Int
    public let horizon: Int
    /// Quiet hours (`HH:MM`), when no reminder is raised and nothing is planned.
    public let quietStart: String
    public let quietEnd: String
    /// Minutes before a check-in its reminder comes; the daily refresh; "snooze tonight"'s morning.
    public let lead: Int
    public let refresh: String
    public let morning: String

    public init(
        capacity: Int, horizon: Int, quietStart: String, quietEnd: String, lead: Int, refresh: String, morning: String
    ) {
        (self.capacity, self.horizon, self.quietStart, self.quietEnd) = (capacity, horizon, quietStart, quietEnd)
        (self.lead, self.refresh, self.morning) = (lead, refresh, morning)
    }

    enum CodingKeys: String, CodingKey {
        case capacity, horizon, lead, refresh, morning
        case quietStart = "quiet_start"
        case quietEnd = "quiet_end"
    }
}

/// `plan.busy.import`: a calendar file read into busy times.
public struct BusyImport: Codable, Sendable, Equatable {
    /// An event that could not be read, and why.
    public struct Problem: Codable, Sendable, Equatable {
        public let event: String
        public let reason: String

        public init(event: String, reason: String) { (self.event, self.reason) = (event, reason) }
    }

    /// The file's name, its busy times from today on, its events, and those marked free.
    public let file: String
    public let busy: Int
    public let events: Int
    public let free: Int
    /// The first 100 problems, and how many more there were.
    public let errors: [Problem]
    public let omittedErrors: Int

    public init(file: String, busy: Int, events: Int, free: Int, errors: [Problem], omittedErrors: Int) {
        (self.file, self.busy, self.events, self.free, self.errors, self.omittedErrors) = (
            file, busy, events, free, errors, omittedErrors
        )
    }

    enum CodingKeys: String, CodingKey {
        case file, busy, events, free, errors
        case omittedErrors = "omitted_errors"
    }
}

/// `plan.busy.list`: busy times still to come (the first 500), and how many are held.
public struct BusyList: Codable, Sendable, Equatable {
    public struct Busy: Codable, Sendable, Equatable {
        public let uid: String
        public let summary: String
        /// ISO 8601; an all-day event runs midnight to midnight in the household's zone.
        public let start: String
        public let end: String
        public let allDay: Bool
        public let file: String

        public init(uid: String, summary: String, start: String, end: String, allDay: Bool, file: String) {
            (self.uid, self.summary, self.start, self.end, self.allDay, self.file) = (
                uid, summary, start, end, allDay, file
            )
        }

        enum CodingKeys: String, CodingKey {
            case uid, summary, start, end, file
            case allDay = "all_day"
        }
    }

    public let total: Int
    public let busy: [Busy]

    public init(total: Int, busy: [Busy]) { (self.total, self.busy) = (total, busy) }
}

/// `plan.busy.clear`: how many busy times were removed.
public struct BusyCleared: Codable, Sendable, Equatable {
    public let cleared: Int

    public init(cleared: Int) { self.cleared = cleared }
}

/// `plan.export`: the check-ins as an iCalendar file, and how many events it holds.
public struct PlanExport: Codable, Sendable, Equatable {
    public let ics: String
    public let events: Int

    public init(ics: String, events: Int) { (self.ics, self.events) = (ics, events) }
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
