/// The year planner's commands to the store (`store.cmd`), one type each: what the CLI, the page,
/// the notifier's buttons and the calendar feeds send, and what the store decodes.
public enum EventCommands {
    /// Creates or edits a month's card. A new card needs a title; an empty `location` clears it.
    public struct Set: HearthCommand {
        public typealias Reply = CardChange
        public static let name = "event.set"
        public var year: Int
        public var month: Int
        public var title: String?
        public var location: String?
        public var day: Int?
        public init(year: Int, month: Int, title: String? = nil, location: String? = nil, day: Int? = nil) {
            (self.year, self.month, self.title, self.location, self.day) = (year, month, title, location, day)
        }
    }

    /// Clears a month's card (its history stays).
    public struct Clear: HearthCommand {
        public typealias Reply = CardChange
        public static let name = "event.clear"
        public var year: Int
        public var month: Int
        public init(year: Int, month: Int) { (self.year, self.month) = (year, month) }
    }

    /// The twelve cards of a year (this year when none is given).
    public struct List: HearthCommand {
        public typealias Reply = CardList
        public static let name = "event.list"
        public var year: Int?
        public init(year: Int? = nil) { self.year = year }
    }

    /// One card with every field, its conflicts and how many operations made it.
    public struct Show: HearthCommand {
        public typealias Reply = CardView
        public static let name = "event.show"
        public var year: Int
        public var month: Int
        public init(year: Int, month: Int) { (self.year, self.month) = (year, month) }
    }

    /// Suggests a change to a month's card, for the family to accept or decline.
    public struct Suggest: HearthCommand {
        public typealias Reply = SuggestionMade
        public static let name = "event.suggest"
        public var year: Int
        public var month: Int
        public var title: String?
        public var location: String?
        public var day: Int?
        public init(year: Int, month: Int, title: String? = nil, location: String? = nil, day: Int? = nil) {
            (self.year, self.month, self.title, self.location, self.day) = (year, month, title, location, day)
        }
    }

    /// Suggestions by status: `open` (when none is given), `accepted`, `declined` or `all`.
    public struct Suggestions: HearthCommand {
        public typealias Reply = SuggestionList
        public static let name = "event.suggestions"
        public var status: String?
        public init(status: String? = nil) { self.status = status }
    }

    /// Accepts a suggestion (by its id or a unique prefix): its values go on the card.
    public struct Accept: HearthCommand {
        public typealias Reply = SuggestionDecision
        public static let name = "event.accept"
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// Declines a suggestion (by its id or a unique prefix); the card stays.
    public struct Decline: HearthCommand {
        public typealias Reply = SuggestionDecision
        public static let name = "event.decline"
        public var id: String
        public init(id: String) { self.id = id }
    }
}
