import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import StoreService

/// The store's replies against the typed contracts in HearthCore (issue 43), each domain's by a
/// scripted household: see `WireFixtures` for what holds and how fixtures are captured.
@Suite("Wire contracts: store replies are their HearthCore types, and replies of the earlier build still decode")
struct WireContractTests {
    typealias Reply = WireFixtures.Reply
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// The type each reply is, by its name: decoding it and encoding it back as replies are
    /// written (nulls included) must give the same JSON.
    static let types: [String: WireFixtures.RoundTrip] = [
        "member.add": WireFixtures.roundTrip(MemberChange.self), "member.list": WireFixtures.roundTrip(MemberList.self),
        "member.use": WireFixtures.roundTrip(ProfileChoice.self),
        "timetable.configure": WireFixtures.roundTrip(SchoolSettings.self),
        "timetable.bells": WireFixtures.roundTrip(SchoolSettings.self),
        "timetable.settings": WireFixtures.roundTrip(SchoolSettings.self),
        "timetable.override.clear": WireFixtures.roundTrip(SchoolSettings.self),
        "timetable.holiday.add": WireFixtures.roundTrip(HolidayAdded.self),
        "timetable.holiday.list": WireFixtures.roundTrip(HolidayList.self),
        "timetable.add": WireFixtures.roundTrip(LessonsChanged.self),
        "timetable.add+clash": WireFixtures.roundTrip(LessonsChanged.self),
        "timetable.copy_week": WireFixtures.roundTrip(LessonsChanged.self),
        "timetable.entries": WireFixtures.roundTrip(TimetableEntries.self),
        "timetable.days": WireFixtures.roundTrip(TimetableDays.self),
        "timetable.clashes": WireFixtures.roundTrip(ClashList.self),
        "timetable.reference": WireFixtures.roundTrip(TimetableReference.self),
        "class.sources": WireFixtures.roundTrip(ClassSources.self),
        "timetable.import": WireFixtures.roundTrip(TimetableImportReport.self),
        "timetable.import+pdf": WireFixtures.roundTrip(TimetableImportReport.self),
        "member.remove": WireFixtures.roundTrip(MemberRemoved.self),
        "people.add": WireFixtures.roundTrip(PersonChange.self),
        "people.edit": WireFixtures.roundTrip(PersonChange.self),
        "people.goal": WireFixtures.roundTrip(PersonView.self), "people.log": WireFixtures.roundTrip(PersonView.self),
        "people.show": WireFixtures.roundTrip(PersonView.self), "people.list": WireFixtures.roundTrip(PeopleList.self),
        "people.remove": WireFixtures.roundTrip(PersonRemoved.self), "plan.week": WireFixtures.roundTrip(PlanWeek.self),
        "plan.next": WireFixtures.roundTrip(PlanItems.self), "plan.list": WireFixtures.roundTrip(PlanItems.self),
        "plan.slots": WireFixtures.roundTrip(PlanSlots.self), "plan.snooze": WireFixtures.roundTrip(PlanItemView.self),
        "plan.done": WireFixtures.roundTrip(PlanItemChange.self),
        "plan.add": WireFixtures.roundTrip(PlanItemChange.self),
        "plan.sources": WireFixtures.roundTrip(PlanSources.self),
        "plan.prefs": WireFixtures.roundTrip(PlanPreferences.self),
        "plan.prefs.set": WireFixtures.roundTrip(PlanPreferences.self),
        "plan.snooze_tonight": WireFixtures.roundTrip(PlanMoved.self),
        "plan.export": WireFixtures.roundTrip(PlanExport.self),
        "plan.busy.import": WireFixtures.roundTrip(BusyImport.self),
        "plan.busy.list": WireFixtures.roundTrip(BusyList.self),
        "plan.busy.clear": WireFixtures.roundTrip(BusyCleared.self),
        "plan.busy.subscribe": WireFixtures.roundTrip(BusySource.self),
        "plan.busy.import+source": WireFixtures.roundTrip(BusyImport.self),
        "plan.busy.failed": WireFixtures.roundTrip(BusySource.self),
        "plan.busy.sources": WireFixtures.roundTrip(BusySources.self),
        "plan.busy.list+sources": WireFixtures.roundTrip(BusyList.self),
        "plan.busy.unsubscribe": WireFixtures.roundTrip(BusyUnsubscribed.self),
        "plan.busy.remove": WireFixtures.roundTrip(BusyRemoved.self),
        "collection.add": WireFixtures.roundTrip(CollectionChange.self),
        "collection.edit": WireFixtures.roundTrip(CollectionChange.self),
        "collection.list": WireFixtures.roundTrip(CollectionList.self),
        "todo.add": WireFixtures.roundTrip(TodoChange.self),
        "todo.edit": WireFixtures.roundTrip(TodoChange.self), "todo.done": WireFixtures.roundTrip(TodoChange.self),
        "todo.done+date": WireFixtures.roundTrip(TodoChange.self),
        "subtask.add": WireFixtures.roundTrip(TodoChange.self),
        "subtask.done": WireFixtures.roundTrip(TodoChange.self),
        "subtask.move": WireFixtures.roundTrip(TodoChange.self),
        "subtask.remove": WireFixtures.roundTrip(TodoChange.self),
        "todo.remove": WireFixtures.roundTrip(TodoRemoved.self),
        "todo.show": WireFixtures.roundTrip(TodoView.self), "todo.list": WireFixtures.roundTrip(TodoList.self),
        "todo.day": WireFixtures.roundTrip(TodoDay.self),
        "todo.calendar": WireFixtures.roundTrip(TodoCalendar.self),
        "todo.occurrences": WireFixtures.roundTrip(TodoOccurrences.self),
        "todo.history": WireFixtures.roundTrip(TodoHistory.self),
        "todo.stats": WireFixtures.roundTrip(TodoStatistics.self),
        "undo.list": WireFixtures.roundTrip(UndoList.self), "undo": WireFixtures.roundTrip(UndoReport.self),
        "redo": WireFixtures.roundTrip(UndoReport.self),
        "note.set": WireFixtures.roundTrip(NoteChange.self), "note.show": WireFixtures.roundTrip(NoteView.self),
        "note.show+empty": WireFixtures.roundTrip(NoteView.self), "note.list": WireFixtures.roundTrip(NoteList.self),
        "template.apply": WireFixtures.roundTrip(TemplateApplied.self),
        "event.set": WireFixtures.roundTrip(CardChange.self),
        "event.clear": WireFixtures.roundTrip(CardChange.self), "event.list": WireFixtures.roundTrip(CardList.self),
        "event.show": WireFixtures.roundTrip(CardView.self), "event.show+empty": WireFixtures.roundTrip(CardView.self),
        "event.suggest": WireFixtures.roundTrip(SuggestionMade.self),
        "event.suggestions": WireFixtures.roundTrip(SuggestionList.self),
        "event.accept": WireFixtures.roundTrip(SuggestionDecision.self),
        "event.accept+already": WireFixtures.roundTrip(SuggestionDecision.self),
        "event.decline": WireFixtures.roundTrip(SuggestionDecision.self),
        "history": WireFixtures.roundTrip(PlannerHistory.self),
        "conflicts": WireFixtures.roundTrip(ConflictList.self),
        "ops.vector": WireFixtures.roundTrip(VersionVectorReply.self),
        "ops.import+again": WireFixtures.roundTrip(ImportReport.self),
        "ops.import+refused": WireFixtures.roundTrip(ImportReport.self),
        "ops.forks": WireFixtures.roundTrip(ForkList.self),
        "ops.quarantine": WireFixtures.roundTrip(QuarantineList.self),
    ]

