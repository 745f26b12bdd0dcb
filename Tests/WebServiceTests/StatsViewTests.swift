import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import WebService

@Suite("Web: the stats view's charts", .timeLimit(.minutes(2)))
struct StatsViewTests {
    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// The heatmap's squares marked `mark` (`nil`: all), not the legend's.
    static func cells(_ mark: String? = nil, in text: String) -> Int {
        let prefix = "<rect class=\"day \(mark.map { $0 + "\"" } ?? "")"
        return text.components(separatedBy: "\n").flatMap { $0.components(separatedBy: "</rect>") }
            .filter { $0.contains(prefix) && $0.contains("<title>") }.count
    }

    @Test(
        "stats: a heatmap and weekly bars per habit as SVG with text alternatives, collections open and done; a tick on today shows at once"
    )
    func stats() async throws {
        let fixture = try await WebFixture()
        let today = try LocalDate(parsing: HouseholdViewTests.today, field: "today")
        _ = try await fixture.store.request("collection.add", args: ["name": "Habits", "kind": "habit"])
        _ = try await fixture.store.request("collection.add", args: ["name": "Chores", "kind": "list"])
        let added = try await fixture.store.request(
            "todo.add",
            args: [
                "title": "Stretch <daily>", "collection": "Habits", "due": .string(today.adding(days: -6).description),
                "repeat": "daily",
            ])
        let id = try #require(added["todo"]?["id"]?.stringValue)
        for back in [6, 5, 3] {
            _ = try await fixture.store.request(
                "todo.done", args: ["id": .string(id), "date": .string(today.adding(days: -back).description)])
        }
        let chore = try await fixture.store.request("todo.add", args: ["title": "Bins", "collection": "Chores"])
        _ = try await fixture.store.request(
            "todo.done", args: ["id": .string(try #require(chore["todo"]?["id"]?.stringValue))])
        _ = try await fixture.store.request("todo.add", args: ["title": "Fence", "collection": "Chores"])
        try await fixture.withClient { client in
            let page = try await client.get("/stats")
            #expect(page.status == .ok)
            let text = page.text
            #expect(text.contains("data-areas=\"today\""), "the stats refresh with the todos")
            #expect(
                text.contains(
                    "<h3 id=\"h-\(id)-head\">Stretch &lt;daily&gt; <span class=\"muted\">· Habits</span></h3>"))
            #expect(text.contains("role=\"img\" aria-labelledby=\"h-\(id)-map h-\(id)-map-desc\""))
            // Three days done, three missed, today not done yet; 12 weeks of 7 squares in all.
            #expect(Self.cells("done", in: text) == 3)
            #expect(Self.cells("missed", in: text) == 3)
            #expect(Self.cells("pending", in: text) == 1)
            #expect(Self.cells(in: text) == 7 * 11 + today.weekday)
            #expect(text.contains("3 of 6 due dates done (50%) over 12 weeks"))
            #expect(Self.count("<rect class=\"bar", in: text) >= 12)
            #expect(text.contains("<th scope=\"row\">Chores<svg class=\"split\""))
            #expect(text.contains("</svg></th><td>1</td><td>1</td>"))

            let short = try await client.get("/stats?weeks=4")
            #expect(short.text.contains("The last 4 weeks"))
            #expect(Self.cells(in: short.text) == 7 * 3 + today.weekday)
            let unknown = try await client.get("/stats?weeks=9")
            #expect(unknown.text.contains("The last 12 weeks"))
            let chores = try await client.get("/stats?collection=Chores")
            #expect(chores.text.contains("No habits in these weeks"))

            // Ticking today's stretch on the today view: the stats (the same area) show it.
            let ticked = try await client.post(
                "/today/todos/\(id)/done", [("back", "/today"), ("date", today.description), ("done", "1")],
                fragment: true)
            #expect(ticked.status == .ok)
            let after = try await client.get("/stats")
            #expect(Self.cells("done", in: after.text) == 4)
            #expect(Self.cells("pending", in: after.text) == 0)
            // And the today view's list shows the streak beside the habit.
            let todayView = try await client.get("/today")
            #expect(todayView.text.contains("<span class=\"streak\">1-day streak</span>"))
        }
        await fixture.close()
    }
}
