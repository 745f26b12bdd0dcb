import ArgumentParser
import Foundation
import GRDB
import GRDBSQLite
import HearthBus
import HearthTesting

/// `hearth-bench todos`: the household search over 100,000 indexed todos, what the index costs a
/// write, and a year of statistics for 50 habits, through real hearth-store processes, beside raw
/// SQLite running the same full-text query on the same file in the same run.
struct TodosBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todos",
        abstract: "Search p99 over 100,000 indexed todos, the index's cost per write, stats for 50 habits a year.",
        discussion: """
            (a) The same batches of todo operations (`ops.import`, 250 a batch, as a sync brings \
            them) into two stores, one with the search index's triggers dropped: µs per operation \
            each, and the difference. (b) 100,000 todos (titles and descriptions of 3–8 words from \
            a 5,000-word vocabulary) in the indexed store; `search` for 1–2 word prefixes over the \
            command channel, p50 and p99, beside raw SQLite running the same MATCH, ranking and \
            limit through the C API. (c) 50 daily habits with a year of completions (4 days in \
            5): `todo.stats` for 53 weeks once (reported apart), then --stats-calls times (200: a p99 \
            of twenty calls would be only their slowest), p50, p99 and the slowest. Targets: search \
            p99 ≤ 20 ms, stats p99 ≤ 50 ms.
            """
    )

    @Option(help: "Todos in the indexed store for (b).") var rows = 100_000
    @Option(help: "Operations in each store for (a).") var writes = 12_000
    @Option(help: "Searches for (b).") var searches = 400
    @Option(help: "Habits for (c).") var habits = 50
    @Option(help: "Timed todo.stats calls for (c).") var statsCalls = 200
    @Flag(help: "Print only the JSON report.") var json = false

    static let device = "be0c0000-0000-4000-8000-0000000000d0"

    func run() async throws {
        let context = try ZMQContext()
        var random = SplitMix(seed: 46)
        let words = (0..<5_000).map { _ in Self.word(&random) }
        log("(a) \(writes) todo operations into a store with the index and one without…")
        var perOperation: [Bool: Double] = [:]
        var indexed: (stack: TestStack, commands: CommandClient, collection: String)?
        for withIndex in [false, true] {
            let stack = try await TestStack([.bus, .store], environment: ServiceProcesses.quiet, context: context)
            let commands = CommandClient(
                context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(120))
            try await TestHousehold.trust([Self.device], store: commands)
            let added = try await commands.request("collection.add", args: ["name": "Home", "kind": "list"])
            guard let collection = added["collection"]?["id"]?.stringValue else {
                throw BenchError.sqlite("no collection")
            }
            if !withIndex { try Self.dropIndex(home: stack.home.path) }
            var copy = SplitMix(seed: 7)
            let seconds = try await Self.load(
                writes, from: 0, collection: collection, words: words, random: &copy, into: commands)
            perOperation[withIndex] = seconds / Double(writes) * 1_000_000
            log(
                String(
                    format: "    %@ index: %.1f µs an operation", withIndex ? "with the" : "without the",
                    perOperation[withIndex]!))
            if withIndex {
                indexed = (stack, commands, collection)
            } else {
                await commands.close()
                _ = await stack.stop()
            }
        }
        guard let indexed else { return }
        log("(b) \(rows) todos, then \(searches) searches…")
        var copy = SplitMix(seed: 8)
        _ = try await Self.load(
            rows - writes, from: writes, collection: indexed.collection, words: words, random: &copy,
            into: indexed.commands)
        let queries = (0..<searches).map { index -> String in
            let first = String(words[Int(random.next() % UInt64(words.count))].prefix(2 + index % 4))
            return index % 3 == 0
                ? first + " " + String(words[Int(random.next() % UInt64(words.count))].prefix(3)) : first
        }
        let clock = ContinuousClock()
        var latencies: [Double] = []
        var found = 0
        for query in queries {
            let start = clock.now
            let reply = try await indexed.commands.request("search", args: ["text": .string(query)])
            latencies.append((clock.now - start).seconds * 1000)
            found += reply["results"]?.arrayValue?.count ?? 0
        }
        let raw = try Self.rawSearch(queries, path: indexed.stack.home.path + "/hearth.sqlite")
        let (p50, p99) = (Self.quantile(latencies, 0.5), Self.quantile(latencies, 0.99))
        log(
            String(
                format: "    search p50 %.2f ms, p99 %.2f ms (raw SQLite p50 %.2f, p99 %.2f)", p50, p99, raw.p50,
                raw.p99))

        log("(c) \(habits) daily habits with a year of completions, todo.stats for 53 weeks…")
        let stats = try await Self.statistics(habits, calls: statsCalls, context: context)
        log(
            String(
                format: "    stats first %.1f ms, then p50 %.1f ms, p99 %.1f ms, slowest %.1f ms", stats.first,
                stats.p50, stats.p99, stats.max))
        await indexed.commands.close()
        _ = await indexed.stack.stop()
        await context.terminate()

        let report: JSONValue = [
            "search_p50_ms": .double(round3(p50)), "search_p99_ms": .double(round3(p99)),
            "raw_fts_p50_ms": .double(round3(raw.p50)), "raw_fts_p99_ms": .double(round3(raw.p99)),
            "search_p99_ratio": .double(round3(p99 / max(raw.p99, 0.001))),
            "indexed_rows": .int(Int64(rows)), "searches": .int(Int64(searches)),
            "results_per_search": .double(round3(Double(found) / Double(max(searches, 1)))),
            "write_us_with_index": .double(round3(perOperation[true] ?? 0)),
            "write_us_without_index": .double(round3(perOperation[false] ?? 0)),
            "index_cost_us": .double(round3((perOperation[true] ?? 0) - (perOperation[false] ?? 0))),
            "stats_first_ms": .double(round3(stats.first)), "stats_p50_ms": .double(round3(stats.p50)),
            "stats_p99_ms": .double(round3(stats.p99)), "stats_max_ms": .double(round3(stats.max)),
            "stats_calls": .int(Int64(statsCalls)),
            "habits": .int(Int64(habits)), "targets": ["search_p99_ms": 20, "stats_p99_ms": 50],
        ]
        print(report.jsonText)
    }

    /// A made-up word of 3 to 9 letters, some with an accent.
    static func word(_ random: inout SplitMix) -> String {
        let syllables = ["ka", "lo", "mi", "ré", "su", "ta", "ven", "dor", "pli", "gu", "zé", "no", "bra", "chi", "fe"]
        let count = 2 + Int(random.next() % 3)
        return (0..<count).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }.joined()
    }

    /// Imports `count` todo operations (ids from `first`) in batches of 250 (under a command's 256 KiB);
    /// returns the seconds taken.
    static func load(
        _ count: Int, from first: Int, collection: String, words: [String], random: inout SplitMix,
        into commands: CommandClient
    ) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var index = first
        while index < first + count {
            var batch: [JSONValue] = []
            while batch.count < 250 && index < first + count {
                let title = (0..<(3 + Int(random.next() % 3))).map { _ in
                    words[Int(random.next() % UInt64(words.count))]
                }
                let body = (0..<(3 + Int(random.next() % 6))).map { _ in words[Int(random.next() % UInt64(words.count))]
                }
                batch.append(
                    TestHousehold.signed(
                        operation(
                            index, now: now, kind: "todo", id: uuid(index),
                            fields: [
                                "title": .string(title.joined(separator: " ")),
                                "description": .string(body.joined(separator: " ")), "collection": .string(collection),
                                "priority": "none", "repeat": "none", "month_end": "skip", "remind": false,
                                "show_in_calendar": true, "completed": false,
                            ])))
                index += 1
            }
            _ = try await commands.request("ops.import", args: ["operations": .array(batch)])
        }
        return (clock.now - start).seconds
    }
}