    static func check(_ domain: String, _ replies: [Reply]) throws {
        let problems = try WireFixtures.problems(domain, replies, types: types)
        #expect(problems == [], "\(problems.joined(separator: "\n"))")
    }

    /// A household's school: two members, bells, lessons with and without teachers and their own
    /// times, a clash, a named and an unnamed holiday, an override; then every reading reply.
    static func hub(
        _ request: @escaping (String, [String: JSONValue]) async throws -> JSONValue
    ) async throws -> [Reply] {
        var script = WireScript(request)
        try await script.keep("member.add", "member.add", ["name": "Ann", "role": "student"])
        _ = try await request("member.add", ["name": "Mum", "role": "parent"])
        try await script.keep("timetable.configure", "timetable.configure", ["week1_start": "2026-11-02"])
        try await script.keep(
            "timetable.bells", "timetable.bells", ["bells": ["AM Registration=08:40-09:00", "1=09:00-10:00"]])
        try await script.keep(
            "timetable.add", "timetable.add",
            [
                "member": "Ann", "week": 1, "day": "Mon", "period": "1", "subject": "Maths", "room": "R1",
                "teacher": "MrS",
            ])
        _ = try await request(
            "timetable.add",
            ["member": "Ann", "week": 1, "day": "Mon", "period": "2", "subject": "Art", "room": "A1"])
        try await script.keep(
            "timetable.add+clash", "timetable.add",
            [
                "member": "Mum", "week": 1, "day": "Mon", "period": "1", "subject": "Staff", "room": "R1",
                "start": "09:05", "end": "09:50",
            ])
        try await script.keep("timetable.copy_week", "timetable.copy_week", ["member": "Ann", "from": "1", "to": "2"])
        try await script.keep(
            "timetable.holiday.add", "timetable.holiday.add",
            ["from": "2026-11-18", "to": "2026-11-18", "name": "Inset"])
        _ = try await request("timetable.holiday.add", ["from": "2026-11-19", "to": "2026-11-19"])
        _ = try await request("timetable.override", ["week": 2, "from": "2026-11-23", "to": "2026-11-27"])
        try await script.keep("timetable.settings", "timetable.settings")
        try await script.keep("timetable.holiday.list", "timetable.holiday.list")
        try await script.keep("timetable.entries", "timetable.entries", ["member": "Ann"])
        try await script.keep(
            "timetable.days", "timetable.days", ["member": "Ann", "from": "2026-11-15", "to": "2026-11-23"])
        try await script.keep("timetable.clashes", "timetable.clashes")
        try await script.keep("timetable.reference", "timetable.reference", ["what": "teachers"])
        _ = try await request("member.notify", ["member": "Ann", "lead": 10])
        try await script.keep("class.sources", "class.sources", ["from": "2026-11-16", "to": "2026-11-17"])
        try await script.keep("timetable.override.clear", "timetable.override.clear")
        try await script.keep("member.use", "member.use", ["member": "Mum"])
        try await script.keep("member.list", "member.list")
        try await script.keep(
            "timetable.import", "timetable.import",
            ["member": "Ann", "csv": .string(StoreHubTests.messy)])
        // A PDF's words: Mon–Wed across, P1 and P2 down, one cell of one line.
        func word(_ x: Double, _ y: Double, _ text: String) -> TextLayout.Word {
            .init(x0: x, y0: y, x1: x + Double(text.count) * 5, y1: y + 9, text: text)
        }
        let words = [
            word(100, 10, "Mon"), word(160, 10, "Tue"), word(220, 10, "Wed"), word(40, 40, "P1"), word(40, 80, "P2"),
            word(95, 35, "Maths"), word(95, 46, "MHS"), word(120, 46, "R12"), word(155, 40, "Art"),
            word(215, 75, "French"), word(215, 86, "FRD"), word(240, 86, "R3"),
        ]
        let layout = try JSONValueEncoder().encode(TextLayout(pages: [.init(width: 300, height: 120, words: words)]))
        try await script.keep(
            "timetable.import+pdf", "timetable.import", ["member": "Ann", "layout": layout])
        _ = try await request("member.add", ["name": "Gran", "role": "parent"])
        try await script.keep("member.remove", "member.remove", ["member": "Gran"])
        return script.replies
    }

