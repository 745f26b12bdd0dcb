import Foundation
import GRDB
import HTTPTypes
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import WebService

@Suite("Web: today, timetable, people, game and devices", .timeLimit(.minutes(2)))
struct HouseholdViewTests {
    static var today: String { LocalDate(Date(), in: TimeZone(identifier: "UTC")!).description }

    @Test("today: a tick completes a todo, and a repeating one only that day; filters; the note and its mood")
    func today() async throws {
        let fixture = try await WebFixture()
        let day = Self.today
        _ = try await fixture.store.request("collection.add", args: ["name": "Habits", "kind": "habit"])
        _ = try await fixture.store.request("collection.add", args: ["name": "Chores", "kind": "list"])
        let habit = try await fixture.store.request(
            "todo.add",
            args: [
                "title": "Water plants", "collection": "Habits", "due": .string(day), "repeat": "daily",
                "priority": "high",
            ])
        _ = try await fixture.store.request(
            "todo.add", args: ["title": "Pay bills", "collection": "Chores", "due": .string(day)])
        let id = try #require(habit["todo"]?["id"]?.stringValue)
        try await fixture.withClient { client in
            let page = try await client.get("/today")
            #expect(page.status == .ok)
            #expect(page.text.contains(">Water plants</label>"))
            #expect(page.text.contains(">Pay bills</label>"))
            #expect(page.text.contains("<span class=\"priority-high\">!high</span>"))
            let filtered = try await client.get("/today?priority=high")
            #expect(filtered.text.contains(">Water plants</label>"))
            #expect(!filtered.text.contains(">Pay bills</label>"))

            let ticked = try await client.post(
                "/today/todos/\(id)/done", [("back", "/today"), ("date", day), ("done", "1")], fragment: true)
            #expect(ticked.status == .ok)
            #expect(ticked.text.contains("<li class=\"done\">"))
            // Tomorrow's occurrence is still open.
            let tomorrow = try LocalDate(parsing: day, field: "date").adding(days: 1).description
            let next = try await client.get("/today?date=\(tomorrow)")
            #expect(next.text.contains(">Water plants</label>"))
            #expect(!next.text.contains("<li class=\"done\">"))

            let bad = try await client.post(
                "/today/note", [("back", "/today"), ("date", day), ("mood", "ecstatic"), ("text", "Typed <here>")],
                fragment: true)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.text.contains("data-error-for=\"mood\">&#39;mood&#39; must be one of"))
            // What was typed is still there to correct, not lost with the refusal.
            #expect(bad.text.contains(">Typed &lt;here&gt;</textarea>"))
            let saved = try await client.post(
                "/today/note", [("back", "/today"), ("date", day), ("mood", "calm"), ("text", "Line one\r\nLine two")])
            #expect(saved.status == .seeOther)
        }
        let note = try await fixture.store.request("note.show", args: ["date": .string(day)])
        #expect(note["mood"] == "calm")
        #expect(note["text"] == "Line one\nLine two")
        await fixture.close()
    }

    @Test(
        "today: the lists with their open items, a tick box each and a box to add one (a kitchen display's shopping list)"
    )
    func lists() async throws {
        let fixture = try await WebFixture()
        let shopping = try await fixture.store.request("collection.add", args: ["name": "Shopping", "kind": "list"])
        let list = try #require(shopping["collection"]?["id"]?.stringValue)
        var ids: [String: String] = [:]
        for title in ["Milk", "Eggs"] {
            let added = try await fixture.store.request(
                "todo.add", args: ["title": .string(title), "collection": "Shopping"])
            ids[title] = added["todo"]?["id"]?.stringValue
        }
        let milk = ids["Milk"] ?? ""
        try await fixture.withClient { client in
            let page = try await client.get("/today")
            #expect(page.text.contains("<h2 id=\"lists-head\">Lists</h2>"))
            #expect(page.text.contains(">Milk</label>") && page.text.contains(">Eggs</label>"), "\(page.text)")
            #expect(page.text.contains("action=\"/today/lists/\(list)/add\""))
            let added = try await client.post(
                "/today/lists/\(list)/add", [("back", "/today"), ("title", "Bread")], fragment: true)
            #expect(added.status == .ok)
            #expect(added.text.contains(">Bread</label>"))
            let ticked = try await client.post(
                "/today/todos/\(milk)/done", [("back", "/today"), ("done", "1")], fragment: true)
            #expect(ticked.status == .ok)
            #expect(!ticked.text.contains(">Milk</label>"))
            #expect(ticked.text.contains(">Eggs</label>"))
            let blank = try await client.post(
                "/today/lists/\(list)/add", [("back", "/today"), ("title", "   ")], fragment: true)
            #expect(blank.status == .unprocessableContent)
        }
        let items =
            try await fixture.store.request("todo.list", args: ["collection": .string(list)])["todos"]?.arrayValue ?? []
        #expect(Set(items.compactMap { $0["title"]?.stringValue }) == ["Milk", "Eggs", "Bread"])
        // A list whose open todos all have dates says how many, not "Nothing on it" (issue 63).
        _ = try await fixture.store.request("collection.add", args: ["name": "Home", "kind": "list"])
        for title in ["Bins", "Boiler"] {
            _ = try await fixture.store.request(
                "todo.add", args: ["title": .string(title), "collection": "Home", "due": "2030-01-10"])
        }
        try await fixture.withClient { client in
            let page = try await client.get("/today").text
            #expect(page.contains("Nothing undated; 2 open with a date, shown on their days."), "\(page)")
        }
        await fixture.close()
    }

    @Test("today: each todo names the member it is for, and the For filter shows only theirs (lists too)")
    func assignees() async throws {
        let fixture = try await WebFixture()
        let day = Self.today
        for name in ["Mum", "Dad"] {
            _ = try await fixture.store.request("member.add", args: ["name": .string(name), "role": "parent"])
        }
        _ = try await fixture.store.request("collection.add", args: ["name": "Chores", "kind": "plan"])
        _ = try await fixture.store.request("collection.add", args: ["name": "Shopping", "kind": "list"])
        _ = try await fixture.store.request(
            "todo.add", args: ["title": "Call the plumber", "collection": "Chores", "due": .string(day), "for": "Mum"])
        _ = try await fixture.store.request(
            "todo.add", args: ["title": "Mow the lawn", "collection": "Chores", "due": .string(day), "for": "Dad"])
        _ = try await fixture.store.request(
            "todo.add", args: ["title": "Razor blades", "collection": "Shopping", "for": "Dad"])
        _ = try await fixture.store.request("todo.add", args: ["title": "Milk", "collection": "Shopping"])
        try await fixture.withClient { client in
            let page = try await client.get("/today")
            #expect(page.text.contains("<span class=\"assignee muted\">for Mum</span>"), "\(page.text)")
            #expect(
                page.text.contains(
                    "<select name=\"for\"><option value=\"\" selected>anyone</option><option value=\"Dad\">Dad</option>"
                        + "<option value=\"Mum\">Mum</option></select>"), "\(page.text)")
            let mum = try await client.get("/today?for=Mum")
            #expect(mum.text.contains(">Call the plumber</label>"))
            #expect(!mum.text.contains(">Mow the lawn</label>"))
            #expect(!mum.text.contains(">Razor blades</label>") && !mum.text.contains(">Milk</label>"))
            let dad = try await client.get("/today?for=Dad")
            #expect(dad.text.contains(">Mow the lawn</label>") && dad.text.contains(">Razor blades</label>"))
            #expect(!dad.text.contains(">Call the plumber</label>"))
        }
        await fixture.close()
    }

    @Test("timetable: the member's day with the week named, and the fortnight's grids")
    func timetable() async throws {
        let fixture = try await WebFixture()
        let day = try LocalDate(parsing: Self.today, field: "date")
        let monday = day.adding(days: -(day.weekday - 1))
        _ = try await fixture.store.request("member.add", args: ["name": "Ann", "role": "student"])
        _ = try await fixture.store.request("timetable.configure", args: ["week1_start": .string(monday.description)])
        _ = try await fixture.store.request(
            "timetable.bells", args: ["bells": ["AM Registration=08:40-09:00", "1=09:00-10:00", "2=10:00-11:00"]])
        _ = try await fixture.store.request(
            "timetable.add",
            args: ["member": "Ann", "week": 1, "day": "Mon", "period": "1", "subject": "Maths", "room": "12"])
        _ = try await fixture.store.request(
            "timetable.add",
            args: ["member": "Ann", "week": 1, "day": "Wed", "period": "AM Reg", "subject": "Tutor", "room": "4"])
        _ = try await fixture.store.request(
            "timetable.add",
            args: ["member": "Ann", "week": 2, "day": "Tue", "period": "2", "subject": "Art", "room": "3"])
        let page = try await fixture.withClient { client in
            try await client.get("/timetable?member=Ann&date=\(monday.description)")
        }
        #expect(page.status == .ok)
        #expect(page.text.contains("Week 1"))
        #expect(page.text.contains("P1 · Maths · room 12"))
        #expect(page.text.contains("<caption>Week 1"))
        #expect(page.text.contains("<caption>Week 2"))
        #expect(page.text.contains(">Art<br><span class=\"muted\">3</span></td>"))
        // The registration row is named as a person reads it, not by its stored code.
        #expect(page.text.contains(">AM Registration</th>"), "\(page.text)")
        #expect(!page.text.contains("am_registration"))
        await fixture.close()
    }

    @Test("timetable on a Sunday: the next lesson is Monday's, and the grids show the coming fortnight")
    func timetableSunday() async throws {
        // Sunday 29 November 2026, noon; week 1 was the week just ending.
        let fixture = try await WebFixture(clock: { Date(timeIntervalSince1970: 1_795_953_600) })
        _ = try await fixture.store.request("member.add", args: ["name": "Ann", "role": "student"])
        _ = try await fixture.store.request("timetable.configure", args: ["week1_start": "2026-11-23"])
        _ = try await fixture.store.request("timetable.bells", args: ["bells": ["1=09:00-10:00", "2=10:00-11:00"]])
        _ = try await fixture.store.request(
            "timetable.add",
            args: ["member": "Ann", "week": 2, "day": "Mon", "period": "1", "subject": "Maths", "room": "12"])
        _ = try await fixture.store.request(
            "timetable.add",
            args: ["member": "Ann", "week": 1, "day": "Tue", "period": "2", "subject": "Art", "room": "3"])
        let page = try await fixture.withClient { client in try await client.get("/timetable?member=Ann") }
        #expect(page.status == .ok)
        #expect(
            page.text.contains("No more lessons today. Next: <strong>Maths tomorrow at 09:00</strong>"), "\(page.text)")
        let coming = try #require(page.text.range(of: "<caption>Week 2"))
        let after = try #require(page.text.range(of: "<caption>Week 1"))
        #expect(coming.lowerBound < after.lowerBound, "the coming week's grid first")
        await fixture.close()
    }

    @Test("people on the week's last day: the coming week, not the one just ending")
    func peopleSunday() async throws {
        // Sunday 29 November 2026, noon, in a household whose week starts on Monday.
        let fixture = try await WebFixture(clock: { Date(timeIntervalSince1970: 1_795_953_600) })
        let page = try await fixture.withClient { client in try await client.get("/people") }
        #expect(page.status == .ok)
        #expect(page.text.contains("Next week (Mon 30 Nov – Sun 6 Dec)"), "\(page.text)")
        // Changes is in the navigation, as every view is.
        #expect(page.text.contains("<li><a href=\"/changes\">Changes</a></li>"), "\(page.text)")
        await fixture.close()
    }

    @Test("devices: each one paired, forgotten or not paired here; the log has no dangling separator")
    func deviceStates() async throws {
        let fixture = try await WebFixture()
        let dad = "dadd0000-0000-4000-8000-00000000000b"
        try await TestHousehold.trust([dad], store: fixture.store)
        _ = try await fixture.store.request(
            "ops.import",
            args: [
                "operations": [
                    TestHousehold.signed(
                        [
                            "id": .string("\(dad):1"), "time": ["wall": 1_000, "logical": 0],
                            "entity": ["kind": "device", "id": .string(dad)],
                            "fields": ["name": ["value": "Dad's laptop", "overwrites": []]],
                        ])
                ]
            ])
        // Paired once, then forgotten (as `hearth device forget` leaves it).
        try await DatabaseQueue(path: fixture.stack.home.file("sync.sqlite")).write { db in
            try db.execute(
                sql: """
                    INSERT INTO peer (device, name, key, fingerprint, paired_at, forgotten_at)
                    VALUES (?, 'Dad', 'k', 'AB12 CD34 EF56', 1, 2)
                    """, arguments: [dad])
            try db.execute(
                sql: """
                    INSERT INTO sync_log (at, peer, peer_name, outcome, received, sent, conflicts, resolution, bytes,
                        duration_ms, detail) VALUES (1000, ?, 'Dad', 'completed', 3, 1, 0, '', 900, 12, '')
                    """, arguments: [dad])
        }
        try await fixture.withClient { client in
            let page = try await client.get("/devices")
            #expect(page.text.contains("<strong>Dad&#39;s laptop</strong> · forgotten"), "\(page.text)")
            #expect(page.text.contains("3 received, 1 sent, 0 conflicts</li>"), "\(page.text)")
        }
        await fixture.close()
    }

    @Test("game: the player at this device sees YOUR TURN and Done passes the turn; a stale Done is refused")
    func game() async throws {
        let fixture = try await WebFixture()
        let created = try await fixture.turn.request("create", args: ["name": "Ann"])
        let code = try #require(created["session"]?["code"]?.stringValue)
        _ = try await fixture.turn.request("join", args: ["code": .string(code), "name": "Ben"])
        _ = try await fixture.turn.request("start", args: ["code": .string(code)])
        try await fixture.withClient { client in
            let page = try await client.get("/game?code=\(code)")
            #expect(page.text.contains("YOUR TURN"))
            let seq = try #require(Self.hidden("seq", in: page.text))
            let player = try #require(Self.hidden("player", in: page.text))
            let done = try await client.post(
                "/game/done", [("back", "/game?code=\(code)"), ("code", code), ("player", player), ("seq", seq)],
                fragment: true)
            #expect(done.status == .ok)
            // Both players sit at this device: Ben's turn now, shown as his.
            #expect(done.text.contains("<p class=\"big-name\">Ben</p>"))
            let again = try await client.post(
                "/game/done", [("back", "/game?code=\(code)"), ("code", code), ("player", player), ("seq", seq)],
                fragment: true)
            #expect(again.status == .unprocessableContent)
            let list = try await client.get("/game")
            #expect(list.text.contains("href=\"/game?code=\(code)\""))
        }
        await fixture.close()
    }

    @Test("game: a timer counts down from the time left; paused says so; at the end, the statistics as a table")
    func gameTimerAndStatistics() async throws {
        let fixture = try await WebFixture()
        let created = try await fixture.turn.request("create", args: ["name": "Ann", "timer_seconds": 90])
        let code = try #require(created["session"]?["code"]?.stringValue)
        _ = try await fixture.turn.request("join", args: ["code": .string(code), "name": "Ben"])
        _ = try await fixture.turn.request("start", args: ["code": .string(code)])
        try await fixture.withClient { client in
            let page = try await client.get("/game?code=\(code)")
            #expect(page.text.contains("data-countdown-ms=\"8"), "\(page.text)")  // 89,9xx ms
            #expect(page.text.contains(">1:30</time> left of 1:30"), "\(page.text)")
            _ = try await fixture.turn.request("pause", args: ["code": .string(code)])
            #expect(try await Polling.eventually { try await client.get("/game?code=\(code)").text.contains("Paused") })
            let paused = try await client.get("/game?code=\(code)")
            #expect(!paused.text.contains("data-countdown-ms"), "a paused timer does not count down")
            _ = try await fixture.turn.request("resume", args: ["code": .string(code)])
            _ = try await fixture.turn.request("done", args: ["code": .string(code), "player": "Ann"])
            let playing = try await client.get("/game?code=\(code)").text
            #expect(!playing.contains("game-statistics"), "statistics during play: \(playing)")
            _ = try await fixture.turn.request("end", args: ["code": .string(code)])
            #expect(
                try await Polling.eventually { try await client.get("/game?code=\(code)").text.contains("Game over") })
            let over = try await client.get("/game?code=\(code)").text
            #expect(over.contains("<h2 id=\"game-statistics-title\">2 turns in"), "\(over)")
            #expect(over.contains("<tr><th scope=\"row\">Ann</th><td>1</td>"), "\(over)")
            #expect(over.contains("<tr><th scope=\"row\">Ben</th><td>1</td>"), "\(over)")
        }
        await fixture.close()
    }

    @Test("people: what's next with Done, Snooze and Reschedule (a free slot; a bad time named); devices listed")
    func peopleAndDevices() async throws {
        let fixture = try await WebFixture()
        for name in ["Gran", "Sam", "Jo"] {
            _ = try await fixture.store.request("people.add", args: ["name": .string(name)])
            _ = try await fixture.store.request(
                "people.goal", args: ["person": .string(name), "every": 7, "windows": ["Mon-Sun 00:00-23:59"]])
        }
        _ = try await fixture.store.request("plan.week")
        let next = try await fixture.store.request("plan.next")["items"]?.arrayValue ?? []
        try #require(next.count == 3)
        let (done, moved) = (next[0]["id"]?.stringValue ?? "", next[1]["id"]?.stringValue ?? "")
        let rescheduledTo = try await fixture.withClient { client in
            let people = try await client.get("/people")
            #expect(people.status == .ok)
            for item in next {
                #expect(people.text.contains("action=\"/people/plan/\(item["id"]?.stringValue ?? "")/done\""))
            }
            let slot = try #require(
                Self.options(in: people.text, select: "move-\(moved)").first { $0 != next[1]["start"]?.stringValue })

            let finished = try await client.post("/people/plan/\(done)/done", [("back", "/people")], fragment: true)
            #expect(finished.status == .ok)
            #expect(!finished.text.contains("/people/plan/\(done)/done"))
            let rescheduled = try await client.post(
                "/people/plan/\(moved)/reschedule", [("back", "/people"), ("to", slot)], fragment: true)
            #expect(rescheduled.status == .ok)
            let badTime = try await client.post(
                "/people/plan/\(moved)/reschedule", [("back", "/people"), ("to", "soon")], fragment: true)
            #expect(badTime.status == .unprocessableContent)
            #expect(badTime.text.contains("data-error-for=\"to\""))
            let refused = try await client.post(
                "/people/plan/\(moved)/snooze", [("back", "/people"), ("minutes", "soon")], fragment: true)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("data-error-for=\"minutes\""))

            // The week lists the live check-in where it moved to, not the one it replaced. (Late in
            // the week the first other slot is next week's: then What's next shows it there.)
            let week = try await client.get("/people")
            #expect(!week.text.contains("<span class=\"muted\">rescheduled"), "\(week.text)")
            let thisWeek = week.text.components(separatedBy: "id=\"week-head\"").last ?? ""
            if thisWeek.contains("datetime=\"\(slot)\"") {
                #expect(thisWeek.contains(" · moved from "), "\(week.text)")
            } else {
                let whatsNext = week.text.components(separatedBy: "id=\"week-head\"").first ?? ""
                #expect(whatsNext.contains("<time datetime=\"\(slot)\">"), "\(slot): \(week.text)")
            }

            let devices = try await client.get("/devices")
            #expect(devices.status == .ok)
            #expect(devices.text.contains("(this device)"))
            #expect(devices.text.contains("Nothing synced yet."))
            return slot
        }
        let today = try LocalDate(parsing: Self.today, field: "date")
        let items =
            try await fixture.store.request(
                "plan.list",
                args: ["from": .string(today.description), "to": .string(today.adding(days: 14).description)]
            )["items"]?.arrayValue ?? []
        #expect(items.first { $0["id"]?.stringValue == done }?["status"] == "done")
        // Rescheduling keeps the old check-in as rescheduled and plans a new one at the slot.
        #expect(items.first { $0["id"]?.stringValue == moved }?["status"] == "rescheduled")
        #expect(items.first { $0["previous"]?.stringValue == moved }?["start"]?.stringValue == rescheduledTo)
        await fixture.close()
    }

    /// The options' values of the select with id `select` in `html`.
    static func options(in html: String, select: String) -> [String] {
        guard let start = html.range(of: "id=\"\(select)\">"),
            let end = html[start.upperBound...].range(of: "</select>")
        else { return [] }
        return html[start.upperBound..<end.lowerBound].components(separatedBy: "<option value=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
    }

    /// The value of the hidden input `name` in `html`.
    static func hidden(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }
}
