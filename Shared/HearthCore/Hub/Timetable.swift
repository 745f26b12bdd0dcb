/// One lesson of one member's timetable, and the rules over a whole household's: when each
/// lesson runs, and where two are a clash.
public struct TimetableEntry: Sendable, Equatable {
    public let id: String
    public let member: String
    public let week: Int
    public let day: SchoolDay
    public let period: Period
    public let subject: String
    public let teacher: String?
    public let room: String
    /// The lesson's own times, which override the bells.
    public let start: LocalTime?
    public let end: LocalTime?

    public init(
        id: String, member: String, week: Int, day: SchoolDay, period: Period, subject: String, teacher: String?,
        room: String, start: LocalTime? = nil, end: LocalTime? = nil
    ) {
        self.id = id
        self.member = member
        self.week = week
        self.day = day
        self.period = period
        self.subject = subject
        self.teacher = teacher
        self.room = room
        self.start = start
        self.end = end
    }

    /// When the lesson runs: its own times, else its period's bell times (each end separately).
    public func times(_ bells: Bells) -> (start: LocalTime, end: LocalTime)? {
        guard let start = start ?? bells[period]?.start, let end = end ?? bells[period]?.end, start < end else {
            return nil
        }
        return (start, end)
    }
}

/// The school's bell times, by period.
public typealias Bells = [Period: (start: LocalTime, end: LocalTime)]

/// Two lessons at one time that need one teacher or one room.
public struct TimetableClash: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case teacher, room
    }

    public let kind: Kind
    /// The teacher code or room, as the first lesson spells it.
    public let value: String
    public let first: TimetableEntry
    public let second: TimetableEntry

    /// Every clash among `entries` (of any members): the same teacher in two different rooms, or
    /// one room holding two different lessons, in the same week and day and either the same
    /// period or overlapping times. One lesson shared by two members (same subject, teacher and
    /// room — twins in one class) is not a clash. Codes and rooms compare ignoring case and
    /// surrounding space. Each pair is reported once, in entry order.
    public static func find(in entries: [TimetableEntry], bells: Bells) -> [TimetableClash] {
        var clashes: [TimetableClash] = []
        for kind in [Kind.teacher, .room] {
            var groups: [String: [TimetableEntry]] = [:]
            for entry in entries {
                guard let key = Self.key(entry, kind) else { continue }
                groups["\(entry.week) \(entry.day.rawValue) \(key)", default: []].append(entry)
            }
            for group in groups.values where group.count > 1 {
                let sorted = group.sorted { ($0.period, $0.member, $0.id) < ($1.period, $1.member, $1.id) }
                for (index, first) in sorted.enumerated() {
                    let firstTimes = first.times(bells)
                    for second in sorted[(index + 1)...] where Self.atOnce(first, firstTimes, second, bells) {
                        guard !Self.sameLesson(first, second), Self.differ(first, second, kind) else { continue }
                        let value = kind == .teacher ? first.teacher ?? "" : first.room
                        clashes.append(TimetableClash(kind: kind, value: value, first: first, second: second))
                    }
                }
            }
        }
        return clashes.sorted {
            ($0.first.week, $0.first.day, $0.first.period, $0.kind.rawValue, $0.first.id, $0.second.id)
                < ($1.first.week, $1.first.day, $1.first.period, $1.kind.rawValue, $1.first.id, $1.second.id)
        }
    }

    private static func key(_ entry: TimetableEntry, _ kind: Kind) -> String? {
        let text = kind == .teacher ? entry.teacher : entry.room
        guard let plain = text?.trimmingCharacters(in: .whitespaces).lowercased(), !plain.isEmpty else { return nil }
        return plain
    }

    private static func atOnce(
        _ first: TimetableEntry, _ firstTimes: (start: LocalTime, end: LocalTime)?, _ second: TimetableEntry,
        _ bells: Bells
    ) -> Bool {
        if first.period == second.period { return true }
        guard let a = firstTimes, let b = second.times(bells) else { return false }
        return a.start < b.end && b.start < a.end
    }

    private static func sameLesson(_ first: TimetableEntry, _ second: TimetableEntry) -> Bool {
        first.member != second.member && key(first, .teacher) == key(second, .teacher)
            && key(first, .room) == key(second, .room)
            && first.subject.lowercased() == second.subject.lowercased()
    }

    /// A teacher clash needs two rooms; a room clash, two lessons (any difference).
    private static func differ(_ first: TimetableEntry, _ second: TimetableEntry, _ kind: Kind) -> Bool {
        switch kind {
        case .teacher: key(first, .room) != key(second, .room)
        case .room: true
        }
    }
}
