import ArgumentParser
import CLibNotify
import Foundation
import HearthBus
import HearthHost
import HearthNotify
import HearthTesting

/// `hearth-bench notify`: bus event → `Notify` at a real notification server, through the real
/// `hearth-bus` and `hearth-notifier` processes on a private D-Bus session.
struct NotifyBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Latency from a published event to the Notify call at the notification server.",
        discussion: """
            Starts a private dbus-daemon with hearth-notification-test-server, then hearth-bus and \
            hearth-notifier on a temporary home. (a) raw: libnotify called in this process → Notify \
            at the server; (b) Hearth: a `turn.your-turn` event published on the bus → hearth-bus → \
            hearth-notifier → GDBus → Notify at the server. One event at a time; latency is the \
            server's receipt time (it stamps each call as GDBus reads it from the socket) minus \
            the time just before publishing. Target: (b) p99 ≤ 5 ms, every event delivered.
            """)

    @Option(help: "Events measured.") var events = 1_000
    @Option(help: "Events sent first and not measured.") var warmup = 50
    @Flag(help: "Print only the JSON report.") var json = false

    func run() async throws {
        let session = try await DBusSession(notificationServer: true)
        let server = try require(session.server, "the notification test server")
        // libnotify (the raw figure) in this process finds the private bus through the environment. Set before any
        // thread of ours reads the environment (the session's reader threads never do).
        setenv("DBUS_SESSION_BUS_ADDRESS", session.address, 1)
        let context = try ZMQContext()

        log("(a) raw libnotify → server, \(events) notifications…")
        // libnotify itself: one synchronous `notify_notification_show` a notification, on a
        // thread off the pool (hearth-notifier's own calls go through GDBus, pipelined).
        notify_init("hearth-bench")
        let raw = try await measure(server, prefix: "raw ") { index in
            try await offPool { () throws(ValidationError) in
                guard let popup = notify_notification_new("raw \(index)", nil, nil) else {
                    throw ValidationError("libnotify could not create a notification")
                }
                defer { hearth_object_unref(popup) }
                notify_notification_set_urgency(popup, NOTIFY_URGENCY_LOW)
                var error: UnsafeMutablePointer<GError>?
                guard notify_notification_show(popup, &error) != 0 else {
                    defer { g_error_free(error) }
                    throw ValidationError(
                        "libnotify: \(error.map { String(cString: $0.pointee.message) } ?? "no server")")
                }
            }
        }
        notify_uninit()
        if ProcessInfo.processInfo.environment["BENCH_DEBUG"] != nil {
            log(server.output.lines.prefix(3).joined(separator: "\n"))
        }
        log("    p50 \(format(raw.p50)) ms, p99 \(format(raw.p99)) ms")

        let stack = try await TestStack(
            [.bus, .notifier], environment: session.environment.merging(["HEARTH_LOG_LEVEL": "warning"]) { $1 },
            context: context)
        let publisher = try Publisher(
            context: context, endpoint: stack.configuration.busPublishEndpoint, source: "turn", device: "device-bench")
        guard await publisher.waitUntilConnected(timeout: .seconds(5)) else { throw ValidationError("no bus") }
        let device = try DeviceIdentity.load(home: stack.home.path)
        log("(b) event → hearth-bus → hearth-notifier → server, \(events) events…")
        let hearth = try await measure(server, prefix: "Your turn, P") { index in
            _ = try publisher.publish(
                topic: "turn.BENCH-1.your-turn", type: "turn.your-turn",
                data: [
                    "code": "BENCH-1", "seq": .int(Int64(index)), "turn": .int(Int64(index)),
                    "player": ["id": .string("p\(index)"), "name": .string("P\(index)"), "device": .string(device)],
                ])
        }
        log("    p50 \(format(hearth.p50)) ms, p99 \(format(hearth.p99)) ms, delivered \(hearth.delivered)")
        await publisher.close()
        _ = await stack.stop()
        await context.terminate()

        let report: JSONValue = [
            "p50_ms": .double(round3(hearth.p50)), "p99_ms": .double(round3(hearth.p99)),
            "delivered": .double(round3(hearth.delivered)), "events": .int(Int64(events)),
            "max_ms": .double(round3(hearth.max)),
            "raw_libnotify": [
                "p50_ms": .double(round3(raw.p50)), "p99_ms": .double(round3(raw.p99)),
                "delivered": .double(round3(raw.delivered)),
            ],
            "p99_ratio": .double(round3(hearth.p99 / max(raw.p99, 0.001))),
            "targets": ["p99_ms": 5, "delivered": 1],
        ]
        print(report.jsonText)
    }

    /// Latencies in milliseconds, and the fraction of notifications that arrived.
    struct Latencies {
        let percentiles: Percentiles
        let max: Double
        let delivered: Double
        var p50: Double { percentiles.p50 }
        var p99: Double { percentiles.p99 }
    }

    /// Sends `warmup + events` notifications one at a time, each waiting (up to 2 s) for the
    /// server's record of it, and returns the latencies of the measured ones in milliseconds.
    private func measure(
        _ server: ChildProcess, prefix: String, send: (Int) async throws -> Void
    ) async throws -> Latencies {
        var latencies: [Double] = []
        for index in 1...(warmup + events) {
            let summary = "\"summary\": \"\(prefix)\(index)\""
            let mark = server.output.count
            let sent = Date().timeIntervalSince1970
            try await send(index)
            guard
                let line = await server.output.waitForLine(
                    timeout: .seconds(2), from: mark, where: { $0.contains(summary) })
            else { continue }
            let received = try NotifyStamps(JSONValue.parse(line)).arrived
            if index > warmup { latencies.append((received - sent) * 1_000) }
        }
        return Latencies(
            percentiles: Percentiles(latencies), max: latencies.max() ?? 0,
            delivered: Double(latencies.count) / Double(events))
    }

    /// The directory above the executable that holds `deploy/`.
    static func findRepository() throws -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        while directory != "/" && !directory.isEmpty {
            directory = (directory as NSString).deletingLastPathComponent
            if FileManager.default.fileExists(atPath: directory + "/deploy/demo") {
                return directory
            }
        }
        throw ValidationError("cannot find deploy/demo above the executable; pass --repository")
    }

    private func format(_ value: Double) -> String { String(format: "%.3f", value) }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}

/// The stamps `hearth-notification-test-server` puts on a `Notify` record, in wall-clock seconds:
/// `arrived` as GDBus read the call from its socket, `handled` (`t`) as the server's method ran.
struct NotifyStamps {
    let arrived: Double
    let handled: Double

    /// - Throws: `ValidationError` when a stamp is missing: the record is not from this server's
    ///   version, and counting it as undelivered would misreport delivery.
    init(_ record: JSONValue) throws {
        guard let arrived = record["arrived"]?.doubleValue, let handled = record["t"]?.doubleValue else {
            throw ValidationError("a Notify record without its 'arrived' and 't' stamps: \(record.jsonText)")
        }
        (self.arrived, self.handled) = (arrived, handled)
    }
}

/// `#require` for a command-line tool: the value, or a clear error naming what was missing.
private func require<T>(_ value: T?, _ what: String) throws -> T {
    guard let value else { throw ValidationError("\(what) did not start") }
    return value
}
