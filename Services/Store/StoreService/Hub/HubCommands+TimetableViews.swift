import Foundation
import GRDB
import HearthBus
import HearthCore

/// Reading timetables: a member's lessons, their days as the rotation and holidays make them,
/// clashes across the household, the reference data, and what `hearth-scheduler` needs for
/// next-class notifications.
extension HubCommands {
    func timetableEntries(_ command: TimetableCommands.Entries) async throws -> JSONValue {
        let given = command.member
        return try await database.pool.read { db in
            let member = try Self.access(given, to: "see", in: db)
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM timetable_entry WHERE member = ? ORDER BY week, day, period, id",
                arguments: [member.id])
            return try JSONValue(
                reply: TimetableEntries(
                    member: member.name, entries: try ids.compactMap { try Self.entry($0, in: db) },
                    settings: try Self.settings(in: db)))
        }
    }

    /// A member's days from `from` to `to` (at most 62): each with its rotation week, whether it
    /// is a school day, weekend or holiday, and on a school day its lessons in period order with
    /// the times they run.
    func timetableDays(_ command: TimetableCommands.Days) async throws -> JSONValue {
        let given = command.member
        let (from, to) = try Self.range(command.from, command.to)
        guard to.dayNumber - from.dayNumber < 62 else {
            throw CommandError.invalidArgument("to", "must be within 62 days of 'from'")
        }
        return try await database.pool.read { db in
            let member = try Self.access(given, to: "see", in: db)
            let calendar = try Self.requireCalendar(in: db)
            let bells = try Self.bells(in: db)
            let lessons = try Self.entries(in: db, member: member.id)
            let days = (from.dayNumber...to.dayNumber).map { number in
                let date = LocalDate(dayNumber: number)
                let day = calendar.day(date)
                let status: TimetableDayView.Status =
                    switch day {
                    case .school:
                        .school(
                            lessons.filter { $0.week == day.week && $0.day.rawValue == date.weekday }
                                .sorted { $0.period < $1.period }.map { Self.lessonView($0, bells: bells) })
                    case .weekend: .weekend
                    case .holiday(let name, _): .holiday(name)
                    }
                return TimetableDayView(date: date.description, week: day.week, weekday: date.weekday, status: status)
            }
            return try JSONValue(reply: TimetableDays(member: member.name, days: days))
        }
    }

    /// Every clash across the household's timetables (for a student's profile, those involving
    /// their lessons): the first 200 in week, day and period order, and `total`.
    func timetableClashes() async throws -> JSONValue {
        try await database.pool.read { db in
            let profile = try Self.profile(in: db)
            var clashes = TimetableClash.find(in: try Self.entries(in: db), bells: try Self.bells(in: db))
            if let profile, profile.role == .student {
                clashes = clashes.filter { $0.first.member == profile.id || $0.second.member == profile.id }
            }
            return try JSONValue(
                reply: ClashList(
                    clashes: try clashes.prefix(200).map { try Self.clashView($0, in: db) }, total: clashes.count))
        }
    }

    /// The subjects, teachers or rooms (`what`) the timetables use, with how many lessons each.
    func timetableReference(_ command: TimetableCommands.Reference) async throws -> JSONValue {
        let what = command.what
        let columns = ["subjects": "subject", "teachers": "teacher", "rooms": "room"]
        guard let column = columns[what] else {
            throw CommandError.invalidArgument("what", "must be subjects, teachers or rooms, got '\(what)'")
        }
        return try await database.pool.read { db in
            let profile = try Self.profile(in: db)
            let own = profile?.role == .student ? profile?.id : nil
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT MIN(\(column)) AS name, COUNT(*) AS lessons, COUNT(DISTINCT member) AS members
                    FROM timetable_entry WHERE \(column) IS NOT NULL AND (? IS NULL OR member = ?)
                    GROUP BY lower(\(column)) ORDER BY lower(\(column))
                    """, arguments: [own, own])
            return try JSONValue(
                reply: TimetableReference(
                    what: what,
                    items: rows.map { .init(name: $0["name"], lessons: $0["lessons"], members: $0["members"]) }))
        }
    }

    // MARK: - Next-class notifications

    /// For `hearth-scheduler`: each member whose notifications are on and who uses this device
    /// (the member of its profile; every member on a device with no profile, a shared one: a
    /// parent's laptop raises no child's next-class popups), with their lead, how far
    /// this device has raised their notifications (`alerted_until`, ms), and their lessons on
    /// school days from `from` to `to` (at most 14 days) with wall-clock times (the scheduler
    /// turns them into instants in the household's zone). Lessons without times are left out.
    func classSources(_ command: TimetableCommands.Classes) async throws -> JSONValue {
        let (from, to) = try Self.range(command.from, command.to)
        guard to.dayNumber - from.dayNumber < 14 else {
            throw CommandError.invalidArgument("to", "must be within 14 days of 'from'")
        }
        return try await database.pool.read { db in
            guard let calendar = try Self.schoolCalendar(in: db) else {
                return try JSONValue(reply: ClassSources(members: []))
            }
            let bells = try Self.bells(in: db)
            let lessons = Dictionary(grouping: try Self.entries(in: db), by: \.member)
            var members: [ClassSources.Member] = []
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT m.id, m.name, m.lead, a.fired_start FROM member AS m
                    LEFT JOIN class_alert AS a ON a.member = m.id
                    WHERE m.notify
                      AND (NOT EXISTS (SELECT 1 FROM hub_profile AS p JOIN member AS pm ON pm.id = p.member)
                           OR m.id = (SELECT member FROM hub_profile WHERE id = 1))
                    ORDER BY m.id
                    """)
            {
                let id: String = row["id"]
                var classes: [LessonView] = []
                for number in from.dayNumber...to.dayNumber {
                    let date = LocalDate(dayNumber: number)
                    let day = calendar.day(date)
                    guard day.isSchoolDay else { continue }
                    for lesson in (lessons[id] ?? []).filter({ $0.week == day.week && $0.day.rawValue == date.weekday })
                    {
                        guard lesson.times(bells) != nil else { continue }
                        var view = Self.lessonView(lesson, bells: bells)
                        view.date = date.description
                        classes.append(view)
                    }
                }
                members.append(
                    ClassSources.Member(
                        id: id, name: row["name"], lead: row["lead"], alertedUntil: row["fired_start"], classes: classes
                    ))
            }
            return try JSONValue(reply: ClassSources(members: members))
        }
    }

    /// Records that `member`'s next-class notification for the lesson starting at `start` (ms)
    /// was raised on this device (it only grows).
    func recordClassAlert(_ command: TimetableCommands.RecordClass, _ request: CommandRequest) async throws -> JSONValue
    {
        let (member, start) = (command.member, command.start)
        guard Todos.isEntityID(member) else { throw CommandError.invalidArgument("member", "must be a member id") }
        guard start >= 0 else { throw CommandError.invalidArgument("start", "must not be negative") }
        return try await writes.once(request.id) { db, _ in
            try db.execute(
                sql: """
                    INSERT INTO class_alert (member, fired_start) VALUES (?, ?)
                    ON CONFLICT (member) DO UPDATE SET fired_start = MAX(fired_start, excluded.fired_start)
                    """, arguments: [member, start])
            return try JSONValue(reply: ClassRecorded(recorded: true))
        }
    }

    // MARK: - Rows

    static func requireCalendar(in db: Database) throws -> SchoolCalendar {
        guard let calendar = try schoolCalendar(in: db) else {
            throw CommandError(
                code: "not_configured",
                message:
                    "the Week-1 start date is not set: set it with `hearth timetable settings --week1-start YYYY-MM-DD`"
            )
        }
        return calendar
    }

    /// Every lesson (of `member`, if given).
    static func entries(in db: Database, member: String? = nil) throws -> [TimetableEntry] {
        try lessons(
            in: db,
            sql: "SELECT * FROM timetable_entry WHERE ? IS NULL OR member = ? ORDER BY member, week, day, period, id",
            arguments: [member, member])
    }

    private static func lessons(in db: Database, sql: String, arguments: StatementArguments) throws -> [TimetableEntry]
    {
        try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
            guard let day = SchoolDay(rawValue: row["day"]), let period = Period(rawValue: row["period"]) else {
                return nil
            }
            return TimetableEntry(
                id: row["id"], member: row["member"], week: row["week"], day: day, period: period,
                subject: row["subject"], teacher: row["teacher"], room: row["room"],
                start: (row["start"] as String?).flatMap { try? LocalTime(parsing: $0, field: "start") },
                end: (row["end"] as String?).flatMap { try? LocalTime(parsing: $0, field: "end") })
        }
    }

    static func lessonView(_ lesson: TimetableEntry, bells: Bells) -> LessonView {
        let times = lesson.times(bells)
        return LessonView(
            id: lesson.id, week: lesson.week, day: lesson.day.name, period: lesson.period.name,
            periodCode: lesson.period.code, subject: lesson.subject, teacher: lesson.teacher, room: lesson.room,
            start: times?.start.short, end: times?.end.short, ownTimes: lesson.start != nil || lesson.end != nil)
    }

    /// A lesson with its member's name, as replies spanning members show it.
    private static func named(_ lesson: TimetableEntry, in db: Database) throws -> LessonView {
        var view = lessonView(lesson, bells: try bells(in: db))
        view.member =
            try String.fetchOne(db, sql: "SELECT name FROM member WHERE id = ?", arguments: [lesson.member])
            ?? lesson.member
        return view
    }

    static func entry(_ id: String, in db: Database) throws -> LessonView? {
        guard let lesson = try lessons(in: db, sql: "SELECT * FROM timetable_entry WHERE id = ?", arguments: [id]).first
        else { return nil }
        return try named(lesson, in: db)
    }

    static func clashView(_ clash: TimetableClash, in db: Database) throws -> ClashView {
        ClashView(
            kind: clash.kind.rawValue, value: clash.value, week: clash.first.week, day: clash.first.day.name,
            first: try named(clash.first, in: db), second: try named(clash.second, in: db))
    }
}
