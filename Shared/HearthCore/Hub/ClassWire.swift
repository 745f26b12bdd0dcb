/// `class.next` (the scheduler's, for the notifier): a member's next lesson, raised its lead
/// before it starts. Encoded by `hearth-scheduler`, decoded by the notifier.
public struct ClassNextEvent: Codable, Sendable, Equatable {
    /// The lesson the notification names.
    public struct Lesson: Codable, Sendable, Equatable {
        /// The member whose lesson it is.
        public struct Member: Codable, Sendable, Equatable {
            public let id: String
            public let name: String

            public init(id: String, name: String) { (self.id, self.name) = (id, name) }
        }

        /// `<entry>@<YYYY-MM-DD>`.
        public let id: String
        public let member: Member
        public let subject: String
        public let room: String
        public let teacher: String?
        /// The period's name (`1`, `AM Registration`).
        public let period: String
        /// When it starts (ISO 8601).
        public let start: String

        public init(
            id: String, member: Member, subject: String, room: String, teacher: String?, period: String, start: String
        ) {
            (self.id, self.member, self.subject, self.room) = (id, member, subject, room)
            (self.teacher, self.period, self.start) = (teacher, period, start)
        }
    }

    public let lesson: Lesson

    public init(_ lesson: Lesson) { self.lesson = lesson }

    enum CodingKeys: String, CodingKey {
        case lesson = "class"
    }
}

/// `class.list` on `scheduler.cmd`: the next-class notifications loaded, soonest first, each
/// with when it is raised and whether it was.
public struct ClassList: Codable, Sendable, Equatable {
    public struct Upcoming: Codable, Sendable, Equatable {
        public let lesson: ClassNextEvent.Lesson
        /// When it is raised (ISO 8601).
        public let fires: String
        public let raised: Bool

        public init(lesson: ClassNextEvent.Lesson, fires: String, raised: Bool) {
            (self.lesson, self.fires, self.raised) = (lesson, fires, raised)
        }
    }

    public let classes: [Upcoming]

    public init(classes: [Upcoming]) { self.classes = classes }
}
