/// Members' timetables on `store.cmd`: lessons, days, clashes, reference lists and the
/// scheduler's class sources (imports: `TimetableImportWire.swift`). Encoded by `hearth-store` (absent fields as `null`, as replies
/// are), decoded by the command line, the page and `hearth-scheduler`.

/// A lesson as replies show it, with the times it runs (its own, else its period's bells).
public struct LessonView: Codable, Sendable, Equatable {
    public let id: String
    public let week: Int
    /// `Monday`…`Friday`.
    public let day: String
    /// As a person reads it (`1`, `AM Registration`), and as stored (`am_registration`).
    public let period: String
    public let periodCode: String
    public let subject: String
    public let teacher: String?
    public let room: String
    /// `HH:MM`; `nil` when neither the lesson nor its period has times.
    public let start: String?
    public let end: String?
    /// Whether the times are the lesson's own rather than its period's.
    public let ownTimes: Bool
    /// The member's name, in replies that span members (entries, clashes).
    @OmittedWhenNil public var member: String?
    /// The date, in `class.sources`.
    @OmittedWhenNil public var date: String?

    public init(
        id: String, week: Int, day: String, period: String, periodCode: String, subject: String, teacher: String?,
        room: String, start: String?, end: String?, ownTimes: Bool, member: String? = nil, date: String? = nil
    ) {
        (self.id, self.week, self.day, self.period, self.periodCode) = (id, week, day, period, periodCode)
        (self.subject, self.teacher, self.room, self.start, self.end) = (subject, teacher, room, start, end)
        (self.ownTimes, self.member, self.date) = (ownTimes, member, date)
    }

    enum CodingKeys: String, CodingKey {
        case id, week, day, period, subject, teacher, room, start, end, member, date
        case periodCode = "period_code"
        case ownTimes = "own_times"
    }

    /// The start and end as times of day (`nil` where it has none).
    public var times: (start: LocalTime?, end: LocalTime?) {
        (
            start.flatMap { try? LocalTime(parsing: $0, field: "start") },
            end.flatMap { try? LocalTime(parsing: $0, field: "end") }
        )
    }
}

/// `timetable.entries`: a member's lessons in week, day and period order, with the school's
/// settings.
public struct TimetableEntries: Codable, Sendable, Equatable {
    public let member: String
    public let entries: [LessonView]
    public let settings: SchoolSettings

    public init(member: String, entries: [LessonView], settings: SchoolSettings) {
        (self.member, self.entries, self.settings) = (member, entries, settings)
    }
}

/// One day of a member's timetable as the rotation and holidays make it.
public struct TimetableDayView: Codable, Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        /// A school day, with its lessons in period order.
        case school([LessonView])
        case weekend
        /// A holiday, with its name if it has one.
        case holiday(String?)
    }

    /// `YYYY-MM-DD`.
    public let date: String
    /// The rotation week (1 or 2) and the ISO weekday (1 Monday … 7 Sunday).
    public let week: Int
    public let weekday: Int
    public let status: Status

    public init(date: String, week: Int, weekday: Int, status: Status) {
        (self.date, self.week, self.weekday, self.status) = (date, week, weekday, status)
    }

    /// The lessons of a school day; none on other days.
    public var lessons: [LessonView] {
        if case .school(let lessons) = status { return lessons }
        return []
    }

    public var isSchoolDay: Bool {
        if case .school = status { return true }
        return false
    }

    enum CodingKeys: String, CodingKey {
        case date, week, weekday, status, lessons, holiday
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        date = try container.decode(String.self, forKey: .date)
        week = try container.decode(Int.self, forKey: .week)
        weekday = try container.decode(Int.self, forKey: .weekday)
        switch try container.decode(String.self, forKey: .status) {
        case "school": status = .school(try container.decodeIfPresent([LessonView].self, forKey: .lessons) ?? [])
        case "weekend": status = .weekend
        case "holiday": status = .holiday(try container.decodeIfPresent(String.self, forKey: .holiday))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .status, in: container, debugDescription: "must be school, weekend or holiday, got '\(other)'")
        }
    }

    /// `lessons` on a school day, `holiday` (its name or `null`) on a holiday, neither on a weekend.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(date, forKey: .date)
        try container.encode(week, forKey: .week)
        try container.encode(weekday, forKey: .weekday)
        switch status {
        case .school(let lessons):
            try container.encode("school", forKey: .status)
            try container.encode(lessons, forKey: .lessons)
        case .weekend: try container.encode("weekend", forKey: .status)
        case .holiday(let name):
            try container.encode("holiday", forKey: .status)
            try container.encode(name, forKey: .holiday)
        }
    }
}

