import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Synchronization

/// `hearth-bench web`: the household page under 50 concurrent clients, and how fast a bus change
/// reaches open pages.
struct WebBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Page latency under 50 concurrent clients (wrk) and bus event → open page latency.",
        discussion: """
            A real stack (bus, store, turn, sync and hearth-web processes) with a year of cards \
            and suggestions and a day of 30 todos. (a) wrk (Debian's) with 50 connections on \
            loopback for --seconds on each of /year and /today while the view's data changes every \
            --change-every ms (a card's title; a todo ticked and unticked), so the view is read \
            from the store and rendered again after each change; and on /assets/hearth.css (the same server answering from \
            memory: the HTTP floor, measured in the same run): `page_p99_ms` is the worse of the \
            two views' p99 (target ≤ 20 ms). (b) 50 pages connected to /events; --events bus \
            events on `store.event_card.changed` published 10 ms apart: `live_p99_ms` is the p99, \
            over every page and event, of the time from publishing to the page's change line \
            arriving (target ≤ 50 ms).
            """
    )

    @Option(help: "Seconds of load on each address.") var seconds = 5
    @Option(help: "Concurrent clients.") var clients = 50
    @Option(help: "Bus events for the live measurement.") var events = 200
    @Option(help: "Milliseconds between changes to the view under load.") var changeEvery = 100
    @Flag(help: "Print only the JSON report.") var json = false

    func run() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
            throw ValidationError("wrk is missing: `make bench` installs it (deploy/bootstrap test)")
        }
        let context = try ZMQContext()
        let stack = try await TestStack(
            [.bus, .store, .turn, .sync, .web],
            environment: ServiceProcesses.quiet.merging(["HEARTH_TIME_ZONE": "UTC"]) { $1 },
            context: context)
        let store = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(10))
        // Where it listens (ping answers once the server does).
        let web = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.web), timeout: .seconds(10), attempts: 1)
        guard let url = try await web.request("ping")["url"]?.stringValue,
            let port = Int(url.split(separator: ":").last ?? "")
        else {
            throw ValidationError("hearth-web did not say where it listens")
        }
        log("seeding a year of cards and a day of todos…")
        let today = LocalDate(Date(), in: TimeZone(identifier: "UTC")!)
        for month in 1...12 {
            _ = try await store.request(
                "event.set",
                args: [
                    "year": .int(Int64(today.year)), "month": .int(Int64(month)),
                    "title": .string("Month \(month) outing"),
                    "location": "Town hall", "day": .int(Int64(month + 3)),
                ])
        }
        for month in 1...3 {
            _ = try await store.request(
                "event.suggest",
                args: ["year": .int(Int64(today.year)), "month": .int(Int64(month)), "title": "Another idea"])
        }
        _ = try await store.request("collection.add", args: ["name": "Chores", "kind": "list"])
        _ = try await store.request("collection.add", args: ["name": "Habits", "kind": "habit"])
        for index in 0..<30 {
            _ = try await store.request(
                "todo.add",
                args: [
                    "title": .string("Todo \(index)"), "collection": index % 2 == 0 ? "Chores" : "Habits",
                    "due": .string(today.description), "repeat": index % 2 == 0 ? "none" : "daily",
                ])
        }

        var pages: [String: JSONValue] = [:]
        let todo = try await store.request(
            "todo.add",
            args: ["title": "Ticked during the load", "collection": "Chores", "due": .string(today.description)])
        let todoID = todo["todo"]?["id"]?.stringValue ?? ""
        for path in ["/year", "/today", "/assets/hearth.css"] {
            log(
                "(a) wrk: \(clients) connections on \(path) for \(seconds) s, a change to its view every \(changeEvery) ms…"
            )
            // The household keeps changing what the view shows, so that it is rendered again
            // (from the store's replies) after each change, as at home.
            let changing = Task {
                var changes = 0
                while !Task.isCancelled {
                    if path == "/year" {
                        _ = try? await store.request(
                            "event.set",
                            args: ["year": .int(Int64(today.year)), "month": 6, "title": .string("Change \(changes)")])
                    } else if path == "/today" {
                        _ = try? await store.request(
                            changes % 2 == 0 ? "todo.done" : "todo.undone",
                            args: ["id": .string(todoID), "date": .string(today.description)])
                    }
                    changes += 1
                    try? await Task.sleep(for: .milliseconds(changeEvery))  // pacing, not synchronisation
                }
                return changes
            }
            var result = try await Self.wrk(url + path, clients: clients, seconds: seconds)
            changing.cancel()
            let changes = await changing.value
            if path != "/assets/hearth.css", case .object(var values) = result {
                values["changes"] = .int(Int64(changes))
                result = .object(values)
            }
            pages[path] = result
            log(
                "    p50 \(result["p50_ms"]?.doubleValue ?? 0) ms, p99 \(result["p99_ms"]?.doubleValue ?? 0) ms, "
                    + "\(result["requests_per_s"]?.doubleValue ?? 0) requests/s")
        }
        let pageP99 = max(pages["/year"]?["p99_ms"]?.doubleValue ?? 0, pages["/today"]?["p99_ms"]?.doubleValue ?? 0)

        log("(c) the calendar feed of a family of four: a year of cards, todos, check-ins, four timetables…")
        let monday = SchoolCalendar.monday(of: today)
        _ = try await store.request("timetable.configure", args: ["week1_start": .string(monday.description)])
        _ = try await store.request(
            "timetable.bells",
            args: ["bells": ["1=09:00-10:00", "2=10:00-11:00", "3=11:15-12:15", "4=13:15-14:15", "5=14:15-15:15"]])
        for (index, name) in ["Mum", "Dad", "Ann", "Bob"].enumerated() {
            _ = try await store.request(
                "member.add", args: ["name": .string(name), "role": index < 2 ? "parent" : "student"])
            guard index >= 2 else { continue }
            var rows: [String] = []
            for week in 1...2 {
                for day in ["Mon", "Tue", "Wed", "Thu", "Fri"] {
                    for period in 1...5 {
                        rows.append("\(week),\(day),\(period),Subject \(period),T\(period),R\(period)")
                    }
                }
            }
            _ = try await store.request(
                "timetable.import",
                args: ["member": .string(name), "csv": .string(rows.joined(separator: "\n")), "confirm": true])
        }
        let feedURL = url + "/calendar.ics"
        // A card changes every `changeEvery` ms, as under the pages: each change is a new render.
        let changingFeed = Task {
            var changes = 0
            while !Task.isCancelled {
                _ = try? await store.request(
                    "event.set",
                    args: ["year": .int(Int64(today.year)), "month": 7, "title": .string("Feed \(changes)")])
                changes += 1
                try? await Task.sleep(for: .milliseconds(changeEvery))  // pacing, not synchronisation
            }
            return changes
        }
        var feed = try await Self.wrk(feedURL, clients: clients, seconds: seconds)
        changingFeed.cancel()
        if case .object(var values) = feed {
            values["changes"] = .int(Int64(await changingFeed.value))
            feed = .object(values)
        }
        log("    200: p50 \(feed["p50_ms"]?.doubleValue ?? 0) ms, p99 \(feed["p99_ms"]?.doubleValue ?? 0) ms")
        let tagged = try await ChildProcess.run(
            "/usr/bin/python3",
            ["-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).headers['ETag'])", feedURL])
        let tag = tagged.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let notModified = try await Self.wrk(
            feedURL, clients: clients, seconds: seconds, headers: ["If-None-Match: \(tag)"])
        log(
            "    304: p50 \(notModified["p50_ms"]?.doubleValue ?? 0) ms, p99 \(notModified["p99_ms"]?.doubleValue ?? 0) ms"
        )

        log("(b) \(clients) pages on /events, \(events) bus events…")
        let publisher = try Publisher(
            context: context, endpoint: stack.configuration.busPublishEndpoint, source: "bench", device: "bench")
        let live = try await Self.live(port: port, pages: clients, events: events, publisher: publisher)
        log("    p50 \(round3(live.p50)) ms, p99 \(round3(live.p99)) ms")
        await publisher.close()
        await store.close()
        await web.close()
        _ = await stack.stop()
        await context.terminate()

        let report: JSONValue = [
            "benchmark": "web", "clients": .int(Int64(clients)), "seconds_per_address": .int(Int64(seconds)),
            "year": pages["/year"] ?? .null, "today": pages["/today"] ?? .null,
            "static_floor": pages["/assets/hearth.css"] ?? .null,
            "page_p99_ms": .double(round3(pageP99)), "page_target_ms": 20,
            "feed": feed, "feed_not_modified": notModified, "feed_p99_ms": feed["p99_ms"] ?? .null,
            "feed_304_p99_ms": notModified["p99_ms"] ?? .null, "feed_target_ms": 20,
            "live": live.json, "live_p99_ms": .double(round3(live.p99)), "live_target_ms": 50,
            "live_events": .int(Int64(events)), "live_pages": .int(Int64(clients)),
        ]
        print(report.jsonText)
    }

    /// Runs wrk and reads its latency distribution and rate.
    static func wrk(_ url: String, clients: Int, seconds: Int, headers: [String] = []) async throws -> JSONValue {
        let result = try await ChildProcess.run(
            "/usr/bin/wrk",
            ["-t2", "-c\(clients)", "-d\(seconds)s", "--latency"] + headers.flatMap { ["-H", $0] } + [url],
            timeout: .seconds(seconds + 30))
        guard result.status == 0 else { throw ValidationError("wrk failed: \(result.stderr)") }
        var values: [String: JSONValue] = [:]
        for line in result.stdout.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count == 2, let label = ["50%": "p50_ms", "90%": "p90_ms", "99%": "p99_ms"][String(fields[0])] {
                values[label] = .double(round3(milliseconds(String(fields[1]))))
            }
            if fields.first == "Requests/sec:", fields.count == 2 {
                values["requests_per_s"] = .double(Double(fields[1]) ?? 0)
            }
            if line.contains("Non-2xx or 3xx responses:") { values["errors"] = .string(String(line)) }
        }
        return .object(values)
    }

    /// wrk's `1.23ms`, `850.00us`, `1.02s` in milliseconds.
    static func milliseconds(_ text: String) -> Double {
        for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1_000.0)] where text.hasSuffix(unit) {
            return (Double(text.dropLast(unit.count)) ?? .nan) * scale
        }
        return .nan
    }

    /// Connects `pages` event streams, publishes `events` bus events and times each one's arrival
    /// at every page (the k-th change line a page reads is the k-th event: the feed keeps order).
    static func live(port: Int, pages: Int, events: Int, publisher: Publisher) async throws -> Percentiles {
        let reader = try EventStreamReader(port: port, connections: pages, expected: events)
        try await reader.waitUntilConnected(timeout: .seconds(10))
        var sent: [ContinuousClock.Instant] = []
        for index in 0..<events {
            sent.append(.now)
            _ = try publisher.publish(
                topic: "store.event_card.changed", type: "bench", data: ["index": .int(Int64(index))])
            try await Task.sleep(for: .milliseconds(10))  // pacing, not synchronisation
        }
        let arrivals = try await reader.finish(timeout: .seconds(10))
        var samples: [Double] = []
        for page in arrivals {
            for (index, arrival) in page.enumerated() where index < sent.count {
                samples.append((arrival - sent[index]).seconds * 1_000)
            }
        }
        guard samples.count == pages * events else {
            throw ValidationError("only \(samples.count) of \(pages * events) page updates arrived")
        }
        return Percentiles(samples)
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
