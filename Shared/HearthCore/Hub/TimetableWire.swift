/// Members' timetables on `store.cmd`: lessons, days, clashes, reference lists, imports and the
/// scheduler's class sources. Encoded by `hearth-store` (absent fields as `null`, as replies
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

/// `timetable.import`, a command of its own: the member, and the file as CSV text or as a PDF's
/// words with their positions (`hearth timetable import` extracts them; exactly one of the two).
/// Sent and read with its own keys (`CodingKeys`, and `TextLayout`'s as they are), not the
/// snake_case of `HearthCommand.arguments()`: the sender encodes it with `JSONValueEncoder()` and
/// the store reads it with `CommandRequest.arguments(as:)`.
public struct TimetableImportArguments: HearthCommand, Equatable {
    public typealias Reply = TimetableImportReport
    public static let name = "timetable.import"
    public let member: String?
    public let csv: String?
    public let layout: TextLayout?
    public let confirm: Bool?
    public let replaceAnyway: Bool?

    public init(
        member: String?, csv: String? = nil, layout: TextLayout? = nil, confirm: Bool = false,
        replaceAnyway: Bool = false
    ) {
        (self.member, self.csv, self.layout) = (member, csv, layout)
        (self.confirm, self.replaceAnyway) = (confirm, replaceAnyway)
    }

    enum CodingKeys: String, CodingKey {
        case member, csv, layout, confirm
        case replaceAnyway = "replace_anyway"
    }
}

/// `timetable.import`: a file's rows (CSV) or cells (PDF) checked, as a preview or as imported.
/// A row or problem says where it is: its `line` in a CSV file, its `page` and the top-left
/// corner of its text (`x`, `y`, points from the page's top-left) in a PDF.
public struct TimetableImportReport: Codable, Sendable, Equatable {
    /// Where in the file: a CSV line, or a PDF page and position (a whole page has no `x`, `y`).
    public struct Place: Sendable, Equatable, CustomStringConvertible {
        public var line: Int?
        public var page: Int?
        public var x: Int?
        public var y: Int?

        public init(line: Int? = nil, page: Int? = nil, x: Int? = nil, y: Int? = nil) {
            (self.line, self.page, self.x, self.y) = (line, page, x, y)
        }

        /// `line 4`, `page 1 at 120,300 pt`, `page 2`.
        public var description: String {
            if let line { return "line \(line)" }
            guard let page else { return "the file" }
            guard let x, let y else { return "page \(page)" }
            return "page \(page) at \(x),\(y) pt"
        }
    }

    /// A valid row, with where it is in the file (`line`, or `page`, `x`, `y`).
    public struct Row: Codable, Sendable, Equatable {
        @OmittedWhenNil public var line: Int?
        @OmittedWhenNil public var page: Int?
        @OmittedWhenNil public var x: Int?
        @OmittedWhenNil public var y: Int?
        public let week: Int
        public let day: String
        public let period: String
        public let subject: String
        public let teacher: String?
        public let room: String

        public init(
            place: Place, week: Int, day: String, period: String, subject: String, teacher: String?, room: String
        ) {
            (line, page, x, y) = (place.line, place.page, place.x, place.y)
            (self.week, self.day, self.period) = (week, day, period)
            (self.subject, self.teacher, self.room) = (subject, teacher, room)
        }

        public var place: Place { Place(line: line, page: page, x: x, y: y) }
    }

    /// A bad row or cell: where (`line`, or `page`, `x`, `y`) and why.
    public struct Problem: Codable, Sendable, Equatable {
        @OmittedWhenNil public var line: Int?
        @OmittedWhenNil public var page: Int?
        @OmittedWhenNil public var x: Int?
        @OmittedWhenNil public var y: Int?
        public let reason: String

        public init(place: Place, reason: String) {
            (line, page, x, y) = (place.line, place.page, place.x, place.y)
            self.reason = reason
        }

        public var place: Place { Place(line: line, page: page, x: x, y: y) }
    }

    /// How many rows, errors and clashes were cut from lists too long for one message.
    public struct Omitted: Codable, Sendable, Equatable {
        public let rows: Int
        public let errors: Int
        public let clashes: Int

        public init(rows: Int, errors: Int, clashes: Int) {
            (self.rows, self.errors, self.clashes) = (rows, errors, clashes)
        }
    }

    public let member: String
    /// Counts of valid and bad rows, and of clashes, exact however the lists were cut.
    public let valid: Int
    public let invalid: Int
    public let clashesTotal: Int
    public let rows: [Row]
    public let errors: [Problem]
    public let clashes: [ClashView]
    public let omitted: Omitted
    /// `csv` or `pdf` (absent from the replies of builds before the PDF import: CSV).
    @OmittedWhenNil public var format: String?
    /// The delimiter a CSV file was read by.
    @OmittedWhenNil public var delimiter: String?
    /// What the reader assumed that the user should know (a PDF grid with no week label).
    @OmittedWhenNil public var notes: [String]?
    /// Whether this was the import (`true`) or a preview.
    public var confirmed: Bool
    /// On a preview: why a confirm would be refused.
    @OmittedWhenNil public var refusal: String?
    /// On an import: how many lessons it replaced.
    @OmittedWhenNil public var replaced: Int?

    public init(
        member: String, valid: Int, invalid: Int, clashesTotal: Int, rows: [Row], errors: [Problem],
        clashes: [ClashView], omitted: Omitted, format: String, delimiter: String?, notes: [String]?,
        confirmed: Bool = false
    ) {
        (self.member, self.valid, self.invalid, self.clashesTotal) = (member, valid, invalid, clashesTotal)
        (self.rows, self.errors, self.clashes, self.omitted) = (rows, errors, clashes, omitted)
        (self.format, self.delimiter, self.notes, self.confirmed) = (format, delimiter, notes, confirmed)
    }

    enum CodingKeys: String, CodingKey {
        case member, valid, invalid, rows, errors, clashes, omitted, format, delimiter, notes, confirmed, refusal
        case replaced
        case clashesTotal = "clashes_total"
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
