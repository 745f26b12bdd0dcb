import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// Board-game turns across independent stacks on one machine: each player's device is a whole
/// Hearth stack (its own `HEARTH_HOME`, bus, turn service and notifier on its own D-Bus session
/// with the test notification server), linked over loopback tcp with CURVE, found by beacon.
extension SeveralDevices {
    @Suite("End to end: turns across devices", .serialized, .timeLimit(.minutes(2)))
    struct TurnTests {
        let context: ZMQContext

        init() throws { context = try ZMQContext() }

        /// One player's device.
        final class Device: Sendable {
            let name: String
            let session: DBusSession
            let server: ChildProcess
            let stack: TestStack
            let id: String

            init(_ name: String, turnEnvironment: [String: String], context: ZMQContext) async throws {
                self.name = name
                session = try await DBusSession(notificationServer: true)
                server = try #require(session.server)
                stack = try await TestStack(
                    [.bus, .turn, .notifier], environment: session.environment.merging(turnEnvironment) { $1 },
                    context: context)
                id = try DeviceIdentity.load(home: stack.home.path)
            }

            /// Runs `hearth ARGS` against this device.
            func hearth(_ arguments: [String]) async throws -> (status: Int32?, stdout: String, stderr: String) {
                try await stack.hearth(arguments + ["--json"])
            }

            /// The "Your turn" popups this device's server was asked to show, as (turn number, summary).
            var yourTurns: [(turn: Int, summary: String)] {
                server.output.lines.compactMap { line in
                    guard line.contains("\"call\": \"Notify\""), let call = try? JSONValue.parse(line),
                        let summary = call["summary"]?.stringValue, summary.hasPrefix("Your turn"),
                        let body = call["body"]?.stringValue,
                        let turn = body.split(separator: " ").last.flatMap({ Int($0) })
                    else { return nil }
                    return (turn, summary)
                }
            }

            /// Waits for the "Your turn" popup of turn `turn` and presses its Done button.
            func pressDone(turn: Int, timeout: Duration = .seconds(10)) async throws {
                let line = try #require(
                    await server.output.waitForLine(timeout: timeout) {
                        $0.contains("\"summary\": \"Your turn, \(self.name)\"") && $0.contains("turn \(turn)\"")
                    },
                    "\(name) never saw turn \(turn): \(server.output.text.suffix(1_500)) \(stack.processes.map { "\($0.key): \($0.value.errors.text.suffix(800))" })"
                )
                let id = try #require(try JSONValue.parse(line)["id"]?.intValue)
                #expect(try await session.press(id: UInt32(id), action: "done") == 0)
            }

            func stop() async { _ = await stack.stop() }
        }

