import HearthBus
import HearthCore
import Testing

/// Typed commands carry exactly the arguments their services always read (other devices and older
/// builds see the same bytes), and a service decoding one names the field at fault.
@Suite("HearthCommand: typed requests, the same bytes on the wire")
struct HearthCommandTests {
    /// Each command's request: its name, and exactly the arguments given.
    static func expectWire(
        _ cases: [(any HearthCommand, String, [String: JSONValue])], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (command, name, arguments) in cases {
            let request = try command.request(id: "r1")
            #expect(request.command == name, sourceLocation: sourceLocation)
            #expect(request.arguments == arguments, "\(name)", sourceLocation: sourceLocation)
        }
    }

    @Test("each turn command encodes to the arguments the CLI used to build by hand")
    func turnCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (TurnCommands.Create(name: "Ann"), "create", ["name": "Ann"]),
            (
                TurnCommands.Create(name: "Ann", timerSeconds: 90, timerPass: false), "create",
                ["name": "Ann", "timer_seconds": 90, "timer_pass": false]
            ),
            (TurnCommands.Sessions(), "sessions", [:]),
            (TurnCommands.Join(code: "J7X-3", name: "Bob"), "join", ["code": "J7X-3", "name": "Bob"]),
            (TurnCommands.Status(code: "J7X-3"), "status", ["code": "J7X-3"]),
            (TurnCommands.Start(code: "J7X-3"), "start", ["code": "J7X-3"]),
            (TurnCommands.End(code: "J7X-3"), "end", ["code": "J7X-3"]),
            (
                TurnCommands.Order(code: "J7X-3", players: ["Bob", "Ann"]), "order",
                ["code": "J7X-3", "players": ["Bob", "Ann"]]
            ),
            (TurnCommands.Done(code: "J7X-3"), "done", ["code": "J7X-3"]),
            (
                TurnCommands.Done(code: "J7X-3", player: "Ann", seq: 4), "done",
                ["code": "J7X-3", "player": "Ann", "seq": 4]
            ),
            (TurnCommands.Leave(code: "J7X-3", player: "Ann"), "leave", ["code": "J7X-3", "player": "Ann"]),
            (TurnCommands.Timer(code: "J7X-3", seconds: 120), "timer", ["code": "J7X-3", "seconds": 120]),
            (TurnCommands.Timer(code: "J7X-3", seq: 2), "timer", ["code": "J7X-3", "seq": 2]),
            (TurnCommands.Pause(code: "J7X-3", seq: 3), "pause", ["code": "J7X-3", "seq": 3]),
            (TurnCommands.Resume(code: "J7X-3"), "resume", ["code": "J7X-3"]),
            (
                TurnCommands.Skip(code: "J7X-3", player: "Cal", untilBack: true), "skip",
                ["code": "J7X-3", "player": "Cal", "until_back": true]
            ),
            (TurnCommands.Back(code: "J7X-3"), "back", ["code": "J7X-3"]),
            (TurnCommands.Reverse(code: "J7X-3", player: "Ann"), "reverse", ["code": "J7X-3", "player": "Ann"]),
        ]
        try Self.expectWire(cases)
    }

    @Test("each year-planner command encodes to the arguments the CLI and the page used to build by hand")
    func eventCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (
                EventCommands.Set(year: 2026, month: 8, title: "Beach"), "event.set",
                ["year": 2026, "month": 8, "title": "Beach"]
            ),
            (
                EventCommands.Set(year: 2026, month: 8, location: "", day: 12), "event.set",
                ["year": 2026, "month": 8, "location": "", "day": 12]
            ),
            (EventCommands.Clear(year: 2026, month: 8), "event.clear", ["year": 2026, "month": 8]),
            (EventCommands.List(year: 2026), "event.list", ["year": 2026]),
            (EventCommands.List(), "event.list", [:]),
            (EventCommands.Show(year: 2026, month: 1), "event.show", ["year": 2026, "month": 1]),
            (
                EventCommands.Suggest(year: 2026, month: 9, title: "Trip", day: 3), "event.suggest",
                ["year": 2026, "month": 9, "title": "Trip", "day": 3]
            ),
            (EventCommands.Suggestions(status: "open"), "event.suggestions", ["status": "open"]),
            (EventCommands.Accept(id: "ab12"), "event.accept", ["id": "ab12"]),
            (EventCommands.Decline(id: "ab12"), "event.decline", ["id": "ab12"]),
        ]
        try Self.expectWire(cases)
    }

    @Test("each member command encodes to the arguments the CLI and the page used to build by hand")
    func memberCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (MemberCommands.Add(name: "Ann", role: "student"), "member.add", ["name": "Ann", "role": "student"]),
            (MemberCommands.List(), "member.list", [:]),
            (MemberCommands.Rename(member: "Ann", name: "Anna"), "member.rename", ["member": "Ann", "name": "Anna"]),
            (MemberCommands.Remove(member: "Ann"), "member.remove", ["member": "Ann"]),
            (MemberCommands.Use(member: "Ann"), "member.use", ["member": "Ann"]),
            // No profile: the key left out, where the CLI sent `null`; the store reads both as none.
            (MemberCommands.Use(member: nil), "member.use", [:]),
            (
                MemberCommands.Notify(member: "Ann", off: false, lead: 15), "member.notify",
                ["member": "Ann", "off": false, "lead": 15]
            ),
            (MemberCommands.Notify(off: true), "member.notify", ["off": true]),
        ]
        try Self.expectWire(cases)
        // `null` still reads as no profile.
        #expect(
            try CommandRequest(command: "member.use", arguments: ["member": .null]).decode(MemberCommands.Use.self)
                .member == nil)
    }

    @Test(
        "each timetable and school command encodes to the arguments the CLI used to build by hand, lesson fields flat")
    func timetableCommandsMatchTheWire() throws {
        let lesson = TimetableCommands.LessonFields(room: "R2", teacher: "")
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (
                TimetableCommands.Add(
                    week: "1", day: "Mon", period: "AM Reg", subject: "Maths", room: "R1", member: "Ann"),
                "timetable.add",
                ["week": "1", "day": "Mon", "period": "AM Reg", "subject": "Maths", "room": "R1", "member": "Ann"]
            ),
            (
                TimetableCommands.Edit(entry: "1 Mon 1", member: "Ann", lesson: lesson), "timetable.edit",
                ["entry": "1 Mon 1", "member": "Ann", "room": "R2", "teacher": ""]
            ),
            (TimetableCommands.Remove(entry: "ab12"), "timetable.remove", ["entry": "ab12"]),
            (
                TimetableCommands.Duplicate(
                    entry: "ab12", lesson: TimetableCommands.LessonFields(week: "2", day: "Tue", period: "3")),
                "timetable.duplicate", ["entry": "ab12", "week": "2", "day": "Tue", "period": "3"]
            ),
            (
                TimetableCommands.CopyDay(from: "1 Mon", to: "2 Tue"), "timetable.copy_day",
                ["from": "1 Mon", "to": "2 Tue"]
            ),
            (TimetableCommands.CopyWeek(from: "1", to: "2"), "timetable.copy_week", ["from": "1", "to": "2"]),
            (TimetableCommands.Entries(member: "Ann"), "timetable.entries", ["member": "Ann"]),
            (
                TimetableCommands.Days(from: "2026-12-07", to: "2026-12-11", member: "Ann"), "timetable.days",
                ["from": "2026-12-07", "to": "2026-12-11", "member": "Ann"]
            ),
            (TimetableCommands.Clashes(), "timetable.clashes", [:]),
            (TimetableCommands.Reference(what: "rooms"), "timetable.reference", ["what": "rooms"]),
            (
                TimetableCommands.Classes(from: "2026-12-07", to: "2026-12-08"), "class.sources",
                ["from": "2026-12-07", "to": "2026-12-08"]
            ),
            (
                TimetableCommands.RecordClass(member: "0b0b", start: 1_800_000_000_000), "class.record",
                ["member": "0b0b", "start": 1_800_000_000_000]
            ),
            (SchoolCommands.Settings(), "timetable.settings", [:]),
            (SchoolCommands.Configure(week1Start: "2026-11-02"), "timetable.configure", ["week1_start": "2026-11-02"]),
            (
                SchoolCommands.Bells(bells: ["1=09:00-10:00", "2=10:00-11:00"]), "timetable.bells",
                ["bells": ["1=09:00-10:00", "2=10:00-11:00"]]
            ),
            (
                SchoolCommands.Override(week: 2, from: "2026-12-01", to: "2026-12-05"), "timetable.override",
                ["week": 2, "from": "2026-12-01", "to": "2026-12-05"]
            ),
            (SchoolCommands.ClearOverrides(), "timetable.override.clear", [:]),
            (
                SchoolCommands.AddHoliday(from: "2026-12-21", to: "2027-01-01", name: "Winter"),
                "timetable.holiday.add", ["from": "2026-12-21", "to": "2027-01-01", "name": "Winter"]
            ),
            (SchoolCommands.Holidays(), "timetable.holiday.list", [:]),
            (SchoolCommands.RemoveHoliday(holiday: "Winter"), "timetable.holiday.remove", ["holiday": "Winter"]),
        ]
        try Self.expectWire(cases)
        // The flat lesson fields come back out of the wire, and a week may be a number.
        let edit = try CommandRequest(
            command: "timetable.edit",
            arguments: ["entry": "1 Mon 1", "week": 2, "day": "Tue", "period": 3, "room": "R2"]
        ).decode(TimetableCommands.Edit.self)
        #expect(edit.lesson == TimetableCommands.LessonFields(week: "2", day: "Tue", period: "3", room: "R2"))
        #expect(edit.entry == "1 Mon 1" && edit.member == nil)
        // Anything else is refused naming the field and what it found.
        let bad = CommandRequest(command: "timetable.copy_week", arguments: ["from": true, "to": 2])
        let error = try #require(throws: CommandError.self) { try bad.decode(TimetableCommands.CopyWeek.self) }
        #expect(error.message == "'from' must be text or a whole number, found a boolean", "\(error.message)")
        let missing = CommandRequest(command: "timetable.add", arguments: ["day": "Mon"])
        let refusal = try #require(throws: CommandError.self) { try missing.decode(TimetableCommands.Add.self) }
        #expect(refusal.message == "'week' is required", "\(refusal.message)")
    }

    @Test("each people command encodes to the arguments the CLI used to build by hand")
    func peopleCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (PeopleCommands.Add(name: "Gran", tags: "family"), "people.add", ["name": "Gran", "tags": "family"]),
            (PeopleCommands.Edit(person: "Gran", purpose: ""), "people.edit", ["person": "Gran", "purpose": ""]),
            (PeopleCommands.Remove(person: "Gran"), "people.remove", ["person": "Gran"]),
            (PeopleCommands.List(now: 1_800_000_000_000), "people.list", ["now": 1_800_000_000_000]),
            (PeopleCommands.Show(person: "Gran"), "people.show", ["person": "Gran"]),
            (
                PeopleCommands.Goal(person: "Gran", every: 7, duration: "45m", windows: ["Mon-Sun 00:00-23:59"]),
                "people.goal", ["person": "Gran", "every": 7, "duration": "45m", "windows": ["Mon-Sun 00:00-23:59"]]
            ),
            (PeopleCommands.Goal(person: "Gran", exclude: []), "people.goal", ["person": "Gran", "exclude": []]),
            (
                PeopleCommands.Log(person: "Gran", outcome: "call", when: .text("2026-11-24 18:00"), note: "fine"),
                "people.log", ["person": "Gran", "outcome": "call", "when": "2026-11-24 18:00", "note": "fine"]
            ),
            (
                PeopleCommands.Log(person: "Gran", outcome: "met", when: .milliseconds(1_800_000_000_000)),
                "people.log",
                ["person": "Gran", "outcome": "met", "when": 1_800_000_000_000]
            ),
        ]
        try Self.expectWire(cases)
        // A time is a number or text; anything else is refused naming the field.
        let bad = CommandRequest(command: "people.log", arguments: ["person": "Gran", "outcome": "met", "when": true])
        let error = try #require(throws: CommandError.self) { try bad.decode(PeopleCommands.Log.self) }
        #expect(error.message.hasPrefix("'when' must be a time"), "\(error.message)")
    }

    @Test(
        "each collection, note and subtask command encodes to the arguments the CLI and the page used to build by hand")
    func collectionAndNoteCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (
                CollectionCommands.Add(name: "Habits", kind: "habit", showInCalendar: true), "collection.add",
                ["name": "Habits", "kind": "habit", "show_in_calendar": true]
            ),
            (
                CollectionCommands.Edit(collection: "Habits", icon: "", sortOrder: 2), "collection.edit",
                ["collection": "Habits", "icon": "", "sort_order": 2]
            ),
            (CollectionCommands.Remove(collection: "Habits"), "collection.remove", ["collection": "Habits"]),
            (CollectionCommands.List(), "collection.list", [:]),
            (
                NoteCommands.Set(date: "2026-12-07", mood: "good", text: "Snow"), "note.set",
                ["date": "2026-12-07", "mood": "good", "text": "Snow"]
            ),
            (NoteCommands.Show(date: "2026-12-07"), "note.show", ["date": "2026-12-07"]),
            (NoteCommands.List(since: "2026-12-01"), "note.list", ["since": "2026-12-01"]),
            (SubtaskCommands.Add(todo: "Milk", title: "Oat"), "subtask.add", ["todo": "Milk", "title": "Oat"]),
            (SubtaskCommands.Done(id: "ab12"), "subtask.done", ["id": "ab12"]),
            (SubtaskCommands.Undone(id: "ab12"), "subtask.undone", ["id": "ab12"]),
            (SubtaskCommands.Move(id: "ab12", position: 1), "subtask.move", ["id": "ab12", "position": 1]),
            (SubtaskCommands.Remove(id: "ab12"), "subtask.remove", ["id": "ab12"]),
        ]
        try Self.expectWire(cases)
    }

    @Test("a service decoding a request names the missing or mistyped field and the rule")
    func decodingNamesTheField() throws {
        let missing = CommandRequest(command: "join", arguments: ["code": "J7X-3"])
        #expect(throws: CommandError.invalidArgument("name", "is required")) {
            try missing.decode(TurnCommands.Join.self)
        }
        let mistyped = CommandRequest(command: "done", arguments: ["code": "J7X-3", "seq": "four"])
        let error = try #require(throws: CommandError.self) { try mistyped.decode(TurnCommands.Done.self) }
        #expect(error.code == "invalid_argument")
        #expect(error.message.hasPrefix("'seq' "), "\(error.message)")
        let decoded = try CommandRequest(command: "done", arguments: ["code": "J7X-3", "seq": 4])
            .decode(TurnCommands.Done.self)
        #expect(decoded.code == "J7X-3" && decoded.seq == 4 && decoded.player == nil)
    }

    @Test("each check-in, busy-time and reminder command encodes to the arguments their senders built by hand")
    func planBusyAndReminderCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (
                PlanCommands.Add(person: "Gran", at: .text("2026-12-08 18:00"), duration: "30m"), "plan.add",
                ["person": "Gran", "at": "2026-12-08 18:00", "duration": "30m"]
            ),
            (PlanCommands.Done(item: "4f2a", now: 1_000), "plan.done", ["item": "4f2a", "now": 1_000]),
            (PlanCommands.Cancel(item: "4f2a"), "plan.cancel", ["item": "4f2a"]),
            (PlanCommands.Snooze(item: "4f2a", minutes: 60), "plan.snooze", ["item": "4f2a", "minutes": 60]),
            (
                PlanCommands.Reschedule(item: "4f2a", to: .milliseconds(1_797_000_000_000)), "plan.reschedule",
                ["item": "4f2a", "to": 1_797_000_000_000]
            ),
            (PlanCommands.SnoozeTonight(), "plan.snooze_tonight", [:]),
            (PlanCommands.Week(now: 5), "plan.week", ["now": 5]),
            (PlanCommands.Next(count: 3), "plan.next", ["count": 3]),
            (
                PlanCommands.List(from: "2026-12-07", to: "2026-12-13"), "plan.list",
                ["from": "2026-12-07", "to": "2026-12-13"]
            ),
            (PlanCommands.Slots(item: "4f2a"), "plan.slots", ["item": "4f2a"]),
            (PlanCommands.Export(), "plan.export", [:]),
            (PlanCommands.Sources(now: 5), "plan.sources", ["now": 5]),
            (PlanCommands.Preferences(), "plan.prefs", [:]),
            (
                PlanCommands.SetPreferences(capacity: 4, quietStart: "21:30"), "plan.prefs.set",
                ["capacity": 4, "quiet_start": "21:30"]
            ),
            (
                PlanCommands.Record(items: [.init(item: "4f2a", start: 9)]), "plan.record",
                ["items": [["item": "4f2a", "start": 9]]]
            ),
            (BusyCommands.List(), "plan.busy.list", [:]),
            (BusyCommands.Sources(), "plan.busy.sources", [:]),
            (BusyCommands.Remove(file: "work.ics"), "plan.busy.remove", ["file": "work.ics"]),
            (BusyCommands.Clear(), "plan.busy.clear", [:]),
            (
                BusyCommands.Subscribe(url: "https://nas.local/cal"), "plan.busy.subscribe",
                ["url": "https://nas.local/cal"]
            ),
            (
                BusyCommands.Unsubscribe(url: "https://nas.local/cal"), "plan.busy.unsubscribe",
                ["url": "https://nas.local/cal"]
            ),
            (
                BusyCommands.Failed(source: "https://nas.local/cal", error: "timed out", now: 7), "plan.busy.failed",
                ["source": "https://nas.local/cal", "error": "timed out", "now": 7]
            ),
            (
                ReminderCommands.Sources(after: "", since: "2026-11-07"), "reminder.sources",
                ["after": "", "since": "2026-11-07"]
            ),
            (ReminderCommands.Sources(ids: ["t1"]), "reminder.sources", ["ids": ["t1"]]),
            // A snooze left alone (no key), cleared (null), or set (a time and the occurrence).
            (
                ReminderCommands.Record(records: [
                    .init(id: "t1", firedDue: 100), .init(id: "t2", firedDue: 100, snoozedUntil: .some(nil)),
                    .init(id: "t3", snoozedUntil: .some(200), snoozedDate: "2026-12-08"),
                ]), "reminder.record",
                [
                    "records": [
                        ["id": "t1", "fired_due": 100], ["id": "t2", "fired_due": 100, "snoozed_until": .null],
                        ["id": "t3", "snoozed_until": 200, "snoozed_date": "2026-12-08"],
                    ]
                ]
            ),
        ]
        try Self.expectWire(cases)
        // A check-in's time is required by its type: a request without one is refused naming it,
        // as the store's own check said before.
        #expect(throws: CommandError.invalidArgument("at", "is required")) {
            try CommandRequest(command: "plan.add", arguments: ["person": "Gran"]).decode(PlanCommands.Add.self)
        }
        #expect(throws: CommandError.invalidArgument("to", "is required")) {
            try CommandRequest(command: "plan.reschedule", arguments: ["item": "4f2a"])
                .decode(PlanCommands.Reschedule.self)
        }
        // And back: the three snooze states survive decoding.
        let request = try ReminderCommands.Record(records: [
            .init(id: "t1"), .init(id: "t2", snoozedUntil: .some(nil)), .init(id: "t3", snoozedUntil: .some(200)),
        ]).request(id: "r1")
        let decoded = try request.decode(ReminderCommands.Record.self)
        #expect(decoded.records.map(\.snoozedUntil) == [nil, .some(nil), .some(200)])
    }
}
