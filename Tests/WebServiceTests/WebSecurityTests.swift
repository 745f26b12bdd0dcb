import Foundation
import HTTPTypes
import HearthBus
import HearthHost
import HearthTesting
import NIOCore
import Testing

@testable import WebService

@Suite("Web: who may use the page", .timeLimit(.minutes(2)))
struct WebSecurityTests {
    @Test("every answer carries a CSP without inline script, no referrer and no framing")
    func headers() async throws {
        let fixture = try await WebFixture()
        try await fixture.withClient { client in
            for uri in [
                "/year", "/today", "/stats", "/timetable", "/people", "/game", "/devices", "/assets/hearth.css",
                "/nowhere",
            ] {
                let response = try await client.get(uri)
                let policy = try #require(response.headers[.contentSecurityPolicy], "\(uri)")
                #expect(policy.contains("script-src 'self';"))
                #expect(!policy.contains("unsafe-inline"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            }
            let script = try await client.get("/assets/hearth.js")
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(try await client.get("/assets/..%2FTemplates%2Flayout.mustache").status == .notFound)
            #expect(try await client.get("/assets/missing.js").status == .notFound)
            // The tab's icon: named by every page, and at /favicon.ico for what asks there.
            let page = try await client.get("/year")
            #expect(
                String(buffer: page.body).contains(#"<link rel="icon" href="/assets/hearth-icon.svg""#),
                "the page names no icon")
            for uri in ["/assets/hearth-icon.svg", "/favicon.ico"] {
                let icon = try await client.get(uri)
                #expect(icon.status == .ok, "\(uri)")
                #expect(icon.headers[.contentType] == "image/svg+xml", "\(uri)")
                #expect(String(buffer: icon.body).hasPrefix("<svg "), "\(uri)")
            }
        }
        await fixture.close()
    }

    @Test("a change from another site (CSRF) is refused: no Origin, a foreign Origin, or a cross-site fetch")
    func crossSite() async throws {
        let fixture = try await WebFixture()
        let created = try await fixture.store.request(
            "event.suggest", args: ["year": 2026, "month": 3, "title": "Fair"])
        let id = try #require(created["suggestion"]?["id"]?.stringValue)
        let host = HTTPField.Name("Host")!
        try await fixture.withClient { client in
            let refusals: [HTTPFields] = [
                [host: WebFixture.host],
                [host: WebFixture.host, .origin: "http://evil.example"],
                [host: WebFixture.host, .origin: "null"],
                [host: WebFixture.host, HTTPField.Name("Sec-Fetch-Site")!: "cross-site"],
            ]
            for headers in refusals {
                let response = try await client.post(
                    "/year/suggestions/\(id)/accept", [("back", "/year")], headers: headers)
                #expect(response.status == .forbidden, "\(headers)")
            }
            // Every action, from another site.
            for uri in [
                "/year/conflicts/resolve", "/today/todos/x/done", "/today/note", "/people/plan/x/done",
                "/people/plan/x/snooze", "/people/plan/x/reschedule", "/game/done",
            ] {
                let response = try await client.post(
                    uri, [("back", "/year")], headers: [host: WebFixture.host, .origin: "http://evil.example"])
                #expect(response.status == .forbidden, "\(uri)")
            }
            // The page's own post (no Origin, but a same-origin fetch) is let through.
            let own = try await client.post(
                "/year/suggestions/\(id)/accept", [("back", "//evil.example/year")],
                headers: [host: WebFixture.host, HTTPField.Name("Sec-Fetch-Site")!: "same-origin"])
            #expect(own.status == .seeOther)
            // A `back` to another site is not followed.
            #expect(own.headers[.location] == "/year")
        }
        #expect(
            try await fixture.store.request("event.list", args: ["year": 2026])["cards"]?.arrayValue?[2]["title"]
                == "Fair")
        await fixture.close()
    }

    @Test(
        "DNS rebinding: a request naming another host is refused before anything is read or written; named hosts pass")
    func foreignHost() async throws {
        let fixture = try await WebFixture(environment: ["HEARTH_WEB_HOST_NAMES": "kitchen.local"])
        _ = try await fixture.store.request("event.set", args: ["year": 2026, "month": 5, "title": "Secret trip"])
        let host = HTTPField.Name("Host")!
        try await fixture.withClient { client in
            for name in ["evil.example:8470", "evil.example", "127.evil.example", "localhost.evil.example."] {
                let read = try await client.get("/year?year=2026", headers: [host: name])
                #expect(read.status == .badRequest, "\(name)")
                #expect(!read.text.contains("Secret trip"))
                #expect(read.text.contains("is not a name of this Hearth page"))
                // The rebinding page posts to "its own" origin: Host and Origin agree, both foreign.
                let write = try await client.post(
                    "/today/note", [("text", "written by evil"), ("back", "/today")],
                    headers: [host: name, .origin: "http://\(name)"])
                #expect(write.status == .badRequest, "\(name)")
            }
            // A foreign Origin with this page's Host is another site's form: refused as before.
            let forged = try await client.post(
                "/today/note", [("text", "x"), ("back", "/today")],
                headers: [host: WebFixture.host, .origin: "http://evil.example"])
            #expect(forged.status == .forbidden)
            for name in ["localhost:8470", "127.0.0.1", "[::1]:8470", "kitchen.local:8470", "KITCHEN.local"] {
                #expect(try await client.get("/year?year=2026", headers: [host: name]).status == .ok, "\(name)")
            }
        }
        let notes = try await fixture.store.request("note.list")["notes"]?.arrayValue ?? []
        #expect(notes.isEmpty, "\(notes)")
        await fixture.close()
    }

