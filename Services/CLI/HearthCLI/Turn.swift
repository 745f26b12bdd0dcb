import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthHost
import Synchronization
import UnixSignals

/// `hearth turn`: board-game turns across the players' devices.
struct Turn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "turn",
        abstract: "Board-game turns: whose turn it is, on every player's device.",
        subcommands: [
            Create.self, Sessions.self, Join.self, Start.self, Done.self, Order.self, Leave.self, Status.self,
            End.self, Watch.self, Timer.self, Pause.self, Resume.self, Skip.self, Back.self, Reverse.self,
        ])

    /// Prints a session: code, state, the clock, players in order with the current one marked,
    /// and once it is over, its statistics.
    static func describe(_ session: TurnSession, clock: TurnClockReading? = nil) -> String {
        var header = "\(session.code)  \(session.state.rawValue)  seq \(session.seq)  turn \(session.turn)"
        if let line = clockLine(session, clock) { header += "  ·  " + line }
        var lines = [header] + playerLines(session)
        if session.state == .ended { lines += statisticsLines(session.statistics) }
        return lines.joined(separator: "\n")
    }

    /// "paused", "0:42 left of 1:30", "time's up", "timer 1:30 (passes)"; `nil` with nothing to say.
    static func clockLine(_ session: TurnSession, _ reading: TurnClockReading?) -> String? {
        var parts: [String] = []
        let clock = session.clock
        if session.state == .playing, let timer = clock.timer {
            let left = reading?.left ?? clock.left ?? timer.limit
            parts.append(
                left > 0
                    ? "\(TurnClock.text(milliseconds: left)) left of \(TurnClock.text(milliseconds: timer.limit))"
                    : "time's up")
        } else if let timer = clock.timer, session.state == .open {
            parts.append("timer \(TurnClock.text(milliseconds: timer.limit))")
        }
        if clock.timer?.passes == true && session.state != .ended { parts.append("passes when up") }
        if clock.paused && session.state == .playing { parts.append("PAUSED") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// "Game over: Bob took longest: 1 min 30 s", then a line per player.
    static func statisticsLines(_ statistics: TurnStatistics) -> [String] {
        guard !statistics.tallies.isEmpty else { return [] }
        let total = statistics.summary
        return ["", "  \(total)" + (statistics.longestLine.map { "; \($0)" } ?? "")]
            + statistics.lines.map { "    " + $0 }
    }

    /// Prints a session a service replied with, or what the reply says when it is not one (an
    /// ended game's short record).
    static func describe(_ reply: JSONValue) -> String {
        if let session = try? reply.decode(TurnSession.self) {
            return describe(session, clock: try? reply.decode(TurnClockReading.Carrier.self).clockNow)
        }
        guard let glimpse = try? reply.decode(SessionGlimpse.self) else { return "?" }
        var lines = ["\(glimpse.code)  \(glimpse.state)"]
        if let heard = glimpse.heard {
            lines[0] += "  led by \(heard.leaderName ?? "?")  (not joined at this device)"
            lines += heard.players.map { "    \($0)" }
            lines.append("join with: hearth turn join \(glimpse.code) --name NAME")
        }
        return lines.joined(separator: "\n")
    }

    /// One line per player in turn order: ▶ for the current one, then (leader) and (away) marks.
    static func playerLines(_ session: TurnSession) -> [String] {
        session.players.map { player in
            let marker = player.id == session.current ? "▶" : " "
            let lead = player.id == session.leader ? "  (leader)" : ""
            let away = player.present ? "" : "  (away)"
            let out =
                session.sittingOut.contains(player.id)
                ? "  (sitting out)" : session.skipped.contains(player.id) ? "  (skipped this round)" : ""
            return "  \(marker) \(player.name)\(lead)\(away)\(out)"
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Create a session with you as its leader.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Your name in the game.") var name: String
        @Option(help: "A turn timer: how long each turn may take (90s, 2m, 1m30s).") var timer: String?
        @Flag(help: "With --timer: the turn passes by itself when the time is up.") var timerPass = false

        func validate() throws {
            if timerPass && timer == nil { throw ValidationError("--timer-pass needs --timer") }
        }

        func run() async throws {
            var command = TurnCommands.Create(name: name)
            if let timer {
                do {
                    command.timerSeconds = try TurnTimer.seconds(parsing: timer)
                } catch {
                    throw ValidationError("--timer: " + error.description)
                }
                command.timerPass = timerPass
            }
            let reply = try await ServiceCall.reply(options, .turn, command)
            if options.json { return Output.json(reply) }
            let code = try reply.decode(SessionJoined.self).session.code
            Output.line("session \(code) created; others join with: hearth turn join \(code) --name NAME")
        }
    }

    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sessions", abstract: "Open sessions this device can see.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.reply(options, .turn, TurnCommands.Sessions())
            if options.json { return Output.json(reply) }
            let sessions = try reply.decode(SessionListing.List.self).sessions
            if sessions.isEmpty { Output.line("no sessions in reach") }
            for session in sessions {
                Output.line(
                    "\(session.code)  led by \(session.leader ?? "?")  \(session.players) players  "
                        + (session.state?.rawValue ?? "") + (session.joined ? "  (joined)" : ""))
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "join", abstract: "Join a session by its code.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code, such as J7X-3.", completion: Completions.session) var code: String
        @Option(help: "Your name in the game.") var name: String

        func run() async throws {
            let reply = try await ServiceCall.reply(options, .turn, TurnCommands.Join(code: code, name: name))
            if options.json { return Output.json(reply) }
            Output.line("joined as \(name)\n" + Turn.describe(reply["session"] ?? .null))
        }
    }

    /// start, end, status: a code and nothing else.
    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "start", abstract: "Start play (the leader).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String

        func run() async throws { try await Turn.simple(options, TurnCommands.Start(code: code)) }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "end",
            abstract: "End the session (the leader); nothing of it is kept.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String

        func run() async throws { try await Turn.simple(options, TurnCommands.End(code: code)) }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "The session's players, order and whose turn it is.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String

        func run() async throws { try await Turn.simple(options, TurnCommands.Status(code: code)) }
    }

    static func simple(_ options: GlobalOptions, _ command: some HearthCommand) async throws {
        let reply = try await ServiceCall.reply(options, .turn, command)
        if options.json { return Output.json(reply) }
        Output.line(Turn.describe(reply))
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "done",
            abstract: "End your turn; the next player is notified.",
            discussion: """
                Without --player: the player at this device whose turn it is. With several players at \
                this device, say which (--player), or give the game's seq (--seq, from turn status) so \
                the same command typed twice ends one turn, not two.
                """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @Option(
            name: [.customLong("player"), .customLong("name")],
            help: "The player (name; --name as join takes it), when several sit at this device.")
        var player: String?
        @OptionGroup var seq: SeqOption

        func run() async throws {
            try await Turn.simple(options, TurnCommands.Done(code: code, player: player, seq: seq.seq))
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "leave", abstract: "Leave the session; on your turn, it passes on.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @Option(
            name: [.customLong("player"), .customLong("name")],
            help: "The player (name; --name as join takes it), when several sit at this device.")
        var player: String?

        func run() async throws {
            try await Turn.simple(options, TurnCommands.Leave(code: code, player: player))
        }
    }

    struct Order: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "order",
            abstract: "Set the turn order (the leader): every player's name.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @Argument(help: "Every player, in the new order.") var players: [String]

        func run() async throws {
            try await Turn.simple(options, TurnCommands.Order(code: code, players: players))
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "A live full-screen view: YOUR TURN, or who is playing (Ctrl-C to stop).",
            discussion: """
                With a turn timer, the time left counts down; at the end of the game, its \
                statistics. With --json, one line per state instead of a screen.
                """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @Flag(help: "Ring the terminal bell when it becomes your turn.") var bell = false

        func run() async throws {
            let configuration = try options.loadConfiguration()
            let device = try DeviceIdentity.load(home: configuration.home)
            let context = try ZMQContext(configuration: configuration)
            let subscriber = try Subscriber(
                context: context, endpoint: configuration.busSubscribeEndpoint,
                maximumMessageBytes: configuration.maximumMessageBytes)
            let bus = CommandClient(
                context: context, endpoint: configuration.commandEndpoint(.bus), timeout: .milliseconds(250),
                attempts: 1)
            _ = await subscriber.waitUntilSubscribed(bus: bus, timeout: options.timeoutDuration)
            await bus.close()
            // Snapshot first (subscribed already, so nothing falls between), then updates; an
            // update older than what is shown is ignored.
            let reply = try await ServiceCall.reply(options, .turn, TurnCommands.Status(code: code))
            let snapshot = try reply.decode(TurnSession.self)
            let code = snapshot.code
            let screen = WatchScreen(
                device: device, json: options.json, zone: configuration.household.timeZone, bell: bell)
            screen.show(snapshot, clock: try reply.decode(TurnClockReading.Carrier.self).clockNow)
            let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in subscriber {
                        guard case .event(let topic, let envelope) = message, topic == "turn.\(code).changed",
                            let event = try? envelope.data.decode(TurnChangedEvent.self)
                        else { continue }
                        screen.show(event.session, clock: event.clockNow)
                        if event.session.state == .ended { return }
                    }
                }
                // The countdown: a display refresh once a second while a timer runs, not synchronisation.
                if !options.json {
                    group.addTask { while (try? await Task.sleep(for: .seconds(1))) != nil { screen.refresh() } }
                }
                group.addTask { for await _ in signals { break } }
                group.addTask { await Self.checkLiveness(options, code: code, screen: screen) }
                await group.next()
                group.cancelAll()
                await subscriber.close()
            }
            screen.finish()
            await context.terminate()
        }

        /// Asks the turn service for the game every two seconds: while it does not answer, the
        /// screen says its view may be out of date, and it refreshes when it answers again.
        static func checkLiveness(_ options: GlobalOptions, code: String, screen: WatchScreen) async {
            guard let configuration = try? options.loadConfiguration(),
                let context = try? ZMQContext(configuration: configuration)
            else { return }
            let client = CommandClient(
                context: context, endpoint: configuration.commandEndpoint(.turn), timeout: .seconds(1), attempts: 1)
            // A liveness timer, not synchronisation: nothing is published when a service dies.
            while (try? await Task.sleep(for: .seconds(2))) != nil {
                do {
                    let reply = try await client.send(TurnCommands.Status(code: code))
                    switch reply.game {
                    case .held(let session): screen.answered(session, clock: reply.clockNow)
                    case .glimpse(let glimpse):
                        screen.markStale("this device no longer holds game \(code) (\(glimpse.state))")
                    }
                } catch CommandClientError.refused(let error) {
                    screen.markStale("hearth-turn no longer has game \(code): \(error.message)")
                } catch {
                    screen.markStale("hearth-turn is not answering")
                }
            }
            await client.close()
            await context.terminate()
        }
    }
}