    /// A household's social planner in London, on a fixed clock (Monday 23 November 2026, 09:00):
    /// people with and without goals, a logged call, a planned week, a busy calendar, moves.
    static func social(
        home: TemporaryHome, _ request: @escaping (String, [String: JSONValue]) async throws -> JSONValue
    ) async throws -> [Reply] {
        var script = WireScript(request)
        let now = StoreSocialTests.ms(StoreSocialTests.monday)
        try await script.keep(
            "people.add", "people.add", ["name": "Sam", "tags": "friends", "purpose": "Old school friend"])
        _ = try await request("people.add", ["name": "Max"])
        _ = try await request("people.add", ["name": "Gran"])
        try await script.keep(
            "people.goal", "people.goal",
            [
                "person": "Sam", "every": 14, "importance": 4, "duration": "1h", "windows": ["Mon-Fri 18:00-21:00"],
                "exclude": ["2026-11-26"], "last": "2026-11-02", "now": now,
            ])
        _ = try await request(
            "people.goal", ["person": "Gran", "every": 7, "importance": 5, "windows": ["Sun 14:00-17:00"], "now": now])
        try await script.keep(
            "people.log", "people.log",
            ["person": "Gran", "outcome": "call", "when": "2026-11-20T10:00:00Z", "note": "rang", "now": now])
        try await script.keep("people.edit", "people.edit", ["person": "Max", "tags": "work"])
        let path = home.file("busy.ics")
        try Data(
            """
            BEGIN:VCALENDAR\r
            BEGIN:VEVENT\r
            UID:evening-class\r
            SUMMARY:Pottery\r
            DTSTART;TZID=Europe/London:20261116T190000\r
            DURATION:PT2H\r
            RRULE:FREQ=WEEKLY;BYDAY=MO\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:day-off\r
            SUMMARY:Away\r
            DTSTART;VALUE=DATE:20261127\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:bad\r
            DTSTART:nope\r
            END:VEVENT\r
            END:VCALENDAR\r

            """.utf8
        ).write(to: URL(fileURLWithPath: path))
        try await script.keep("plan.busy.import", "plan.busy.import", ["path": .string(path), "now": now])
        try await script.keep("plan.busy.list", "plan.busy.list", ["now": now])
        try await script.keep("plan.week", "plan.week", ["now": now])
        try await script.keep("plan.next", "plan.next", ["now": now])
        try await script.keep("plan.list", "plan.list", ["now": now])
        try await script.keep("people.list", "people.list", ["now": now])
        let items = try #require(try await request("plan.list", ["now": now])["items"]?.arrayValue)
        let ids = items.compactMap { $0["id"]?.stringValue }
        try #require(ids.count >= 2)
        try await script.keep("plan.slots", "plan.slots", ["item": .string(ids[0]), "now": now])
        try await script.keep("plan.snooze", "plan.snooze", ["item": .string(ids[0]), "minutes": 60, "now": now])
        try await script.keep("plan.done", "plan.done", ["item": .string(ids[1]), "now": now])
        try await script.keep(
            "plan.add", "plan.add", ["person": "Max", "at": "2026-11-24T12:00:00Z", "duration": "30m", "now": now])
        try await script.keep("plan.sources", "plan.sources", ["now": now])
        try await script.keep("plan.prefs", "plan.prefs")
        try await script.keep("plan.prefs.set", "plan.prefs.set", ["capacity": 4])
        try await script.keep(
            "plan.snooze_tonight", "plan.snooze_tonight",
            ["now": StoreSocialTests.ms(StoreSocialTests.at("2026-11-23T17:00:00Z"))])
        try await script.keep("people.show", "people.show", ["person": "Gran", "now": now])
        try await script.keep("plan.export", "plan.export", ["now": now])
        try await script.keep("plan.busy.clear", "plan.busy.clear")
        // A calendar subscribed to by URL (as `hearth-scheduler` reads it: a copy and its ETag).
        let nas = "http://ann:pw@nas.local/family.ics"
        try await script.keep(
            "plan.busy.subscribe", "plan.busy.subscribe", ["url": "webcal://ann:pw@nas.local/family.ics", "now": now])
        try await script.keep(
            "plan.busy.import+source", "plan.busy.import",
            ["path": .string(path), "source": .string(nas), "etag": "\"v1\"", "now": now])
        try await script.keep(
            "plan.busy.failed", "plan.busy.failed",
            ["source": .string(nas), "error": "the server answered HTTP 500 Internal Server Error", "now": now])
        try await script.keep("plan.busy.sources", "plan.busy.sources")
        try await script.keep("plan.busy.list+sources", "plan.busy.list", ["now": now])
        try await script.keep("plan.busy.unsubscribe", "plan.busy.unsubscribe", ["url": .string(nas)])
        _ = try await request("plan.busy.import", ["path": .string(path), "now": now])
        try await script.keep(
            "plan.busy.remove", "plan.busy.remove", ["file": .string((path as NSString).lastPathComponent)])
        try await script.keep("people.remove", "people.remove", ["person": "Max"])
        return script.replies
    }

