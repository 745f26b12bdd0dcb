/// Editing a member's timetable, as commands to the store (`store.cmd`), one type each: what the
/// CLI sends and what the store decodes. A member is named by name, id or unique id prefix (absent:
/// this device's profile); a lesson by its id, a unique id prefix, or its slot ("1 Mon 3"). Slots
/// and fields are text as a person types it ("Week 1", "Tue", "AM Reg", "09:05"), which the
/// store reads and refuses naming the field.
public enum TimetableCommands {
    /// Adds a lesson in a free slot.
    public struct Add: HearthCommand {
        public typealias Reply = LessonsChanged
        public static let name = "timetable.add"
        public var week: SlotText
        public var day: SlotText
        public var period: SlotText
        public var subject: String
        public var room: String
        public var member: String?
        public var teacher: String?
        /// Its own times (HH:MM) instead of the bell's.
        public var start: String?
        public var end: String?

        public init(
            week: SlotText, day: SlotText, period: SlotText, subject: String, room: String, member: String? = nil,
            teacher: String? = nil, start: String? = nil, end: String? = nil
        ) {
            (self.week, self.day, self.period, self.subject, self.room) = (week, day, period, subject, room)
            (self.member, self.teacher, self.start, self.end) = (member, teacher, start, end)
        }
    }

    /// Changes a lesson: any of its fields, or its slot (week, day and period together). An empty
    /// teacher, start or end clears it.
    public struct Edit: LessonCommand {
        public typealias Reply = LessonsChanged
        public static let name = "timetable.edit"
        public var entry: String
        public var member: String?
        public var lesson: LessonFields

        public init(entry: String, member: String? = nil, lesson: LessonFields) {
            (self.entry, self.member, self.lesson) = (entry, member, lesson)
        }
    }

    /// Removes a lesson.
    public struct Remove: HearthCommand {
        public typealias Reply = LessonRemoved
        public static let name = "timetable.remove"
        public var entry: String
        public var member: String?
        public init(entry: String, member: String? = nil) { (self.entry, self.member) = (entry, member) }
    }

    /// Copies a lesson into another slot of the same member (week, day and period required),
    /// with any field changed on the way.
    public struct Duplicate: LessonCommand {
        public typealias Reply = LessonsChanged
        public static let name = "timetable.duplicate"
        public var entry: String
        public var member: String?
        public var lesson: LessonFields

        public init(entry: String, member: String? = nil, lesson: LessonFields) {
            (self.entry, self.member, self.lesson) = (entry, member, lesson)
        }
    }

    /// Copies a day ("1 Mon") onto another ("2 Tue"), replacing what the target held.
    public struct CopyDay: HearthCommand {
        public typealias Reply = LessonsChanged
        public static let name = "timetable.copy_day"
        public var from: String
        public var to: String
        public var member: String?
        public init(from: String, to: String, member: String? = nil) {
            (self.from, self.to, self.member) = (from, to, member)
        }
    }

    /// Copies a week onto the other (1 onto 2, or 2 onto 1), replacing what the target held.
    public struct CopyWeek: HearthCommand {
        public typealias Reply = LessonsChanged
        public static let name = "timetable.copy_week"
        public var from: SlotText
        public var to: SlotText
        public var member: String?
        public init(from: SlotText, to: SlotText, member: String? = nil) {
            (self.from, self.to, self.member) = (from, to, member)
        }
    }

    /// A member's lessons, with the school's settings.
    public struct Entries: HearthCommand {
        public typealias Reply = TimetableEntries
        public static let name = "timetable.entries"
        public var member: String?
        public init(member: String? = nil) { self.member = member }
    }

    /// A member's days from `from` to `to` (`YYYY-MM-DD`, at most 62 days): each with its
    /// rotation week, whether it is a school day, weekend or holiday, and its lessons.
    public struct Days: HearthCommand {
        public typealias Reply = TimetableDays
        public static let name = "timetable.days"
        public var from: String
        public var to: String
        public var member: String?
        public init(from: String, to: String, member: String? = nil) {
            (self.from, self.to, self.member) = (from, to, member)
        }
    }

