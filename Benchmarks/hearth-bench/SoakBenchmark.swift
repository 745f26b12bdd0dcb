import ArgumentParser
import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Synchronization

/// `hearth-bench soak`: the whole stack for a long while under steady mixed traffic, watching
/// each service's memory and open files and counting lost events and failed commands.
struct SoakBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "The whole stack with the demo and 100 events/s of mixed traffic; RSS, fds, losses.",
        discussion: """
            Starts every service of the Procfile on a temporary home and a private D-Bus session with \
            the notification test server, runs deploy/demo beside it (cards, a suggestion, a habit \
            reminder, a timetable, a board game passing the turn every 5 s), and sends --rate \
            messages a second: nine in ten are events published on the bus (counted back by seq), \
            one in ten a command to a service (cards, todos, notes, a lesson, pings). Every --sample \
            seconds it reads each service's RSS, open file descriptors and CPU time from /proc. Growth is \
            measured from the first sample after the warm-up (5 minutes, or a quarter of a shorter \
            run) to the last. Targets for 60 minutes: RSS within ±5%, no lost event, no failed command.
            """)

    @Option(help: "How long to run.") var minutes = 2.0
    @Option(help: "Messages a second (events and commands).") var rate = 100
    @Option(help: "Seconds between samples.") var sample = 10
    @Option(help: "The repository (for deploy/); found from the executable by default.") var repository: String?
    @Flag(help: "Print only the JSON report.") var json = false

    func run() async throws {
        let root = try repository ?? NotifyBenchmark.findRepository()
        let session = try await DBusSession(notificationServer: true)
        let context = try ZMQContext()
        let stack = try await TestStack(
            HearthService.launched, environment: session.environment.merging(ServiceProcesses.quiet) { $1 },
            context: context)
        let demo = try await ChildProcess(
            "\(root)/deploy/demo",
            environment: stack.environment.merging(["HEARTH_BIN_DIR": ChildProcess.binaryDirectory]) { $1 })
        let clients = try await Clients.make(context: context, configuration: stack.configuration)

        let counts = Counts()
        let subscriber = try Subscriber(
            context: context, endpoint: stack.configuration.busSubscribeEndpoint, prefixes: ["soak.", "store."])
        let bus = CommandClient(context: context, endpoint: stack.configuration.commandEndpoint(.bus))
        guard await subscriber.waitUntilSubscribed(bus: bus, timeout: .seconds(10)) else {
            throw ValidationError("the bus never confirmed the subscription")
        }
        await bus.close()
        let listening = Task {
            for await message in subscriber {
                switch message {
                case .event(let topic, _): if topic.hasPrefix("soak.") { counts.received.add(1, ordering: .relaxed) }
                case .gap(let gap): counts.lost.add(Int(gap.received - gap.expected), ordering: .relaxed)
                case .rejected: counts.rejected.add(1, ordering: .relaxed)
                }
            }
        }
        let publisher = try Publisher(
            context: context, endpoint: stack.configuration.busPublishEndpoint, source: "soak", device: "device-soak")
        guard await publisher.waitUntilConnected(timeout: .seconds(5)) else { throw ValidationError("no bus") }

        let pids = stack.processes.mapValues(\.pid)
        let sampler = Sampler(pids: Dictionary(uniqueKeysWithValues: pids.map { ($0.key.rawValue, $0.value) }))
        sampler.start(every: sample)
        let duration = Duration.milliseconds(Int64(minutes * 60_000))
        log("soak: \(minutes) min at \(rate) messages/s; sampling every \(sample) s…")

        // Pacing, not synchronisation: each message has its moment on the clock.
        let clock = ContinuousClock()
        let start = clock.now
        let interval = Duration.nanoseconds(1_000_000_000 / Int64(max(1, rate)))
        var index = 0
        try await withThrowingDiscardingTaskGroup { group in
            while clock.now - start < duration {
                if index % 10 == 9 {
                    let number = index / 10
                    group.addTask { await clients.command(number, counts: counts) }
                } else {
                    do {
                        _ = try publisher.publish(
                            topic: "soak.tick", type: "soak.tick", data: ["n": .int(Int64(index))])
                        counts.sent.add(1, ordering: .relaxed)
                    } catch {
                        counts.publishFailed.add(1, ordering: .relaxed)
                    }
                }
                index += 1
                try await Task.sleep(until: start + interval * index)
                if index % (rate * 60) == 0 { log("soak: \(index / rate / 60) min") }
            }
        }
        // Bounded drain: what was sent has arrived, or five seconds passed.
        let drained = clock.now
        while counts.received.load(ordering: .relaxed) < counts.sent.load(ordering: .relaxed)
            && clock.now - drained < .seconds(5)
        {
            try await Task.sleep(for: .milliseconds(50))
        }
        sampler.stop()
        let samples = sampler.samples
        let demoRan = demo.isRunning
        demo.signal(SIGTERM)
        _ = await demo.waitForExit(timeout: .seconds(5))
        listening.cancel()
        await subscriber.close()
        await publisher.close()
        await clients.close()
        let statuses = await stack.stop(timeout: .seconds(5))
        await context.terminate()

        let warmup = min(300.0, minutes * 60 / 4)
        var services: [String: JSONValue] = [:]
        for name in pids.keys.map(\.rawValue).sorted() {
            let mine = samples.filter { $0.service == name }
            guard let base = mine.first(where: { $0.seconds >= warmup }) ?? mine.last, let end = mine.last,
                let first = mine.first
            else { continue }
            services[name] = [
                "rss_start_kb": .int(Int64(first.rssKB)), "rss_base_kb": .int(Int64(base.rssKB)),
                "rss_end_kb": .int(Int64(end.rssKB)), "rss_max_kb": .int(Int64(mine.map(\.rssKB).max() ?? 0)),
                "rss_growth_pct": .double(round3(Double(end.rssKB - base.rssKB) / Double(max(base.rssKB, 1)) * 100)),
                "fds_base": .int(Int64(base.fds)), "fds_end": .int(Int64(end.fds)),
                // CPU from the first sample to the last: what the traffic, the demo and the
                // sockets' idle spin (`bus.idle_spin_us`) cost this service.
                "cpu_s": .double(round3(end.cpuSeconds - first.cpuSeconds)),
                "cpu_pct": .double(
                    round3((end.cpuSeconds - first.cpuSeconds) / max(end.seconds - first.seconds, 1) * 100)),
                // The trend, to tell a plateau from a leak: RSS at each tenth of the run.
                "rss_kb_by_tenth": .array(
                    (1...10).compactMap { tenth in
                        mine.last { $0.seconds <= minutes * 6 * Double(tenth) }.map { .int(Int64($0.rssKB)) }
                    }),
                "exit_status": statuses[HearthService(rawValue: name)!].flatMap { $0 }.map { .int(Int64($0)) } ?? .null,
            ]
        }
        let sent = counts.sent.load(ordering: .relaxed)
        let received = counts.received.load(ordering: .relaxed)
        let report: JSONValue = [
            "minutes": .double(minutes), "rate": .int(Int64(rate)), "warmup_s": .double(warmup),
            "events_sent": .int(Int64(sent)), "events_received": .int(Int64(received)),
            "lost_events": .int(Int64(max(sent - received, 0) + counts.lost.load(ordering: .relaxed))),
            "gaps_seen": .int(Int64(counts.lost.load(ordering: .relaxed))),
            "rejected_events": .int(Int64(counts.rejected.load(ordering: .relaxed))),
            "commands": .int(Int64(counts.commands.load(ordering: .relaxed))),
            "failed_commands": .int(Int64(counts.failed.load(ordering: .relaxed))),
            "samples": .int(Int64(samples.count)), "services": .object(services), "demo_ran_throughout": .bool(demoRan),
            "targets": ["rss_growth_pct": 5, "lost_events": 0, "failed_commands": 0],
        ]
        print(report.jsonText)
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}

