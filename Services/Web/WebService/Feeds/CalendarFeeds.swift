import Foundation
import HearthBus
import HearthCalendar
import HearthCore

/// The household as iCalendar feeds that calendar apps subscribe to (`/calendar.ics` and
/// `/calendar/<area>.ics`), read through the store's commands like every view of the page:
///
/// - `year`: this year's and next year's cards, each an all-day event on its day (or the whole
///   month when no day is set), `UID:card-YYYY-MM@hearth`;
/// - `checkins`: the social planner's check-ins (`plan.export`);
/// - `todos`: every todo as a `VTODO` (`todo.export`, `TodoFile`);
/// - `todo-events`: every open todo with a due date as a `VEVENT`, for calendar apps that ignore
///   `VTODO` (all day, or at its time; a repeating one with its RRULE; not in `/calendar.ics`,
///   which has the `VTODO`s);
/// - `timetable`: every member's lessons (or `?member=`'s) from a week ago to eight weeks ahead,
///   each on its date with its times, holidays and weekends left out, the two-week rotation as
///   the school calendar gives it (`timetable.days`);
/// - everything together at `/calendar.ics`.
///
/// Each event keeps its UID, and LAST-MODIFIED and SEQUENCE (minutes since 2020 of its last
/// change, which only rise) where the household knows when it changed.
struct CalendarFeeds: Sendable {
    enum Area: String, CaseIterable, Sendable {
        case year, checkins, todos, timetable
        case todoEvents = "todo-events"

        /// What `/calendar.ics` holds.
        static let everything: [Area] = [.year, .checkins, .todos, .timetable]
    }

    let store: CommandClient
    let timeZone: TimeZone
    /// Each area's text until its area of the page changes.
    let blocks: FeedBlocks

