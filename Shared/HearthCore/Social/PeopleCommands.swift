/// The social planner's people commands to the store (`store.cmd`), one type each: what the CLI
/// and the page send, and what the store decodes. A person is named by name (any case), id or
/// unique id prefix. `now` (milliseconds since 1970) stands in for the clock, for tests and
/// `--now`.
public enum PeopleCommands {
    /// Adds a person.
    public struct Add: HearthCommand {
        public typealias Reply = PersonChange
        public static let name = "people.add"
        public var name: String
        public var tags: String?
        public var purpose: String?
        public init(name: String, tags: String? = nil, purpose: String? = nil) {
            (self.name, self.tags, self.purpose) = (name, tags, purpose)
        }
    }

    /// Renames a person or changes their tags or purpose (an empty one clears it).
    public struct Edit: HearthCommand {
        public typealias Reply = PersonChange
        public static let name = "people.edit"
        public var person: String
        public var name: String?
        public var tags: String?
        public var purpose: String?
        public init(person: String, name: String? = nil, tags: String? = nil, purpose: String? = nil) {
            (self.person, self.name, self.tags, self.purpose) = (person, name, tags, purpose)
        }
    }

    /// Removes a person, their goal and their pending check-ins.
    public struct Remove: HearthCommand {
        public typealias Reply = PersonRemoved
        public static let name = "people.remove"
        public var person: String
        public init(person: String) { self.person = person }
    }

    /// People by score, highest first.
    public struct List: HearthCommand {
        public typealias Reply = PeopleList
        public static let name = "people.list"
        public var now: Int64?
        public init(now: Int64? = nil) { self.now = now }
    }

    /// A person with their goal, standing, interactions and check-ins.
    public struct Show: HearthCommand {
        public typealias Reply = PersonView
        public static let name = "people.show"
        public var person: String
        public var now: Int64?
        public init(person: String, now: Int64? = nil) { (self.person, self.now) = (person, now) }
    }

    /// Sets a person's goal: how often (`every` days), how much it matters (`importance` 1–5), how
    /// long (`duration`, "45m"), when (`windows`, "Mon-Fri 18:00-21:00"), never on (`exclude`,
    /// dates; empty clears them), and when they were last seen (`last`, a date).
    public struct Goal: HearthCommand {
        public typealias Reply = PersonView
        public static let name = "people.goal"
        public var person: String
        public var every: Int?
        public var importance: Int?
        public var duration: String?
        public var windows: [String]?
        public var exclude: [String]?
        public var last: String?
        public var now: Int64?
        public init(
            person: String, every: Int? = nil, importance: Int? = nil, duration: String? = nil,
            windows: [String]? = nil, exclude: [String]? = nil, last: String? = nil, now: Int64? = nil
        ) {
            (self.person, self.every, self.importance, self.duration) = (person, every, importance, duration)
            (self.windows, self.exclude, self.last, self.now) = (windows, exclude, last, now)
        }
    }

    /// Logs an interaction (`met`, `call`, `text`, `other`) at `when` (default now).
    public struct Log: HearthCommand {
        public typealias Reply = PersonView
        public static let name = "people.log"
        public var person: String
        public var outcome: String
        public var when: TimeArgument?
        public var note: String?
        public var now: Int64?
        public init(
            person: String, outcome: String, when: TimeArgument? = nil, note: String? = nil, now: Int64? = nil
        ) {
            (self.person, self.outcome, self.when, self.note, self.now) = (person, outcome, when, note, now)
        }
    }
}

/// A time as a command takes it: milliseconds since 1970, or text (a timestamp such as
/// `2026-11-24T18:00:00Z`, or the household's wall clock, `2026-11-24 18:00`), which the service
/// reads in the household's time zone.
public enum TimeArgument: Codable, Sendable, Equatable {
    case milliseconds(Int64)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let milliseconds = try? container.decode(Int64.self) {
            self = .milliseconds(milliseconds)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            throw DecodingError.typeMismatch(
                TimeArgument.self,
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "must be a time: milliseconds since 1970, or text such as '2026-11-24 18:00'"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .milliseconds(let milliseconds): try container.encode(milliseconds)
        case .text(let text): try container.encode(text)
        }
    }
}
