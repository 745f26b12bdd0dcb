import ArgumentParser
import Foundation
import HearthBus
import HearthTesting

/// `hearth-bench turn`: `done` sent on one device → "Your turn" `Notify` on the next player's
/// device, with two whole stacks (bus, turn, notifier, each on its own D-Bus session with the
/// test notification server) linked over loopback tcp with CURVE.
struct TurnBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "turn",
        abstract: "Latency from a player's Done to the next player's 'Your turn' popup, across two stacks.",
        discussion: """
            Ann leads on one stack, Bob joins from the other; they alternate. Each turn sends \
            `done` to the current player's turn service (alternately the leader's, which applies it, \
            and the joiner's, which forwards it to the leader over CURVE) and waits for the next \
            player's notification server to record "Your turn". Latency is the server's receipt \
            time ("arrived": as GDBus reads the call from the server's socket) minus the time just before \
            sending; `at_handler` is the same to the time the server's method runs, after unpacking. \
            Targets (issue 14): p50 ≤ 1 ms, p99 ≤ 3 ms, every turn delivered.
            """)

    @Option(help: "Turns measured.") var turns = 1_000
    @Option(help: "Turns played first and not measured.") var warmup = 50
    @Option(
        help: """
            Milliseconds between one turn's "Your turn" and the next Done (0: back to back, as the \
            targets are set; a pause lets the previous turn's tail finish, as between real players).
            """)
    var pauseMs = 0
    @Flag(help: "Print only the JSON report.") var json = false

    struct Player {
        let name: String
        let session: DBusSession
        let server: ChildProcess
        let stack: TestStack
        let commands: CommandClient
    }

    func run() async throws {
        let speedBefore = try MachineSpeed.envelopeDecodeNanoseconds()
        let context = try ZMQContext()
        let environment = LoopbackTurns.environment(port: LoopbackTurns.randomPort()).merging([
            "HEARTH_LOG_LEVEL": "warning"
        ]) { $1 }
        var players: [Player] = []
        for name in ["Ann", "Bob"] {
            let session = try await DBusSession(notificationServer: true)
            guard let server = session.server else {
                throw ValidationError("the notification test server did not start")
            }
            let stack = try await TestStack(
                [.bus, .turn, .notifier], environment: session.environment.merging(environment) { $1 }, context: context
            )
            let commands = CommandClient(
                context: context, endpoint: stack.configuration.commandEndpoint(.turn), timeout: .seconds(5))
            players.append(Player(name: name, session: session, server: server, stack: stack, commands: commands))
        }
        let created = try await players[0].commands.request("create", args: ["name": "Ann"])
        guard let code = created["session"]?["code"]?.stringValue else { throw ValidationError("no session created") }
        // Bob's device hears Ann's beacon within a second or two.
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let sessions = try await players[1].commands.request("sessions")
            if sessions["sessions"]?.arrayValue?.contains(where: { $0["code"]?.stringValue == code }) == true { break }
            guard ContinuousClock.now < deadline else { throw ValidationError("Bob's device never heard Ann's beacon") }
            try await Task.sleep(for: .milliseconds(100))
        }
        _ = try await players[1].commands.request("join", args: ["code": .string(code), "name": "Bob"])
        _ = try await players[0].commands.request("start", args: ["code": .string(code)])

        log("\(warmup) warm-up turns, then \(turns) measured, \(code) between two stacks…")
        var latencies: [Double] = []
        var atHandler: [Double] = []
        var sendPaths: [String: [Double]] = ["leader": [], "joiner": []]
        for turn in 1...(warmup + turns) {
            let current = players[(turn - 1) % 2]
            let next = players[turn % 2]
            let marker = "\"summary\": \"Your turn, \(next.name)\""
            let body = "turn \(turn + 1)\""
            // Pacing, not synchronisation: the wait for the previous popup was the event.
            if pauseMs > 0 { try await Task.sleep(for: .milliseconds(pauseMs)) }
            let mark = next.server.output.count
            let sent = Date().timeIntervalSince1970
            _ = try await current.commands.request("done", args: ["code": .string(code)])
            guard
                let line = await next.server.output.waitForLine(
                    timeout: .seconds(2), from: mark, where: { $0.contains(marker) && $0.contains(body) })
            else { continue }
            let stamps = try NotifyStamps(JSONValue.parse(line))
            if turn > warmup {
                let latency = (stamps.arrived - sent) * 1_000
                latencies.append(latency)
                atHandler.append((stamps.handled - sent) * 1_000)
                sendPaths[turn % 2 == 1 ? "leader" : "joiner"]!.append(latency)
            }
        }
        for player in players {
            await player.commands.close()
            _ = await player.stack.stop()
        }
        await context.terminate()
        let speedAfter = try MachineSpeed.envelopeDecodeNanoseconds()

        let all = Percentiles(latencies)
        let leader = Percentiles(sendPaths["leader"]!)
        let joiner = Percentiles(sendPaths["joiner"]!)
        let handler = Percentiles(atHandler)
        log(
            String(
                format:
                    "p50 %.3f ms, p99 %.3f ms, delivered %d/%d (done at the leader: p50 %.3f ms; at the joiner: p50 %.3f ms; at the server's handler: p50 %.3f ms)",
                all.p50, all.p99, latencies.count, turns, leader.p50, joiner.p50, handler.p50))
        let report: JSONValue = [
            "p50_ms": .double(round3(all.p50)), "p99_ms": .double(round3(all.p99)),
            "delivered": .double(round3(Double(latencies.count) / Double(turns))), "turns": .int(Int64(turns)),
            "pause_ms": .int(Int64(pauseMs)),
            "done_at_leader": [
                "p50_ms": .double(round3(leader.p50)), "p99_ms": .double(round3(leader.p99)),
            ],
            "done_at_joiner": [
                "p50_ms": .double(round3(joiner.p50)), "p99_ms": .double(round3(joiner.p99)),
            ],
            "at_handler": ["p50_ms": .double(round3(handler.p50)), "p99_ms": .double(round3(handler.p99))],
            "targets": ["p50_ms": 1, "p99_ms": 3, "delivered": 1],
            "machine": .object(MachineSpeed.report(before: speedBefore, after: speedAfter)),
        ]
        print(report.jsonText)
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
