import Foundation
import HTTPTypes
import HearthBus
import HearthCore
import HearthTesting
import NIOCore
import Testing

@testable import WebService

@Suite("Web: live updates", .timeLimit(.minutes(2)))
struct WebLiveTests {
    @Test("an open page's event stream names the area of each bus change: a card → year, a todo → today")
    func liveStream() async throws {
        let fixture = try await WebFixture()
        try await withRunning([fixture.web]) {
            // The server's address (ping answers once it listens).
            let commands = CommandClient(
                context: fixture.context, endpoint: fixture.stack.configuration.commandEndpoint(.web),
                timeout: .seconds(10), attempts: 1)
            let address = try await commands.request("ping")["url"]?.stringValue
            await commands.close()
            let url = try #require(address)
            #expect(url.hasPrefix("http://127.0.0.1:"))

            // A browser's EventSource, as curl reads it: the stream as it comes (-N), headers first.
            let stream = try await ChildProcess(
                "/usr/bin/curl", ["-sN", "--max-time", "60", "-D", "-", "\(url)/events"])
            defer { stream.signal(SIGTERM) }
            #expect(await stream.output.waitForLine { $0.hasPrefix("HTTP/1.1 200") } != nil)
            #expect(
                await stream.output.waitForLine { $0.lowercased().hasPrefix("content-type: text/event-stream") }
                    != nil)
            #expect(await stream.output.waitForLine { $0 == "event: hello" } != nil)
            _ = try await fixture.store.request("event.set", args: ["year": 2026, "month": 5, "title": "Fete"])
            #expect(await stream.output.waitForLine { $0 == "data: {\"area\":\"year\"}" } != nil)
            _ = try await fixture.store.request("collection.add", args: ["name": "Chores", "kind": "list"])
            #expect(await stream.output.waitForLine { $0 == "data: {\"area\":\"today\"}" } != nil)
            let lines = stream.output.lines
            let year = try #require(lines.firstIndex(of: "data: {\"area\":\"year\"}"))
            #expect(year > 0 && lines[year - 1] == "event: change", "\(lines)")
        }
        await fixture.close()
    }

    @Test("the feed takes at most 512 pages, gives each every line, and ends them all when it closes")
    func feedLimits() async throws {
        let feed = LiveFeed()
        var connections: [(id: Int, lines: LiveFeed.Stream)] = []
        for _ in 0..<LiveFeed.maximumPages { connections.append(try #require(await feed.connect())) }
        #expect(await feed.connect() == nil)
        await feed.remove(connections.removeLast().id)
        connections.append(try #require(await feed.connect()))
        await feed.broadcast("line\n\n")
        await feed.close()
        for connection in connections.prefix(3) {
            var lines: [String] = []
            for await line in connection.lines { lines.append(line) }
            #expect(lines == ["line\n\n"])
        }
        // A page connecting after the close gets a finished stream (the server is stopping).
        let late = try #require(await feed.connect())
        var count = 0
        for await _ in late.lines { count += 1 }
        #expect(count == 0)
    }

    @Test("bus topics map to the page's areas")
    func areas() {
        #expect(LiveFeed.area(of: "store.event_card.changed") == "year")
        #expect(LiveFeed.area(of: "store.suggestion.changed") == "year")
        #expect(LiveFeed.area(of: "store.todo_completion.changed") == "today")
        #expect(LiveFeed.area(of: "store.timetable_entry.changed") == "timetable")
        #expect(LiveFeed.area(of: "store.person.changed") == "people")
        #expect(LiveFeed.area(of: "store.device.changed") == "devices")
        #expect(LiveFeed.area(of: "turn.ABC-D.changed") == "game")
        #expect(LiveFeed.area(of: "sync.completed") == "devices")
        #expect(LiveFeed.area(of: "health.bus") == nil)
        // Every kind of every domain in the one list, and nothing for a kind no domain keeps.
        for domain in HouseholdDomains.all {
            for kind in domain.entityKinds {
                #expect(LiveFeed.area(of: "store.\(kind).changed") == domain.area, "\(kind)")
            }
        }
        #expect(LiveFeed.area(of: "store.bank_account.changed") == nil)
    }
}