    /// The feed of `area` (every area when `nil`).
    func ics(_ area: Area?, member: String? = nil, now: Date = Date()) async throws -> String {
        let areas = area.map { [$0] } ?? Area.everything
        // The areas are read from the store at once (it answers reads side by side), and kept in
        // their order.
        let blocks = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, each) in areas.enumerated() {
                group.addTask { (index, try await self.cachedBlock(each, member: member, now: now)) }
            }
            var found = [String](repeating: "", count: areas.count)
            for try await (index, text) in group { found[index] = text }
            return found
        }
        let name = area.map { "Hearth: \($0.rawValue)" } ?? "Hearth"
        // The household's zone, which repeating times are written in (`CalendarTimeZone`).
        let zone = CalendarTimeZone.text(timeZone) ?? ""
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth//Household feed//EN\r\nX-WR-CALNAME:\(name)\r\n"
            + zone + blocks.joined() + "END:VCALENDAR\r\n"
    }

    /// An area's components (its `VEVENT`s or `VTODO`s, without a calendar around them) as
    /// kept, or rendered and kept, until the page's area of its domain changes.
    private func cachedBlock(_ area: Area, member: String?, now: Date) async throws -> String {
        let kind =
            switch area {
            case .year: YearPlanner.entityKind
            case .checkins: Social.itemKind
            case .todos, .todoEvents: Todos.todoKind
            case .timetable: Hub.entryKind
            }
        let pageArea = HouseholdDomains.domain(of: kind)?.area ?? area.rawValue
        // Only the timetable depends on the member: other areas are one text whatever is asked.
        let key = "\(pageArea):\(area.rawValue):\(area == .timetable ? member ?? "" : "")"
        let (kept, generation) = blocks.lookup(key, area: pageArea)
        if let kept { return kept }
        let text = try await block(area, member: member, now: now)
        blocks.keep(key, area: pageArea, text: text, generation: generation)
        return text
    }

    /// One area's components.
    private func block(_ area: Area, member: String?, now: Date) async throws -> String {
        switch area {
        case .year: return CalendarExport.components(try await cards(now: now), stamp: now)
        case .checkins:
            let ics = try await store.send(PlanCommands.Export()).ics
            return CalendarFile.split(ics).events.joined()
        case .todos:
            let todos = try await store.send(TodoCommands.Export()).todos
            return TodoFile.components(todos, stamp: now)
        case .todoEvents:
            let todos = try await store.send(TodoCommands.Export()).todos
            return CalendarExport.components(todoEvents(todos, now: now), stamp: now)
        case .timetable:
            return CalendarExport.components(try await lessons(member: member, now: now), stamp: now)
        }
    }

    /// The year planner's cards of this year and the next that say something.
    private func cards(now: Date) async throws -> [CalendarExport.Event] {
        let year = HouseholdTime(timeZone: timeZone).today(at: now).year
        var events: [CalendarExport.Event] = []
        for each in [year, year + 1] {
            let list = try await store.send(EventCommands.List(year: each))
            for card in list.cards {
                guard let title = card.title else { continue }
                let first = LocalDate(year: card.year, month: card.month, day: card.day ?? 1)!
                let last =
                    card.day == nil
                    ? LocalDate(
                        year: card.year, month: card.month, day: YearPlanner.days(inMonth: card.month, year: card.year))!
                    : first
                let modified = card.modifiedAt.flatMap(Timestamp.parse)
                var event = CalendarExport.Event(
                    uid: String(format: "card-%04d-%02d@hearth", card.year, card.month), summary: title,
                    start: now, end: now, cancelled: false, sequence: Self.sequence(modified))
                event.days = (first, last)
                event.location = card.location
                event.lastModified = modified
                events.append(event)
            }
        }
        return events
    }

    /// Open todos with a due date as events: all day, or a moment at their time.
    private func todoEvents(_ todos: [TodoView], now: Date) -> [CalendarExport.Event] {
        let household = HouseholdTime(timeZone: timeZone)
        return todos.compactMap { todo in
            guard !todo.completed, let due = todo.due.flatMap({ try? LocalDate(parsing: $0, field: "due") }) else {
                return nil
            }
            let time = todo.time.flatMap { try? LocalTime(parsing: $0, field: "time") }
            let start = time.map { household.instant(due, $0) } ?? now
            var event = CalendarExport.Event(
                uid: "todo-\(todo.id)@hearth", summary: todo.title, start: start, end: start, cancelled: false,
                sequence: Self.sequence(Timestamp.parse(todo.modifiedAt)), description: todo.description)
            if time == nil { event.days = (due, due) }
            event.rule =
                Recurrence(todoRepeat: todo.repeat, due: todo.due, until: todo.until, monthEnd: todo.monthEnd)?.rule
            // A repeating time stays on the household's wall clock across daylight-saving changes.
            if event.rule != nil, time != nil { event.zone = timeZone }
            event.lastModified = Timestamp.parse(todo.modifiedAt)
            return event
        }
    }

    /// The household's own spelling of member `name` (any case), or `nil` when there is none.
    func member(named name: String) async throws -> String? {
        let members = try await store.send(MemberCommands.List()).members
        return members.first { $0.name.lowercased() == name.lowercased() }?.name
    }

    /// Each member's lessons (or `member`'s) from a week ago to eight weeks ahead.
    private func lessons(member: String?, now: Date) async throws -> [CalendarExport.Event] {
        let household = HouseholdTime(timeZone: timeZone)
        let today = household.today(at: now)
        var names = member.map { [$0] } ?? []
        if member == nil {
            names = try await store.send(MemberCommands.List()).members.map(\.name)
        }
        let fixed = names
        return try await withThrowingTaskGroup(of: (Int, [CalendarExport.Event]).self) { group in
            for (index, name) in fixed.enumerated() {
                group.addTask { (index, try await self.lessons(of: name, today: today, household: household)) }
            }
            var found = [[CalendarExport.Event]](repeating: [], count: fixed.count)
            for try await (index, events) in group { found[index] = events }
            return found.flatMap { $0 }
        }
    }

    /// One member's lessons from a week before `today` to eight weeks after.
    private func lessons(
        of name: String, today: LocalDate, household: HouseholdTime
    ) async throws
        -> [CalendarExport.Event]
    {
        let days: [TimetableDayView]
        do {
            days = try await store.send(
                TimetableCommands.Days(
                    from: today.adding(days: -7).description, to: today.adding(days: 54).description, member: name)
            ).days
        } catch CommandClientError.refused(let refusal) where Self.servedWithout.contains(refusal.code) {
            // No Week-1 start yet, or a student's profile and another member: no lessons to
            // show, and the rest of the feed is served (it answered 503: issue 62).
            return []
        }
        var events: [CalendarExport.Event] = []
        for day in days {
            guard let date = try? LocalDate(parsing: day.date, field: "date") else { continue }
            for lesson in day.lessons {
                guard let start = lesson.start.flatMap({ try? LocalTime(parsing: $0, field: "start") }),
                    let end = lesson.end.flatMap({ try? LocalTime(parsing: $0, field: "end") })
                else { continue }
                var event = CalendarExport.Event(
                    uid: "lesson-\(lesson.id)-\(day.date)@hearth", summary: "\(lesson.subject) (\(name))",
                    start: household.instant(date, start), end: household.instant(date, end), cancelled: false,
                    sequence: 0, description: lesson.teacher.map { "Teacher: \($0)" })
                event.location = lesson.room
                events.append(event)
            }
        }
        return events
    }

    /// The store's refusals of a member's lessons that leave them out of a feed, not the feed.
    static let servedWithout: Set<String> = ["not_configured", "not_allowed"]

    /// Minutes since 2020 of a change: a SEQUENCE that rises with every later change.
    static func sequence(_ modified: Date?) -> Int {
        guard let modified else { return 0 }
        return max(0, Int((modified.timeIntervalSince1970 - 1_577_836_800) / 60))
    }
}