/// What the soak counts, from its tasks.
private final class Counts: Sendable {
    let sent = Atomic<Int>(0)
    let received = Atomic<Int>(0)
    let lost = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let publishFailed = Atomic<Int>(0)
    let commands = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
}

/// The soak's commands: one client per service, and the data they edit.
private final class Clients: Sendable {
    let store: CommandClient
    let others: [CommandClient]
    /// The todo the commands edit.
    let todo: String

    private init(store: CommandClient, others: [CommandClient], todo: String) {
        (self.store, self.others, self.todo) = (store, others, todo)
    }

    /// The clients, with a collection, a todo, a member and a lesson for the commands to edit.
    static func make(context: ZMQContext, configuration: HearthConfiguration) async throws -> Clients {
        let store = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.store), timeout: .seconds(5))
        let others = [HearthService.scheduler, .turn, .notifier, .bus].map {
            CommandClient(context: context, endpoint: configuration.commandEndpoint($0), timeout: .seconds(5))
        }
        _ = try await store.request("collection.add", args: ["name": "Soak", "kind": "list"])
        let todo = try await store.request("todo.add", args: ["title": "Soak", "collection": "Soak"])
        _ = try await store.request("member.add", args: ["name": "Soak", "role": "student"])
        _ = try await store.request(
            "timetable.add",
            args: ["member": "Soak", "week": 1, "day": "Mon", "period": 1, "subject": "Soak", "room": "R0"])
        guard let id = todo["todo"]?["id"]?.stringValue else { throw ValidationError("todo.add gave no id") }
        return Clients(store: store, others: others, todo: id)
    }

    /// Command `number` of the cycle; a failure is counted, never fatal.
    func command(_ number: Int, counts: Counts) async {
        counts.commands.add(1, ordering: .relaxed)
        do {
            switch number % 6 {
            case 0:
                _ = try await store.request(
                    "event.set",
                    args: [
                        "year": .int(Int64(2100 + number % 50)), "month": .int(Int64(number % 12 + 1)),
                        "title": .string("soak \(number)"),
                    ])
            case 1:
                _ = try await store.request(
                    "todo.edit", args: ["id": .string(todo), "title": .string("Soak \(number)")])
            case 2:
                _ = try await store.request(
                    "note.set", args: ["date": "2026-01-01", "text": .string("soak \(number)")])
            case 3:
                _ = try await store.request(
                    "timetable.edit", args: ["member": "Soak", "entry": "1 Mon 1", "room": .string("R\(number % 10)")])
            case 4: _ = try await store.request("todo.list", args: ["collection": "Soak"])
            default: _ = try await others[number % others.count].request("ping")
            }
        } catch {
            counts.failed.add(1, ordering: .relaxed)
            FileHandle.standardError.write(Data("soak: command \(number) failed: \(error)\n".utf8))
        }
    }

    func close() async {
        await store.close()
        for client in others { await client.close() }
    }
}