    @Test("social replies: captured, or read and written back unchanged")
    func socialReplies() async throws {
        let home = try TemporaryHome()
        try Data("[household]\ntime_zone = \"Europe/London\"\n".utf8).write(
            to: URL(fileURLWithPath: home.file("hearth.toml")))
        try await withStore(context: context, home: home) { (running: RunningStore) async throws in
            let replies = try await Self.social(home: home) { try await running.commands.request($0, args: $1) }
            try Self.check("social", replies)
        }
    }

    /// A household's todos, habits, subtasks, notes and a template, on fixed dates.
    static func todos(
        _ request: @escaping (String, [String: JSONValue]) async throws -> JSONValue
    ) async throws -> [Reply] {
        var script = WireScript(request)
        _ = try await request("member.add", ["name": "Ann", "role": "student"])
        try await script.keep("collection.add", "collection.add", ["name": "Home", "kind": "list"])
        _ = try await request("collection.add", ["name": "Habits", "kind": "habit"])
        let fence = try await script.keep(
            "todo.add", "todo.add",
            [
                "title": "Paint the fence", "collection": "Home", "due": "2026-11-24", "time": "18:00",
                "priority": "high", "description": "Blue, two coats", "remind": true,
            ])
        let fenceID = try #require(fence["todo"]?["id"]?.stringValue)
        let water = try await request(
            "todo.add",
            ["title": "Water", "collection": "Habits", "due": "2026-11-20", "repeat": "daily", "until": "2026-12-31"])
        let waterID = try #require(water["todo"]?["id"]?.stringValue)
        _ = try await request(
            "todo.add", ["title": "Homework", "collection": "Home", "due": "2026-11-24", "for": "Ann"])
        let subtask = try await script.keep(
            "subtask.add", "subtask.add", ["todo": .string(fenceID), "title": "Buy paint"])
        _ = try await request("subtask.add", ["todo": .string(fenceID), "title": "Sand"])
        let subtaskID = try #require(subtask["subtask"]?["id"]?.stringValue)
        try await script.keep("subtask.done", "subtask.done", ["id": .string(subtaskID)])
        try await script.keep("subtask.move", "subtask.move", ["id": .string(subtaskID), "position": 1])
        try await script.keep("todo.edit", "todo.edit", ["id": .string(fenceID), "title": "Paint the fence green"])
        try await script.keep("todo.done+date", "todo.done", ["id": .string(waterID), "date": "2026-11-21"])
        try await script.keep("todo.show", "todo.show", ["id": .string(waterID), "today": "2026-11-24"])
        try await script.keep("todo.list", "todo.list", ["today": "2026-11-24"])
        try await script.keep("todo.day", "todo.day", ["date": "2026-11-24"])
        try await script.keep("todo.stats", "todo.stats", ["today": "2026-11-24", "weeks": 2])
        try await script.keep("todo.calendar", "todo.calendar", ["from": "2026-11-20", "to": "2026-11-24"])
        try await script.keep(
            "todo.occurrences", "todo.occurrences", ["id": .string(waterID), "from": "2026-11-20", "to": "2026-11-23"])
        try await script.keep("todo.done", "todo.done", ["id": .string(fenceID)])
        try await script.keep("todo.history", "todo.history", ["id": .string(fenceID)])
        try await script.keep("collection.list", "collection.list")
        try await script.keep("collection.edit", "collection.edit", ["collection": "Home", "name": "House"])
        try await script.keep("note.set", "note.set", ["date": "2026-11-20", "text": "Quiet day.", "mood": "happy"])
        try await script.keep("note.show", "note.show", ["date": "2026-11-20"])
        try await script.keep("note.show+empty", "note.show", ["date": "2026-11-21"])
        try await script.keep("note.list", "note.list", ["since": "2026-11-01"])
        try await script.keep("template.apply", "template.apply", ["name": "Exercise", "start": "2026-11-23"])
        try await script.keep("subtask.remove", "subtask.remove", ["id": .string(subtaskID)])
        try await script.keep("todo.remove", "todo.remove", ["id": .string(fenceID)])
        try await script.keep("undo", "undo")
        try await script.keep("undo.list", "undo.list", ["limit": 3])
        try await script.keep("redo", "redo")
        return script.replies
    }

