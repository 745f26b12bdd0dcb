import AsyncHTTPClient
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

            let request = HTTPClientRequest(url: "\(url)/events")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-type") == "text/event-stream")
            var body = response.body.makeAsyncIterator()
            var received = ""
            /// Reads the stream until `text` has arrived (bounded by the test's time limit);
            /// `false` if the stream ended first.
            func read(until text: String) async throws -> Bool {
                while !received.contains(text), let chunk = try await body.next() {
                    received += String(buffer: chunk)
                }
                return received.contains(text)
            }
            #expect(try await read(until: "event: hello"))
            _ = try await fixture.store.request("event.set", args: ["year": 2026, "month": 5, "title": "Fete"])
            #expect(try await read(until: "data: {\"area\":\"year\"}"))
            _ = try await fixture.store.request("collection.add", args: ["name": "Chores", "kind": "list"])
            #expect(try await read(until: "data: {\"area\":\"today\"}"))
            #expect(received.contains("event: change\ndata: {\"area\":\"year\"}\n\n"))
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