    /// Every clash across the household's timetables (a student's profile: theirs).
    public struct Clashes: HearthCommand {
        public typealias Reply = ClashList
        public static let name = "timetable.clashes"
        public init() {}
    }

    /// The `subjects`, `teachers` or `rooms` the timetables use.
    public struct Reference: HearthCommand {
        public typealias Reply = TimetableReference
        public static let name = "timetable.reference"
        public var what: String
        public init(what: String) { self.what = what }
    }

    /// For `hearth-scheduler`: the lessons this device raises next-class notifications for, from
    /// `from` to `to` (at most 14 days).
    public struct Classes: HearthCommand {
        public typealias Reply = ClassSources
        public static let name = "class.sources"
        public var from: String
        public var to: String
        public init(from: String, to: String) { (self.from, self.to) = (from, to) }
    }

    /// For `hearth-scheduler`: `member`'s (an id) next-class notification for the lesson starting
    /// at `start` (ms since 1970) was raised on this device.
    public struct RecordClass: HearthCommand {
        public typealias Reply = ClassRecorded
        public static let name = "class.record"
        public var member: String
        public var start: Int64
        public init(member: String, start: Int64) { (self.member, self.start) = (member, start) }
    }

    /// A lesson's fields as an edit or a copy gives them, each absent when unchanged. Encoded
    /// beside the command's own fields (flat, as the wire has always had them).
    public struct LessonFields: Codable, Sendable, Equatable {
        public var week: SlotText?
        public var day: SlotText?
        public var period: SlotText?
        public var subject: String?
        public var room: String?
        public var teacher: String?
        public var start: String?
        public var end: String?

        public init(
            week: SlotText? = nil, day: SlotText? = nil, period: SlotText? = nil, subject: String? = nil,
            room: String? = nil, teacher: String? = nil, start: String? = nil, end: String? = nil
        ) {
            (self.week, self.day, self.period, self.subject) = (week, day, period, subject)
            (self.room, self.teacher, self.start, self.end) = (room, teacher, start, end)
        }

    }
}

/// A week, day or period as a command takes it: text ("Week 1", "Tue", "AM Reg") or a whole
/// number (1), which the service reads as the same text.
public struct SlotText: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    public var text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral text: String) { self.text = text }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            text = String(number)
        } else if let text = try? container.decode(String.self) {
            self.text = text
        } else {
            let found =
                container.decodeNil()
                ? "null"
                : (try? container.decode(Bool.self)) != nil
                    ? "a boolean"
                    : (try? container.decode(Double.self)) != nil
                        ? "a number" : "an array or an object"
            throw DecodingError.typeMismatch(
                SlotText.self,
                .init(
                    codingPath: decoder.codingPath, debugDescription: "must be text or a whole number, found \(found)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// A command on one lesson (`entry`, of `member`) with lesson fields beside them, flat on the
/// wire as they always were: `timetable.edit` and `timetable.duplicate`.
public protocol LessonCommand: HearthCommand where Reply == LessonsChanged {
    var entry: String { get }
    var member: String? { get }
    var lesson: TimetableCommands.LessonFields { get }
    init(entry: String, member: String?, lesson: TimetableCommands.LessonFields)
}

extension LessonCommand {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LessonCommandKeys.self)
        self.init(
            entry: try container.decode(String.self, forKey: .entry),
            member: try container.decodeIfPresent(String.self, forKey: .member),
            lesson: try TimetableCommands.LessonFields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LessonCommandKeys.self)
        try container.encode(entry, forKey: .entry)
        try container.encodeIfPresent(member, forKey: .member)
        try lesson.encode(to: encoder)
    }
}

private enum LessonCommandKeys: String, CodingKey { case entry, member }
