import Foundation
import HTTPTypes
import HearthBus
import HearthCore
import HearthTesting
import HummingbirdTesting
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
                "/today/note", [("back", "/today"), ("date", day), ("mood", "ecstatic"), ("text", "")], fragment: true)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.text.contains("data-error-for=\"mood\">&#39;mood&#39; must be one of"))
            let saved = try await client.post(
                "/today/note", [("back", "/today"), ("date", day), ("mood", "calm"), ("text", "Line one\r\nLine two")])
            #expect(saved.status == .seeOther)
        }
        let note = try await fixture.store.request("note.show", args: ["date": .string(day)])
        #expect(note["mood"] == "calm")
        #expect(note["text"] == "Line one\nLine two")
        await fixture.close()
    }

    @Test("timetable: the member's day with the week named, and the fortnight's grids")
    func timetable() async throws {
        let fixture = try await WebFixture()
        let day = try LocalDate(parsing: Self.today, field: "date")
        let monday = day.adding(days: -(day.weekday - 1))
        _ = try await fixture.store.request("member.add", args: ["name": "Ann", "role": "student"])
        _ = try await fixture.store.request("timetable.configure", args: ["week1_start": .string(monday.description)])
        _ = try await fixture.store.request("timetable.bells", args: ["bells": ["1=09:00-10:00", "2=10:00-11:00"]])
        _ = try await fixture.store.request(
            "timetable.add",
            args: ["member": "Ann", "week": 1, "day": "Mon", "period": "1", "subject": "Maths", "room": "12"])
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
        #expect(page.text.contains(">Art</td>") || page.text.contains(">Art<"))
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

    @Test("people and devices: what's next is empty before planning; this device is listed; nothing synced yet")
    func peopleAndDevices() async throws {
        let fixture = try await WebFixture()
        _ = try await fixture.store.request("people.add", args: ["name": "Gran"])
        try await fixture.withClient { client in
            let people = try await client.get("/people")
            #expect(people.status == .ok)
            #expect(people.text.contains("No check-ins planned"))
            let refused = try await client.post(
                "/people/plan/nothing/snooze", [("back", "/people"), ("minutes", "soon")], fragment: true)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("data-error-for=\"minutes\""))
            let devices = try await client.get("/devices")
            #expect(devices.status == .ok)
            #expect(devices.text.contains("(this device)"))
            #expect(devices.text.contains("Nothing synced yet."))
        }
        await fixture.close()
    }

    /// The value of the hidden input `name` in `html`.
    static func hidden(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }
}
