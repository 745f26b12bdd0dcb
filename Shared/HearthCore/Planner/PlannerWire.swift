/// The family year planner's replies on `store.cmd`: cards, suggestions, the planner's history
/// and every domain's conflicts. Encoded by `hearth-store` (absent fields as `null`, as replies
/// are), decoded by the command line and the page.

/// A month's card as replies show it; one never set has only its month, colour and `empty`.
public struct CardView: Codable, Sendable, Equatable {
    /// A field as the operation log holds it: the value shown, whether devices disagree, and
    /// every competing value with its operation.
    public struct FieldState: Codable, Sendable, Equatable {
        public struct Head: Codable, Sendable, Equatable {
            public let op: String
            public let value: FieldJSON

            public init(op: String, value: FieldJSON) { (self.op, self.value) = (op, value) }
        }

        public let value: FieldJSON
        public let conflict: Bool
        public let values: [Head]

        public init(value: FieldJSON, conflict: Bool, values: [Head]) {
            (self.value, self.conflict, self.values) = (value, conflict, values)
        }
    }

    public let year: Int
    public let month: Int
    public let monthName: String
    public let title: String?
    public let location: String?
    public let day: Int?
    /// `#RRGGBB`.
    public let colour: String
    public let conflicted: Bool
    /// No title: nothing planned that month.
    public let empty: Bool
    /// When it was made and last changed, and by which device (a card never set has none).
    @OmittedWhenNil public var createdAt: String?
    @OmittedWhenNil public var modifiedAt: String?
    @OmittedWhenNil public var modifiedBy: String?
    @OmittedWhenNil public var modifiedByName: String?
    /// In `event.show`: each field's state, and how many operations the card has.
    @OmittedWhenNil public var fields: [String: FieldState]?
    @OmittedWhenNil public var operations: Int?

    public init(
        year: Int, month: Int, monthName: String, title: String?, location: String?, day: Int?, colour: String,
        conflicted: Bool, empty: Bool
    ) {
        (self.year, self.month, self.monthName, self.title, self.location) = (year, month, monthName, title, location)
        (self.day, self.colour, self.conflicted, self.empty) = (day, colour, conflicted, empty)
    }

    enum CodingKeys: String, CodingKey {
        case year, month, title, location, day, colour, conflicted, empty, fields, operations
        case monthName = "month_name"
        case createdAt = "created_at"
        case modifiedAt = "modified_at"
        case modifiedBy = "modified_by"
        case modifiedByName = "modified_by_name"
    }
}

/// The reply to `event.set` and `event.clear`: the card as it now is, with the operation.
public struct CardChange: Codable, Sendable, Equatable {
    public let card: CardView
    @OmittedWhenNil public var op: String?
    @OmittedWhenNil public var seq: Int64?
    @OmittedWhenNil public var unchanged: Bool?
}

/// `event.list`: a year's twelve cards.
public struct CardList: Codable, Sendable, Equatable {
    public let year: Int
    public let cards: [CardView]

    public init(year: Int, cards: [CardView]) { (self.year, self.cards) = (year, cards) }
}

/// A suggestion for a card, from a device whose profile may only suggest.
public struct SuggestionView: Codable, Sendable, Equatable {
    public let id: String
    public let year: Int
    public let month: Int
    public let monthName: String
    /// What it would set (at least one).
    public let title: String?
    public let location: String?
    public let day: Int?
    /// `open`, `accepted` or `declined`.
    public let status: String
    public let suggestedBy: String
    public let suggestedByName: String
    public let suggestedAt: String
    public let decidedBy: String?
    public let decidedAt: String?

    public init(
        id: String, year: Int, month: Int, monthName: String, title: String?, location: String?, day: Int?,
        status: String, suggestedBy: String, suggestedByName: String, suggestedAt: String, decidedBy: String?,
        decidedAt: String?
    ) {
        (self.id, self.year, self.month, self.monthName) = (id, year, month, monthName)
        (self.title, self.location, self.day, self.status) = (title, location, day, status)
        (self.suggestedBy, self.suggestedByName, self.suggestedAt) = (suggestedBy, suggestedByName, suggestedAt)
        (self.decidedBy, self.decidedAt) = (decidedBy, decidedAt)
    }