        /// Ann creates a game on `leader`; every other device joins it once its beacon is heard.
        static func game(_ leader: Device, _ joiners: [Device]) async throws -> String {
            let created = try await leader.hearth(["turn", "create", "--name", leader.name])
            #expect(created.status == 0, "\(created.stderr)")
            let code = try #require(try JSONValue.parse(created.stdout)["session"]?["code"]?.stringValue)
            for device in joiners {
                #expect(
                    try await SeveralDevices.eventually {
                        try await device.hearth(["turn", "sessions"]).stdout.contains("\"code\":\"\(code)\"")
                    }, "\(device.name) never saw \(code)")
                let joined = try await device.hearth(["turn", "join", code, "--name", device.name])
                #expect(joined.status == 0, "\(joined.stderr)")
            }
            return code
        }

        /// Ann, Bob and Cy on one beacon port, in a game Ann leads and the others joined.
        func threePlayers() async throws -> (ann: Device, bob: Device, cy: Device, code: String) {
            let environment = LoopbackTurns.environment(port: LoopbackTurns.randomPort())
            let ann = try await Device("Ann", turnEnvironment: environment, context: context)
            let bob = try await Device("Bob", turnEnvironment: environment, context: context)
            let cy = try await Device("Cy", turnEnvironment: environment, context: context)
            return (ann, bob, cy, try await Self.game(ann, [bob, cy]))
        }

        @Test("the game's commands print their lines as lines: no '^J' where a new line belongs")
        func linesNotCaret() async throws {
            let environment = LoopbackTurns.environment(port: LoopbackTurns.randomPort())
            let ann = try await Device("Ann", turnEnvironment: environment, context: context)
            let bob = try await Device("Bob", turnEnvironment: environment, context: context)
            let code = try await Self.game(ann, [bob])
            for (device, arguments) in [
                (ann, ["turn", "status", code]), (ann, ["turn", "order", code, "Bob", "Ann"]),
                (ann, ["turn", "start", code]), (bob, ["turn", "done", code]),
            ] {
                let text = try await device.stack.hearth(arguments)
                #expect(text.status == 0, "\(arguments): \(text.stderr)")
                #expect(!text.stdout.contains("^J"), "\(arguments): \(text.stdout)")
                #expect(text.stdout.split(separator: "\n").count >= 2, "\(arguments): \(text.stdout)")
            }
            // leave takes --name as join does (and --player).
            let left = try await bob.stack.hearth(["turn", "leave", code, "--name", "Bob"])
            #expect(left.status == 0, "\(left.stderr)")
            #expect(!left.stdout.contains("Bob"), "Bob is no longer a player: \(left.stdout)")
            let status = try await ann.stack.hearth(["turn", "status", code])
            #expect(!status.stdout.contains("Bob"), "\(status.stdout)")
            await ann.stop()
            await bob.stop()
        }

        @Test(
            "a leader and two joiners play 100 turns: each turn is exactly one 'Your turn' on the right device, in order"
        )
        func hundredTurns() async throws {
            let (ann, bob, cy, code) = try await threePlayers()
            let started = try await ann.hearth(["turn", "start", code])
            #expect(started.status == 0, "\(started.stderr)")

            let order = [ann, bob, cy]
            for turn in 1...100 {
                try await order[(turn - 1) % 3].pressDone(turn: turn)
            }
            _ = try #require(
                await bob.server.output.waitForLine { $0.contains("Your turn, Bob") && $0.contains("turn 101\"") })
            for (index, device) in order.enumerated() {
                let expected = Array(stride(from: index + 1, through: 101, by: 3))
                #expect(device.yourTurns.map(\.turn) == expected, "\(device.name)")
                #expect(device.yourTurns.allSatisfy { $0.summary == "Your turn, \(device.name)" })
            }
            let status = try JSONValue.parse(try await cy.hearth(["turn", "status", code]).stdout)
            #expect(status["turn"] == 101)
            #expect(status["current_name"] == "Bob")
            for device in order { await device.stop() }
        }

        /// A connection to `leader`'s peer socket from a device that is not in the game (a key pair
        /// of its own) or that claims a player's device with its real `keys`, trusting `serverKey`
        /// (the leader's real public key unless given).
        static func rogue(
            at leader: Device, serverKey: String? = nil, keys: CurveKeyPair? = nil, context: ZMQContext
        ) async throws -> SocketThread<[Frame]> {
            let turns = CommandClient(
                context: context, endpoint: leader.stack.configuration.commandEndpoint(.turn), timeout: .seconds(2))
            let endpoint = try #require(try await turns.request("ping")["peer"]?.stringValue)
            await turns.close()
            let trusted = try serverKey ?? DeviceIdentity.keyPair(home: leader.stack.home.path).publicKey
            let keys = try keys ?? CurveKeyPair.generate()
            return try SocketThread(context: context, kind: .dealer, name: "rogue") { socket in
                try socket.makeCurveClient(keyPair: keys, serverKey: trusted)
                try socket.setLinger(milliseconds: 0)
                try socket.connect(endpoint)
            }
        }

        /// The next `count` answers on `socket`, or fewer if `timeout` passes first.
        static func answers(
            on socket: SocketThread<[Frame]>, count: Int, timeout: Duration = .seconds(5)
        ) async -> [JSONValue] {
            await withTimeout(timeout) { () async -> [JSONValue]? in
                var answers: [JSONValue] = []
                for await frames in socket.incoming {
                    answers.append((try? JSONValue.parse(frames[0])) ?? .null)
                    if answers.count == count { break }
                }
                return answers
            } ?? []
        }

        /// A rogue sends `hb` to `leader`'s peer socket claiming `victim`'s device id; returns the answer.
        static func impersonate(
            _ victim: Device, at leader: Device, code: String, context: ZMQContext
        ) async throws -> JSONValue {
            let rogue = try await rogue(at: leader, context: context)
            try rogue.send([(["t": "hb", "device": .string(victim.id), "seqs": [code: 0]] as JSONValue).jsonBytes])
            let answer = await answers(on: rogue, count: 1).first
            await rogue.close()
            return try #require(answer, "no answer to the rogue")
        }

        @Test(
            "with its beacon port taken by another program, hearth-turn still runs games at its device and says discovery is off"
        )
        func beaconPortTaken() async throws {
            let port = LoopbackTurns.randomPort()
            let holder = try await ChildProcess(
                "/usr/bin/python3",
                [
                    "-c",
                    "import socket, time\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                        + "s.bind(('0.0.0.0', \(port)))\nprint('bound', flush=True)\ntime.sleep(60)",
                ])
            _ = try #require(await holder.output.waitForLine(containing: "bound"))
            let ann = try await Device("Ann", turnEnvironment: LoopbackTurns.environment(port: port), context: context)
            try #require(await ann.stack.processes[.turn]!.errors.waitForLine(containing: "discovery is off") != nil)
            let created = try await ann.hearth(["turn", "create", "--name", "Ann"])
            #expect(created.status == 0, "\(created.stderr)")
            holder.signal(SIGTERM)
            _ = await holder.waitForExit(timeout: .seconds(3))
            await ann.stop()
        }

        @Test("a notifier that starts mid-game asks for the turns in play and shows whose turn it is; its Done works")
        func notifierJoinsLate() async throws {
            let environment = LoopbackTurns.environment(port: LoopbackTurns.randomPort())
            let ann = try await Device("Ann", turnEnvironment: environment, context: context)
            let created = try await ann.hearth(["turn", "create", "--name", "Ann"])
            let code = try #require(try JSONValue.parse(created.stdout)["session"]?["code"]?.stringValue)
            // Bob at the same device.
            #expect(try await ann.hearth(["turn", "join", code, "--name", "Bob"]).status == 0)
            #expect(try await ann.hearth(["turn", "start", code]).status == 0)
            _ = try #require(await ann.server.output.waitForLine(containing: "Your turn, Ann"))

            let notifier = ann.stack.processes[.notifier]!
            notifier.signal(SIGKILL)
            try #require(await notifier.waitForExit(timeout: .seconds(5)) != nil)
            let mark = ann.server.output.count
            let restarted = try await TestStack.start(.notifier, environment: ann.stack.environment)
            // No new event: the restarted notifier finds the game by asking hearth-turn.
            let line = try #require(await ann.server.output.waitForLine(from: mark) { $0.contains("Your turn, Ann") })
            #expect(ann.yourTurns.map(\.summary) == ["Your turn, Ann", "Your turn, Ann"])
            let id = try #require(try JSONValue.parse(line)["id"]?.intValue)
            #expect(try await ann.session.press(id: UInt32(id), action: "done") == 0)
            _ = try #require(await ann.server.output.waitForLine { $0.contains("Your turn, Bob") })

            restarted.signal(SIGTERM)
            #expect(await restarted.waitForExit(timeout: .seconds(3)) == 0)
            await ann.stop()
        }

        @Test(
            "a joiner's turn service killed mid-game resyncs by itself; the leader's stack killed: the next player's device leads and play goes on"
        )
        func failures() async throws {
            let (ann, bob, cy, code) = try await threePlayers()
            #expect(try await ann.hearth(["turn", "start", code]).status == 0)
            try await ann.pressDone(turn: 1)
            try await bob.pressDone(turn: 2)

            // Cy's turn (3): Bob's turn service dies, and misses turns 3 and 4 and the start of his own (5).
            try #require(
                await cy.server.output.waitForLine { $0.contains("Your turn, Cy") && $0.contains("turn 3\"") } != nil)
            let annEvents = try await ChildProcess(
                "hearth", ["monitor", "--json", "turn."], environment: ann.stack.environment)
            try #require(await annEvents.errors.waitForLine(containing: "watching") != nil)
            bob.stack.processes[.turn]!.signal(SIGKILL)
            try #require(await bob.stack.processes[.turn]!.waitForExit(timeout: .seconds(5)) != nil)
            try await cy.pressDone(turn: 3)
            try await ann.pressDone(turn: 4)
            // Silent for 5 s: the leader shows Bob away.
            #expect(
                await annEvents.output.waitForLine {
                    $0.contains("\"kind\":\"away\"") && $0.contains("\"name\":\"Bob\"")
                }
                    != nil)
            let away = try JSONValue.parse(try await ann.hearth(["turn", "status", code]).stdout)
            #expect(away["players"]?.arrayValue?.first { $0["name"] == "Bob" }?["present"] == false)
            annEvents.signal(SIGTERM)
            _ = await annEvents.waitForExit(timeout: .seconds(3))
            try #require(
                await ann.server.output.waitForLine { $0.contains("Bob is playing") && $0.contains("turn 5\"") } != nil)
            let restarted = try await TestStack.start(.turn, environment: bob.stack.environment)
            // It finds the game in Ann's beacon, resyncs, and shows Bob his turn exactly once.
            try await bob.pressDone(turn: 5, timeout: .seconds(15))
            try await cy.pressDone(turn: 6)

            // Ann's turn (7), seen on every device: her whole stack dies. After 10 s Bob's device
            // leads; Ann is out, so the turn passes to Bob (8).
            for device in [bob, cy] {
                #expect(
                    await device.server.output.waitForLine { $0.contains("Ann is playing") && $0.contains("turn 7\"") }
                        != nil)
            }
            // Cy's turn service is frozen through the take-over, so Bob's device has not heard from it
            // when a rogue claims Cy's device id: the key Cy joined with came over in Ann's state.
            cy.stack.processes[.turn]!.signal(SIGSTOP)
            for process in ann.stack.processes.values { process.signal(SIGKILL) }
            _ = try #require(
                await bob.server.output.waitForLine(timeout: .seconds(25)) {
                    $0.contains("Your turn, Bob") && $0.contains("turn 8\"")
                })
            let refusal = try await Self.impersonate(cy, at: bob, code: code, context: context)
            #expect(refusal["error"]?.stringValue?.contains("known here by another key") == true, "\(refusal)")
            cy.stack.processes[.turn]!.signal(SIGCONT)
            try await bob.pressDone(turn: 8)
            try await cy.pressDone(turn: 9)
            try await bob.pressDone(turn: 10)
            _ = try #require(
                await cy.server.output.waitForLine { $0.contains("Your turn, Cy") && $0.contains("turn 11\"") })

            #expect(bob.yourTurns.map(\.turn) == [2, 5, 8, 10])
            #expect(cy.yourTurns.map(\.turn) == [3, 6, 9, 11])
            let status = try JSONValue.parse(try await cy.hearth(["turn", "status", code]).stdout)
            #expect(status["leader_name"] == "Bob")
            #expect(status["players"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Bob", "Cy"])

            restarted.signal(SIGTERM)
            _ = await restarted.waitForExit(timeout: .seconds(3))
            await bob.stop()
            await cy.stop()
        }
    }
}
