/// The social planner's people on `store.cmd`: who they are, their goals and where they stand.
/// Encoded by `hearth-store` (absent fields as `null`, as replies are), decoded by the command
/// line and the page.

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
