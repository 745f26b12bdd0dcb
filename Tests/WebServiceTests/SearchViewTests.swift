import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import WebService

@Suite("Web: search from the header", .timeLimit(.minutes(2)))
struct SearchViewTests {
    @Test(
        "the header's box on every view; results grouped by kind, each linking to its view, matches marked; nothing found and an empty search said; what was typed escaped"
    )
    func search() async throws {
        let fixture = try await WebFixture()
        _ = try await fixture.store.request("collection.add", args: ["name": "Home", "kind": "list"])
        _ = try await fixture.store.request(
            "todo.add", args: ["title": "Café visits", "collection": "Home", "due": "2026-12-03"])
        _ = try await fixture.store.request("note.set", args: ["date": "2026-11-20", "text": "Lunch at the cafe"])
        _ = try await fixture.store.request("people.add", args: ["name": "Cafer", "tags": "friends"])
        try await fixture.withClient { client in
            let year = try await client.get("/year")
            #expect(year.text.contains("<form class=\"search-box\" role=\"search\" method=\"get\" action=\"/search\">"))
            let page = try await client.get("/search?q=cafe")
            #expect(page.status == .ok)
            let text = page.text
            #expect(text.contains("data-areas=\"year today timetable people\""))
            let order = ["id=\"found-todo\"", "id=\"found-note\"", "id=\"found-person\""].map {
                text.range(of: $0)?.lowerBound
            }
            #expect(order.allSatisfy { $0 != nil } && order[0]! < order[1]! && order[1]! < order[2]!, "\(text)")
            #expect(text.contains("<a href=\"/today?date=2026-12-03\">Café visits</a>"))
            #expect(text.contains("<mark>Café</mark> visits"))
            #expect(text.contains("<a href=\"/today?date=2026-11-20\">Note of 2026-11-20</a>"))
            #expect(text.contains("<a href=\"/people\">Cafer</a>"))
            #expect(text.contains("value=\"cafe\""), "the box keeps what was typed")

            let none = try await client.get("/search?q=%3Cscript%3E%22")
            #expect(none.status == .ok)
            #expect(none.text.contains("Nothing found for “&lt;script&gt;&quot;”."))
            #expect(!none.text.contains("<script>\""))
            // As a form sends it: spaces as +, a plus as %2B.
            let words = try await client.get("/search?q=caf%C3%A9+visits")
            #expect(words.text.contains("value=\"café visits\""))
            #expect(words.text.contains("<mark>Café</mark> <mark>visits</mark>"))
            let plus = try await client.get("/search?q=c%2B%2B")
            #expect(plus.text.contains("value=\"c++\""), "a typed plus stays a plus")
            let empty = try await client.get("/search?q=+")
            #expect(empty.text.contains("Type what to search for"))
            // A NUL or another control character is a space between words, never SQL on the page
            // (issue 62: "SQLite error 1: unterminated string" and the statement were shown).
            for query in ["caf%00visits", "cafe%00", "caf%01%1F%7Fvisits"] {
                let page = try await client.get("/search?q=\(query)")
                #expect(page.status == .ok, "\(query)")
                #expect(!page.text.contains("SQLite") && !page.text.contains("SELECT"), "\(query): \(page.text)")
            }
            #expect(try await client.get("/search?q=caf%00visits").text.contains("<mark>Café</mark>"))
        }
        await fixture.close()
    }
}