    @Test("loopback is an address in 127.0.0.0/8, ::1 or localhost, never a name that starts like one")
    func loopbackNames() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "LOCALHOST"] {
            #expect(WebSettings.isLoopback(host), "\(host)")
        }
        for host in ["127.example.com", "127.0.0.1.nip.io", "0.0.0.0", "192.168.1.20", "128.0.0.1", "localhost.evil"] {
            #expect(!WebSettings.isLoopback(host), "\(host)")
        }
    }

    @Test("beyond loopback every request needs the household token; ?token= sets a cookie; a revoked token is refused")
    func token() async throws {
        let fixture = try await WebFixture(environment: ["HEARTH_WEB_LISTEN": "0.0.0.0:0"])
        let token = try #require(HouseholdToken.read(home: fixture.stack.home.path))
        let host = HTTPField.Name("Host")!
        try await fixture.withClient { client in
            // Every route, read or change, without the token.
            for uri in [
                "/", "/year", "/today", "/stats", "/timetable", "/people", "/game", "/devices", "/search", "/events",
                "/assets/hearth.css", "/favicon.ico",
            ] {
                #expect(try await client.get(uri).status == .unauthorized, "\(uri)")
            }
            for uri in [
                "/year/suggestions/x/accept", "/year/suggestions/x/decline", "/year/conflicts/resolve",
                "/today/todos/x/done", "/today/note", "/people/plan/x/done", "/people/plan/x/snooze",
                "/people/plan/x/reschedule", "/game/done",
            ] {
                #expect(try await client.post(uri, [("back", "/year")]).status == .unauthorized, "\(uri)")
            }
            let wrong = String(repeating: "0", count: 64)
            #expect(try await client.get("/year?token=\(wrong)").status == .unauthorized)
            #expect(
                try await client.get("/year", headers: [host: WebFixture.host, .cookie: "hearth_token=\(wrong)"]).status
                    == .unauthorized)

            let first = try await client.get("/today?date=2026-11-23&token=\(token)")
            #expect(first.status == .seeOther)
            #expect(first.headers[.location] == "/today?date=2026-11-23")
            let cookie = try #require(first.headers[.setCookie])
            #expect(cookie.contains("hearth_token=\(token)"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            let withCookie: HTTPFields = [host: WebFixture.host, .cookie: "hearth_token=\(token)"]
            #expect(try await client.get("/year", headers: withCookie).status == .ok)
            // A change needs the token too (and the same origin).
            var post = WebFixture.sameOrigin
            #expect(
                try await client.post("/today/note", [("date", "2026-11-23")], headers: post).status == .unauthorized)
            post[.cookie] = "hearth_token=\(token)"
            #expect(
                try await client.post("/today/note", [("date", "2026-11-23"), ("mood", "calm")], headers: post).status
                    == .seeOther)

            // Revoked: a new token, and the service told to read it.
            let new = try HouseholdToken.replace(home: fixture.stack.home.path)
            #expect(new != token)
            #expect(try fixture.web.reloadToken() == ["token": "reloaded"])
            #expect(try await client.get("/year", headers: withCookie).status == .unauthorized)
            #expect(
                try await client.get("/year", headers: [host: WebFixture.host, .cookie: "hearth_token=\(new)"]).status
                    == .ok)
        }
        await fixture.close()
    }

    @Test(
        "a form that cannot be read (a name twice, a bad escape, a nested name) is refused saying why; nothing is written"
    )
    func unreadableForms() async throws {
        let fixture = try await WebFixture()
        try await fixture.withClient { client in
            var headers = WebFixture.sameOrigin
            headers[.contentType] = "application/x-www-form-urlencoded"
            for (body, reason) in [
                ("date=2026-11-23&mood=calm&mood=sad", "duplicate keys with name &#39;mood&#39;"),
                ("date=2026-11-23&mood=%ZZ", "Failed to percent decode &#39;%ZZ&#39;"),
                ("date=2026-11-23&mood[x]=calm", "the form could not be read"),
            ] {
                let response = try await client.execute(
                    uri: "/today/note", method: .post, headers: headers, body: ByteBuffer(string: body))
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.text.contains(reason), "\(body): \(response.text)")
            }
        }
        #expect(try await fixture.store.request("note.show", args: ["date": "2026-11-23"])["mood"] == .null)
        await fixture.close()
    }

    @Test("no template writes a value unescaped ({{{ }}} or {{& }})")
    func templatesEscape() throws {
        let folder = Self.templates
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".mustache")
        }
        #expect(names.count == 22)
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains("{{{"), "\(name)")
            #expect(!text.contains("{{&"), "\(name)")
        }
    }

    /// The templates in the source tree.
    static var templates: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Services/Web/WebService/Templates")
    }
}