/// `timetable.days`: a member's days from `from` to `to`.
public struct TimetableDays: Codable, Sendable, Equatable {
    public let member: String
    public let days: [TimetableDayView]

    public init(member: String, days: [TimetableDayView]) { (self.member, self.days) = (member, days) }
}

/// A teacher or room in two places at one time.
public struct ClashView: Codable, Sendable, Equatable {
    /// `teacher` or `room`, and which.
    public let kind: String
    public let value: String
    public let week: Int
    public let day: String
    /// The two lessons, each with its member's name.
    public let first: LessonView
    public let second: LessonView

    public init(kind: String, value: String, week: Int, day: String, first: LessonView, second: LessonView) {
        (self.kind, self.value, self.week, self.day, self.first, self.second) = (kind, value, week, day, first, second)
    }
}

/// `timetable.clashes`: the first 200 clashes, and how many there are.
public struct ClashList: Codable, Sendable, Equatable {
    public let clashes: [ClashView]
    public let total: Int

    public init(clashes: [ClashView], total: Int) { (self.clashes, self.total) = (clashes, total) }
}

/// The reply to a change of lessons (add, edit, duplicate, copy): the lessons it wrote, the
/// clashes they are in, and on a copy how many lessons it replaced.
public struct LessonsChanged: Codable, Sendable, Equatable {
    public let entries: [LessonView]
    public let clashes: [ClashView]
    @OmittedWhenNil public var replaced: Int?

    public init(entries: [LessonView], clashes: [ClashView], replaced: Int? = nil) {
        (self.entries, self.clashes, self.replaced) = (entries, clashes, replaced)
    }
}

/// `timetable.remove`: the lesson removed (its id: history keeps the rest), and its operation.
public struct LessonRemoved: Codable, Sendable, Equatable {
    public struct Ref: Codable, Sendable, Equatable {
        public let id: String
    }

    public let entry: Ref
    public let op: String
    public let seq: Int64
}

/// `class.record`: recorded.
public struct ClassRecorded: Codable, Sendable, Equatable {
    public let recorded: Bool

    public init(recorded: Bool) { self.recorded = recorded }
}

/// `timetable.reference {what}`: the subjects, teachers or rooms in use, under the key `what`.
public struct TimetableReference: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        public let name: String
        /// How many lessons, and of how many members, use it.
        public let lessons: Int
        public let members: Int

        public init(name: String, lessons: Int, members: Int) {
            (self.name, self.lessons, self.members) = (name, lessons, members)
        }
    }

    /// `subjects`, `teachers` or `rooms`.
    public let what: String
    public let items: [Item]

    public init(what: String, items: [Item]) { (self.what, self.items) = (what, items) }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath, debugDescription: "must hold one list: subjects, teachers or rooms")
            )
        }
        (what, items) = (key.stringValue, try container.decode([Item].self, forKey: key))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(items, forKey: Key(stringValue: what))
    }
}

/// `class.sources` (for `hearth-scheduler`): each member whose next-class notifications are on,
/// with their lead, how far this device has raised them, and their timed lessons on school days.
public struct ClassSources: Codable, Sendable, Equatable {
    public struct Member: Codable, Sendable, Equatable {
        public let id: String
        public let name: String
        /// Minutes before a lesson its notification is raised.
        public let lead: Int
        /// The start (ms since 1970) of the latest lesson raised on this device.
        public let alertedUntil: Int64?
        /// Lessons with their `date`.
        public let classes: [LessonView]

        public init(id: String, name: String, lead: Int, alertedUntil: Int64?, classes: [LessonView]) {
            (self.id, self.name, self.lead, self.alertedUntil, self.classes) = (id, name, lead, alertedUntil, classes)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, lead, classes
            case alertedUntil = "alerted_until"
        }
    }

    public let members: [Member]

    public init(members: [Member]) { self.members = members }
}
