import ArgumentParser
import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import StoreService

/// `hearth-bench scheduler`: how late reminders pop up, how fast a month of todos expands, and
/// how fast the scheduler starts with many reminders pending.
struct SchedulerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scheduler",
        abstract: "Reminder lateness, a month's occurrences of 10,000 todos, scheduler start with 10,000 reminders.",
        discussion: """
            Real hearth-bus, hearth-store, hearth-scheduler and hearth-notifier processes on a \
            temporary home (household clock UTC) and a private D-Bus session with \
            hearth-notification-test-server. (1) late: reminders due at whole seconds, --per-second \
            of them in each second, each measured from its due time to the Notify call's receipt \
            stamp at the server (target p99 ≤ 10 ms), and to its `reminder.due` event on the bus \
            (the scheduler's own part). Then the floor, raw_gdbus: the same bursts sent to the \
            same server straight from this process with GDBus, no Hearth between the clock and \
            the bus (late_p99_ratio is Hearth's p99 over it). (2) occurrences: 10,000 todos (1,000 \
            recurring: daily, weekly, monthly, yearly) imported into the store, then the todos of \
            next month read from its database as the calendar reads them (TodoAgenda), against raw \
            SQLite reading the same rows (target ≤ 50 ms). (3) start: hearth-scheduler started on \
            that store, timed until its ping reports all 10,000 reminders loaded (target < 1 s).
            """)

    @Option(help: "Reminders measured for lateness.") var reminders = 1_000
    @Option(help: "Reminders due in each second.") var perSecond = 20
    @Option(help: "Todos for the occurrence and start figures.") var todos = 10_000
    @Flag(help: "Print only the JSON report.") var json = false

    func run() async throws {
        let session = try await DBusSession(notificationServer: true)
        guard let server = session.server else { throw ValidationError("the notification test server did not start") }
        let context = try ZMQContext()
        let environment = session.environment.merging(ServiceProcesses.quiet) { $1 }
            .merging(["HEARTH_TIME_ZONE": "UTC"]) { $1 }

        // (1) Lateness, with the whole stack.
        let stack = try await TestStack(
            [.bus, .store, .scheduler, .notifier], environment: environment, context: context)
        let store = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(10))
        let seconds = (reminders + perSecond - 1) / perSecond
        log("(1) \(reminders) reminders, \(perSecond) due in each of \(seconds) seconds…")
        let first = (Date().timeIntervalSince1970 + 4).rounded(.up)
        var operations: [JSONValue] = []
        let author = UUIDText.make()
        let collection = UUIDText.make()
        operations.append(
            Self.operation(author, 1, Todos.collectionKind, collection, ["name": "Bench", "kind": "list"]))
        for index in 0..<reminders {
            let due = Date(timeIntervalSince1970: first + Double(index / perSecond))
            let (date, time) = Self.utc(due)
            operations.append(
                Self.operation(
                    author, UInt64(index + 2), Todos.todoKind, UUIDText.make(),
                    [
                        "collection": .string(collection), "title": .string("Late \(index)"), "due_date": .string(date),
                        "due_time": .string(time), "remind": true, "repeat": "none", "priority": "none",
                        "completed": false,
                    ]))
        }
        // The scheduler's own part: due time to `reminder.due` on the bus.
        let subscriber = try Subscriber(
            context: context, endpoint: stack.configuration.busSubscribeEndpoint, prefixes: ["reminder.due"])
        let bus = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.bus), timeout: .milliseconds(500))
        _ = await subscriber.waitUntilSubscribed(bus: bus, timeout: .seconds(5))
        await bus.close()
        let onBus = Task { [reminders] in
            var lateness: [Double] = []
            for await message in subscriber {
                guard case .event(_, let envelope) = message,
                    let due = envelope.data["reminder"]?["due"]?.stringValue.flatMap(Timestamp.parse)
                else { continue }
                lateness.append(Date().timeIntervalSince(due) * 1_000)
                if lateness.count == reminders { break }
            }
            return lateness
        }
        try await Self.importAll(operations, into: store)
        let mark = server.output.count
        _ = await server.output.waitForLines(
            reminders, timeout: .seconds(Int64(seconds) + 30), from: mark
        ) { $0.contains("\"summary\": \"Late ") }
        let lateness = try Self.lateness(
            of: "Late ", in: server.output.lines[mark...], first: first, perSecond: perSecond)
        let late = Percentiles(lateness)
        await subscriber.close()
        let busLate = Percentiles(await onBus.value)
        log(
            "    p50 \(String(format: "%.3f", late.p50)) ms, p99 \(String(format: "%.3f", late.p99)) ms, shown \(lateness.count); on the bus p50 \(String(format: "%.3f", busLate.p50)) ms, p99 \(String(format: "%.3f", busLate.p99)) ms"
        )
        await store.close()
        _ = await stack.stop()

        // (1b) The floor: the same bursts sent straight from this process to the same server.
        log("(1b) raw: the same bursts sent with GDBus from this process…")
        let rawFirst = (Date().timeIntervalSince1970 + 1).rounded(.up)
        let rawMark = server.output.count
        try await RawNotifyBurst.send(count: reminders, perSecond: perSecond, first: rawFirst, address: session.address)
        _ = await server.output.waitForLines(reminders, timeout: .seconds(30), from: rawMark) {
            $0.contains("\"summary\": \"Raw ")
        }
        let rawLateness = try Self.lateness(
            of: "Raw ", in: server.output.lines[rawMark...], first: rawFirst, perSecond: perSecond)
        let rawLate = Percentiles(rawLateness)
        log(
            "    p50 \(String(format: "%.3f", rawLate.p50)) ms, p99 \(String(format: "%.3f", rawLate.p99)) ms, shown \(rawLateness.count)"
        )

        // (2) Occurrences of 10,000 todos over a month, and (3) the scheduler's start.
        let bulk = try await TestStack([.bus, .store], environment: environment, context: context)
        let bulkStore = CommandClient(
            context: context, endpoint: bulk.configuration.commandEndpoint(.store), timeout: .seconds(30))
        log("(2) importing \(todos) todos (\(todos / 10) recurring)…")
        try await Self.importAll(Self.household(todos: todos), into: bulkStore)
        await bulkStore.close()
        let database = try DatabaseQueue(
            path: bulk.home.path + "/hearth.sqlite",
            configuration: { () -> GRDB.Configuration in
                var configuration = GRDB.Configuration()
                configuration.readonly = true
                return configuration
            }())
        let month = Self.nextMonth()
        var agendaTimes: [Double] = []
        var rawTimes: [Double] = []
        var items = 0
        for _ in 0..<7 {
            let started = DispatchTime.now().uptimeNanoseconds
            items = try await database.read { db in
                try TodoAgenda.read(from: month.from, through: month.through, collection: nil, in: db).count
            }
            agendaTimes.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
            let rawStarted = DispatchTime.now().uptimeNanoseconds
            _ = try await database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT id, due_date, title, due_time, priority, collection, repeat, until FROM todo"
                ).count
            }
            rawTimes.append(Double(DispatchTime.now().uptimeNanoseconds - rawStarted) / 1e6)
        }
        let occurrences = agendaTimes.sorted()[agendaTimes.count / 2]
        let raw = rawTimes.sorted()[rawTimes.count / 2]
        log(
            "    \(items) items in \(month.from)…\(month.through): \(String(format: "%.2f", occurrences)) ms (raw scan \(String(format: "%.2f", raw)) ms)"
        )

        log("(3) starting hearth-scheduler with \(todos) pending reminders…")
        let started = ContinuousClock.now
        let scheduler = try await TestStack.start(.scheduler, environment: bulk.environment)
        let ping = CommandClient(
            context: context, endpoint: bulk.configuration.commandEndpoint(.scheduler), timeout: .milliseconds(200),
            attempts: 1)
        var loaded = false
        while !loaded && ContinuousClock.now - started < .seconds(30) {
            loaded = (try? await ping.request("ping"))?["reminders"]?.intValue == Int64(todos)
        }
        let start = ContinuousClock.now - started
        let startSeconds = Double(start.components.seconds) + Double(start.components.attoseconds) / 1e18
        log("    loaded: \(loaded) in \(String(format: "%.3f", startSeconds)) s")
        await ping.close()
        scheduler.signal(SIGTERM)
        _ = await scheduler.waitForExit(timeout: .seconds(3))
        _ = await bulk.stop()
        await context.terminate()

        let report: JSONValue = [
            "late_p50_ms": .double(round3(late.p50)), "late_p99_ms": .double(round3(late.p99)),
            "reminders": .int(Int64(reminders)), "shown": .int(Int64(lateness.count)),
            "per_second": .int(Int64(perSecond)),
            "bus_late_p50_ms": .double(round3(busLate.p50)), "bus_late_p99_ms": .double(round3(busLate.p99)),
            "raw_gdbus_late_p50_ms": .double(round3(rawLate.p50)),
            "raw_gdbus_late_p99_ms": .double(round3(rawLate.p99)), "raw_shown": .int(Int64(rawLateness.count)),
            "late_p99_ratio": .double(round3(late.p99 / max(rawLate.p99, 0.001))),
            "occurrences_10k_ms": .double(round3(occurrences)), "occurrence_items": .int(Int64(items)),
            "raw_sqlite_scan_ms": .double(round3(raw)),
            "occurrences_ratio": .double(round3(occurrences / max(raw, 0.001))),
            "start_10k_s": .double(round3(loaded ? startSeconds : -1)), "todos": .int(Int64(todos)),
            "targets": ["late_p99_ms": 10, "occurrences_10k_ms": 50, "start_10k_s": 1],
        ]
        print(report.jsonText)
    }

    /// Each popup titled `title` followed by its number, from its due time (`perSecond` due at
    /// each whole second from `first`) to its `Notify` call's arrival at the server, in ms.
    static func lateness(
        of title: String, in lines: ArraySlice<String>, first: Double, perSecond: Int
    ) throws -> [Double] {
        var lateness: [Double] = []
        for line in lines where line.contains("\"summary\": \"\(title)") {
            guard let call = try? JSONValue.parse(line), let summary = call["summary"]?.stringValue,
                let index = Int(summary.dropFirst(title.count))
            else { continue }
            lateness.append((try NotifyStamps(call).arrived - (first + Double(index / perSecond))) * 1_000)
        }
        return lateness
    }

    /// One operation as an export file carries it, by a device of the benchmark's own, signed
    /// with its key.
    static func operation(
        _ device: String, _ counter: UInt64, _ kind: String, _ id: String, _ fields: [String: JSONValue]
    ) -> JSONValue {
        TestHousehold.signed(
            [
                "id": .string("\(device):\(counter)"),
                "time": ["wall": .int(Int64(Date().timeIntervalSince1970 * 1000)), "logical": .int(Int64(counter))],
                "entity": ["kind": .string(kind), "id": .string(id)],
                "fields": .object(fields.mapValues { ["value": $0, "overwrites": []] }),
            ])
    }

    /// Imports `operations` in pages the bus carries, after trusting their authors' keys (as
    /// pairing does).
    static func importAll(_ operations: [JSONValue], into store: CommandClient) async throws {
        let authors = Set(operations.compactMap { $0["id"]?.stringValue?.split(separator: ":").first.map(String.init) })
        try await TestHousehold.trust(authors.sorted(), store: store)
        // Pages by size, under the smallest command limit a benchmark sets (256 KiB): a signed
        // operation is about 650 bytes, so 400 of them went over it.
        var page: [JSONValue] = []
        var bytes = 0
        for operation in operations {
            let size = operation.jsonText.utf8.count + 1
            if bytes + size > 200_000, !page.isEmpty {
                _ = try await store.request("ops.import", args: ["format": "hearth-ops/2", "operations": .array(page)])
                (page, bytes) = ([], 0)
            }
            page.append(operation)
            bytes += size
        }
        if !page.isEmpty {
            _ = try await store.request("ops.import", args: ["format": "hearth-ops/2", "operations": .array(page)])
        }
    }

    /// A household's todos: one in ten recurring (from up to two years back), the rest one-off
    /// and due over the coming year, every one with a reminder.
    static func household(todos: Int) -> [JSONValue] {
        let author = UUIDText.make()
        let collection = UUIDText.make()
        var random = SplitMix(seed: 2026)
        let today = LocalDate(Date(), in: TimeZone(identifier: "UTC")!)
        var operations = [
            operation(author, 1, Todos.collectionKind, collection, ["name": "Household", "kind": "plan"])
        ]
        let frequencies = ["daily", "weekly", "monthly", "yearly"]
        for index in 0..<todos {
            let recurring = index % 10 == 0
            let due =
                recurring
                ? today.adding(days: -Int.random(in: 0...730, using: &random))
                : today.adding(days: Int.random(in: 1...365, using: &random))
            let time = String(
                format: "%02d:%02d:00", Int.random(in: 6...21, using: &random),
                5 * Int.random(in: 0...11, using: &random))
            operations.append(
                operation(
                    author, UInt64(index + 2), Todos.todoKind, UUIDText.make(),
                    [
                        "collection": .string(collection), "title": .string("Todo \(index)"),
                        "due_date": .string(due.description), "due_time": .string(time), "remind": true,
                        "repeat": .string(recurring ? frequencies[(index / 10) % 4] : "none"),
                        "priority": .string(["high", "medium", "low", "none"][index % 4]), "completed": false,
                    ]))
        }
        return operations
    }

    static func nextMonth() -> (from: LocalDate, through: LocalDate) {
        let today = LocalDate(Date(), in: TimeZone(identifier: "UTC")!)
        let year = today.month == 12 ? today.year + 1 : today.year
        let month = today.month == 12 ? 1 : today.month + 1
        return (
            LocalDate(year: year, month: month, day: 1)!,
            LocalDate(year: year, month: month, day: YearPlanner.days(inMonth: month, year: year))!
        )
    }

    static func utc(_ instant: Date) -> (date: String, time: String) {
        let seconds = Int(instant.timeIntervalSince1970)
        let date = LocalDate(dayNumber: Int((Double(seconds) / 86_400).rounded(.down)))
        let into = ((seconds % 86_400) + 86_400) % 86_400
        return (date.description, String(format: "%02d:%02d:%02d", into / 3600, into / 60 % 60, into % 60))
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