    enum CodingKeys: String, CodingKey {
        case id, year, month, title, location, day, status
        case monthName = "month_name"
        case suggestedBy = "suggested_by"
        case suggestedByName = "suggested_by_name"
        case suggestedAt = "suggested_at"
        case decidedBy = "decided_by"
        case decidedAt = "decided_at"
    }
}

/// `event.suggest`.
public struct SuggestionMade: Codable, Sendable, Equatable {
    public let suggestion: SuggestionView?

    public init(suggestion: SuggestionView?) { self.suggestion = suggestion }
}

/// `event.suggestions`.
public struct SuggestionList: Codable, Sendable, Equatable {
    public let suggestions: [SuggestionView]

    public init(suggestions: [SuggestionView]) { self.suggestions = suggestions }
}

/// `event.accept` and `event.decline`: the suggestion as decided; on an accept, the card as it
/// now is with the operation and the other open suggestions it closed, or `already_on_card`
/// when the card already said so.
public struct SuggestionDecision: Codable, Sendable, Equatable {
    public let suggestion: SuggestionView?
    @OmittedWhenNil public var card: CardView?
    @OmittedWhenNil public var op: String?
    @OmittedWhenNil public var seq: Int64?
    @OmittedWhenNil public var unchanged: Bool?
    @OmittedWhenNil public var closed: [String]?
    @OmittedWhenNil public var alreadyOnCard: Bool?

    public init(suggestion: SuggestionView?) { self.suggestion = suggestion }

    enum CodingKeys: String, CodingKey {
        case suggestion, card, op, seq, unchanged, closed
        case alreadyOnCard = "already_on_card"
    }
}

/// `history`: the cards' changes, month by month in calendar order, each month's oldest first.
public struct PlannerHistory: Codable, Sendable, Equatable {
    public struct Month: Codable, Sendable, Equatable {
        public let year: Int
        public let month: Int
        public let monthName: String
        public let changes: [HistoryEntry]

        public init(year: Int, month: Int, monthName: String, changes: [HistoryEntry]) {
            (self.year, self.month, self.monthName, self.changes) = (year, month, monthName, changes)
        }

        enum CodingKeys: String, CodingKey {
            case year, month, changes
            case monthName = "month_name"
        }
    }

    public let months: [Month]

    public init(months: [Month]) { self.months = months }
}

/// `conflicts`: every field, of any domain, that devices set differently at once.
public struct ConflictList: Codable, Sendable, Equatable {
    public struct Conflict: Codable, Sendable, Equatable {
        /// One competing value: its operation, device and time.
        public struct Value: Codable, Sendable, Equatable {
            public let op: String
            public let value: FieldJSON
            public let device: String
            public let deviceName: String
            public let time: String

            public init(op: String, value: FieldJSON, device: String, deviceName: String, time: String) {
                (self.op, self.value, self.device, self.deviceName, self.time) = (op, value, device, deviceName, time)
            }

            enum CodingKeys: String, CodingKey {
                case op, value, device, time
                case deviceName = "device_name"
            }
        }

        /// `<entity>/<field>`, what `conflicts.resolve` takes.
        public let id: String
        public let entity: String
        public let kind: String
        public let field: String
        /// The value shown until it is resolved.
        public let shown: FieldJSON
        public let values: [Value]
        /// The entity as the household names it (`todo 'Paint the fence'`, `card 2026-08`).
        @OmittedWhenNil public var name: String?

        public init(
            id: String, entity: String, kind: String, field: String, shown: FieldJSON, values: [Value],
            name: String? = nil
        ) {
            (self.id, self.entity, self.kind, self.field, self.shown, self.values) = (
                id, entity, kind, field, shown, values
            )
            self.name = name
        }
    }

    public let conflicts: [Conflict]

    public init(conflicts: [Conflict]) { self.conflicts = conflicts }
}

/// What the command line reads of `conflicts.resolve`'s reply: the card, when the conflict was
/// a card's (the reply describes whatever entity was resolved).
public struct ConflictResolved: Decodable, Sendable, Equatable {
    public let card: CardView?
    /// The value kept, and the entity as the household names it.
    public let kept: FieldJSON?
    public let name: String?
}