    @Test("todo replies: captured, or read and written back unchanged")
    func todoReplies() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let replies = try await Self.todos { try await running.commands.request($0, args: $1) }
            try Self.check("todos", replies)
        }
    }

    /// A year planner: cards set, changed and cleared, suggestions made, accepted and declined.
    static func planner(
        _ request: @escaping (String, [String: JSONValue]) async throws -> JSONValue
    ) async throws -> [Reply] {
        var script = WireScript(request)
        try await script.keep(
            "event.set", "event.set", ["year": 2027, "month": 3, "title": "Ski trip", "location": "Alps", "day": 14])
        _ = try await request("event.set", ["year": 2027, "month": 3, "location": "Dolomites"])
        _ = try await request("event.set", ["year": 2027, "month": 7, "title": "Beach"])
        try await script.keep("event.clear", "event.clear", ["year": 2027, "month": 7])
        try await script.keep("event.list", "event.list", ["year": 2027])
        try await script.keep("event.show", "event.show", ["year": 2027, "month": 3])
        try await script.keep("event.show+empty", "event.show", ["year": 2027, "month": 5])
        let first = try await script.keep(
            "event.suggest", "event.suggest", ["year": 2027, "month": 5, "title": "Camping"])
        let second = try await request("event.suggest", ["year": 2027, "month": 8, "title": "Zoo", "day": 2])
        let third = try await request("event.suggest", ["year": 2027, "month": 3, "location": "Alps"])
        try await script.keep("event.suggestions", "event.suggestions", ["status": "all"])
        let firstID = try #require(first["suggestion"]?["id"]?.stringValue)
        let secondID = try #require(second["suggestion"]?["id"]?.stringValue)
        try await script.keep("event.accept", "event.accept", ["id": .string(firstID)])
        try await script.keep("event.decline", "event.decline", ["id": .string(secondID)])
        _ = try await request("event.set", ["year": 2027, "month": 3, "location": "Alps"])
        let thirdID = try #require(third["suggestion"]?["id"]?.stringValue)
        try await script.keep("event.accept+already", "event.accept", ["id": .string(thirdID)])
        try await script.keep("history", "history", ["year": 2027])
        try await script.keep("conflicts", "conflicts")
        return script.replies
    }

    @Test("planner replies: captured, or read and written back unchanged")
    func plannerReplies() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let replies = try await Self.planner { try await running.commands.request($0, args: $1) }
            try Self.check("planner", replies)
        }
    }

    /// The operation exchange: this store's vector, an export, and an import of that export into
    /// a second store (all already held), then of a page with a forged operation and a bad one.
    @Test("exchange replies: captured, or read and written back unchanged")
    func exchangeReplies() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            var replies: [Reply] = []
            _ = try await running.commands.request("event.set", args: ["year": 2027, "month": 3, "title": "Ski"])
            replies.append(Reply(name: "ops.vector", json: try await running.commands.request("ops.vector")))
            let export = try await running.commands.request("ops.export", args: [:])
            replies.append(
                Reply(
                    name: "ops.import+again",
                    json: try await running.commands.request("ops.import", args: export.objectValue ?? [:])))
            var forged = try #require(export["operations"]?.arrayValue?.first?.objectValue)
            forged["fields"] = ["title": ["value": "Forged"]]
            var stranger = forged
            stranger["id"] = "0badc0de-0000-4000-8000-000000000001:1"
            replies.append(
                Reply(
                    name: "ops.import+refused",
                    json: try await running.commands.request(
                        "ops.import",
                        args: (export.objectValue ?? [:]).merging(["operations": [.object(forged), .object(stranger)]])
                        {
                            $1
                        })))
            replies.append(Reply(name: "ops.forks", json: try await running.commands.request("ops.forks")))
            replies.append(Reply(name: "ops.quarantine", json: try await running.commands.request("ops.quarantine")))
            try Self.check("exchange", replies)
        }
    }

    @Test("hub replies: captured, or read and written back unchanged")
    func hubReplies() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            let replies = try await Self.hub { try await running.commands.request($0, args: $1) }
            try Self.check("hub", replies)
        }
    }
}
