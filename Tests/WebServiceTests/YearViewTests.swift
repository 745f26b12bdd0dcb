import Foundation
import HTTPTypes
import HearthBus
import HearthTesting
import Testing

@testable import WebService

@Suite("Web: the year view", .timeLimit(.minutes(2)))
struct YearViewTests {
    /// Another device of the household, for operations that arrive as by sync.
    static let dad = "dadd0000-0000-4000-8000-00000000000b"

    @Test("twelve cards in their month colours with title, day and location; text is escaped, never markup")
    func cards() async throws {
        let fixture = try await WebFixture()
        _ = try await fixture.store.request(
            "event.set",
            args: [
                "year": 2026, "month": 8, "title": "Beach <b>week</b> & \"more\"", "day": 12,
                "location": "Cornwall",
            ])
        let page = try await fixture.withClient { client in try await client.get("/year?year=2026") }
        #expect(page.status == .ok)
        #expect(page.text.components(separatedBy: "class=\"card month-").count == 13)
        #expect(page.text.contains("data-colour=\"#FF9D9A\" id=\"card-8\""))
        #expect(page.text.contains("Beach &lt;b&gt;week&lt;/b&gt; &amp; &quot;more&quot;"))
        #expect(!page.text.contains("<b>week</b>"))
        #expect(page.text.contains("<span class=\"day\">12</span>"))
        #expect(page.text.contains("<p class=\"location\">Cornwall</p>"))
        // Its history: who changed what, when on the household's clock ("Fri 27 Nov 14:31", not ISO).
        #expect(page.text.contains("location: — → Cornwall"))
        let when = try #require(page.text.range(of: #"Z">[^<]*</time>"#, options: .regularExpression))
        #expect(
            page.text[when].range(
                of: #">(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d\d:\d\d<"#, options: .regularExpression)
                != nil, "\(page.text[when])")
        // A live refresh asks for the main part only.
        let fragment = try await fixture.withClient { client in
            try await client.get(
                "/year?year=2026",
                headers: [HTTPField.Name("Host")!: WebFixture.host, HTTPField.Name("X-Hearth-Fragment")!: "1"])
        }
        // (After the undo bar, while the cards' change is recent.)
        let view = fragment.text.components(separatedBy: "</div>\n").drop { $0.hasPrefix("<div class=\"undo-bar\"") }
        #expect(view.joined(separator: "</div>\n").hasPrefix("<div class=\"view-head\">"), "\(fragment.text)")
        #expect(!fragment.text.contains("<html"))
        await fixture.close()
    }

    @Test("a suggestion shows Accept and Decline; Accept puts it on the card, Decline leaves the card alone")
    func suggestions() async throws {
        let fixture = try await WebFixture()
        let first = try await fixture.store.request(
            "event.suggest", args: ["year": 2026, "month": 9, "title": "School trip", "day": 3])
        let second = try await fixture.store.request(
            "event.suggest", args: ["year": 2026, "month": 10, "title": "Half term"])
        let accept = try #require(first["suggestion"]?["id"]?.stringValue)
        let decline = try #require(second["suggestion"]?["id"]?.stringValue)
        try await fixture.withClient { client in
            let page = try await client.get("/year?year=2026")
            #expect(page.text.contains("action=\"/year/suggestions/\(accept)/accept\""))
            #expect(page.text.contains("action=\"/year/suggestions/\(decline)/decline\""))

            // Without script: post, then a redirect back to the view (post/redirect/get).
            let accepted = try await client.post(
                "/year/suggestions/\(accept)/accept", [("back", "/year?year=2026")])
            #expect(accepted.status == .seeOther)
            #expect(accepted.headers[.location] == "/year?year=2026")
            // With script: the refreshed view comes back at once.
            let declined = try await client.post(
                "/year/suggestions/\(decline)/decline", [("back", "/year?year=2026")], fragment: true)
            #expect(declined.status == .ok)
            #expect(!declined.text.contains("/year/suggestions/"))
            #expect(declined.text.contains("<p class=\"title\">School trip</p>"))
        }
        let cards = try await fixture.store.request("event.list", args: ["year": 2026])["cards"]?.arrayValue ?? []
        #expect(cards[8]["title"] == "School trip")
        #expect(cards[9]["title"] == .null)
        await fixture.close()
    }

    @Test("a card in conflict is marked and shows both values with Keep this, which resolves it; a bad keep is named")
    func conflicts() async throws {
        let fixture = try await WebFixture()
        let base = try await fixture.store.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach day"])
        let parent = try #require(base["op"]?.stringValue)
        _ = try await fixture.store.request("event.set", args: ["year": 2026, "month": 8, "title": "Beach weekend"])
        let later = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
        let operation = TestHousehold.signed(
            [
                "id": .string("\(Self.dad):1"), "time": ["wall": .int(later), "logical": 0],
                "entity": ["kind": "event_card", "id": "2026-08"],
                "fields": ["title": ["value": "Camping", "overwrites": [.string(parent)]]],
            ])
        try await TestHousehold.trust([Self.dad], store: fixture.store)
        _ = try await fixture.store.request("ops.import", args: ["operations": [operation]])
        let conflict = try #require(
            try await fixture.store.request("conflicts")["conflicts"]?.arrayValue?.first)
        let mine = try #require(
            conflict["values"]?.arrayValue?.first { $0["value"] == "Beach weekend" }?["op"]?.stringValue)
        try await fixture.withClient { client in
            let page = try await client.get("/year?year=2026")
            #expect(page.text.contains("card month-8 conflicted"))
            #expect(page.text.contains("<span class=\"value\">Camping</span>"))
            #expect(page.text.contains("<span class=\"value\">Beach weekend</span>"))
            #expect(page.text.components(separatedBy: "Keep this").count == 3)

            let refused = try await client.post(
                "/year/conflicts/resolve", [("back", "/year"), ("id", "2026-08/title"), ("keep", "nobody")],
                fragment: true)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("class=\"error\""))
            #expect(refused.text.contains("names no value in the conflict 2026-08/title"))

            let kept = try await client.post(
                "/year/conflicts/resolve", [("back", "/year"), ("id", "2026-08/title"), ("keep", mine)])
            #expect(kept.status == .seeOther)
        }
        let card = try await fixture.store.request("event.list", args: ["year": 2026])["cards"]?.arrayValue?[7]
        #expect(card?["title"] == "Beach weekend")
        #expect(card?["conflicted"] == false)
        await fixture.close()
    }
}