/// Each service's RSS and open descriptors, read from /proc on a thread of its own (file reads,
/// kept off the cooperative pool).
private final class Sampler: Sendable {
    struct Sample: Sendable {
        let service: String
        let seconds: Double
        let rssKB: Int
        let fds: Int
        /// CPU time used since the process started (user and system), in seconds.
        let cpuSeconds: Double
    }

    private let pids: [String: pid_t]
    private let state = Mutex<[Sample]>([])
    private let stopping = Atomic<Bool>(false)

    init(pids: [String: pid_t]) { self.pids = pids }

    var samples: [Sample] { state.withLock { $0 } }

    func start(every seconds: Int) {
        let started = Date()
        Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                let now = Date().timeIntervalSince(started)
                let taken = pids.map { name, pid in
                    Sample(
                        service: name, seconds: now, rssKB: Self.rss(pid), fds: Self.descriptors(pid),
                        cpuSeconds: Self.cpuSeconds(pid))
                }
                state.withLock { $0 += taken }
                // The sampling period itself, in steps so a stop is seen within 100 ms.
                for _ in 0..<(seconds * 10) where !stopping.load(ordering: .relaxed) {
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
        }.start()
    }

    func stop() { stopping.store(true, ordering: .relaxed) }

    private static func rss(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// utime + stime from /proc/PID/stat (fields 14 and 15, counted after the `(comm)` field,
    /// which may hold spaces), in seconds.
    private static func cpuSeconds(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func descriptors(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }
}
