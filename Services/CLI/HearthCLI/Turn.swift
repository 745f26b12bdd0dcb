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
        abstract: "Board-game turns: whose turn it is, on every player's device.",
        subcommands: [
            Create.self, Sessions.self, Join.self, Start.self, Done.self, Order.self, Leave.self, Status.self,
            End.self, Watch.self,
        ])

    /// Prints a session: code, state, players in order with the current one marked.
    static func describe(_ session: TurnSession) -> String {
        let header = "\(session.code)  \(session.state.rawValue)  seq \(session.seq)  turn \(session.turn)"
        return ([header] + playerLines(session)).joined(separator: "\n")
    }

    /// Prints a session a service replied with, or what the reply says when it is not one (an
    /// ended game's short record).
    static func describe(_ reply: JSONValue) -> String {
        if let session = try? reply.decode(TurnSession.self) { return describe(session) }
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
            return "  \(marker) \(player.name)\(lead)\(away)"
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a session with you as its leader.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Your name in the game.") var name: String

        func run() async throws {
            let reply = try await ServiceCall.run(options, .turn, "create", ["name": .string(name)])
            if options.json { return Output.json(reply) }
            let code = try reply.decode(SessionJoined.self).session.code
            Output.line("session \(code) created; others join with: hearth turn join \(code) --name NAME")
        }
    }

    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open sessions this device can see.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.run(options, .turn, "sessions")
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
        static let configuration = CommandConfiguration(abstract: "Join a session by its code.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code, such as J7X-3.") var code: String
        @Option(help: "Your name in the game.") var name: String

        func run() async throws {
            let reply = try await ServiceCall.run(
                options, .turn, "join", ["code": .string(code), "name": .string(name)])
            if options.json { return Output.json(reply) }
            Output.line("joined as \(name)\n" + Turn.describe(reply["session"] ?? .null))
        }
    }

    /// start, end, status: a code and nothing else.
    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start play (the leader).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.") var code: String

        func run() async throws { try await Turn.simple(options, "start", code) }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End the session (the leader); nothing of it is kept.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.") var code: String

        func run() async throws { try await Turn.simple(options, "end", code) }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The session's players, order and whose turn it is.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.") var code: String

        func run() async throws { try await Turn.simple(options, "status", code) }
    }

    static func simple(
        _ options: GlobalOptions, _ command: String, _ code: String, _ extra: [String: JSONValue] = [:]
    )
        async throws
    {
        let reply = try await ServiceCall.run(options, .turn, command, extra.merging(["code": .string(code)]) { $1 })
        if options.json { return Output.json(reply) }
        Output.line(Turn.describe(reply))
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End your turn; the next player is notified.",
            discussion: "Without --player: the player at this device whose turn it is.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.") var code: String
        @Option(
            name: [.customLong("player"), .customLong("name")],
            help: "The player (name; --name as join takes it), when several sit at this device.")
        var player: String?

        func run() async throws {
            try await Turn.simple(options, "done", code, player.map { ["player": .string($0)] } ?? [:])
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Leave the session; on your turn, it passes on.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.") var code: String
        @Option(
            name: [.customLong("player"), .customLong("name")],
            help: "The player (name; --name as join takes it), when several sit at this device.")
        var player: String?

        func run() async throws {
            try await Turn.simple(options, "leave", code, player.map { ["player": .string($0)] } ?? [:])
        }
    }

    struct Order: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the turn order (the leader): every player's name.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.") var code: String
        @Argument(help: "Every player, in the new order.") var players: [String]

        func run() async throws {
            try await Turn.simple(options, "order", code, ["players": .array(players.map { .string($0) })])
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A live full-screen view: YOUR TURN, or who is playing (Ctrl-C to stop).",
            discussion: "With --json, one line per state instead of a screen.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.") var code: String

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
            let snapshot = try await ServiceCall.run(options, .turn, "status", ["code": .string(code)])
                .decode(TurnSession.self)
            let code = snapshot.code
            let screen = WatchScreen(device: device, json: options.json, zone: configuration.household.timeZone)
            screen.show(snapshot)
            let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in subscriber {
                        guard case .event(let topic, let envelope) = message, topic == "turn.\(code).changed",
                            let session = try? envelope.data.decode(TurnChangedEvent.self).session
                        else { continue }
                        screen.show(session)
                        if session.state == .ended { return }
                    }
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
                    let session = try await client.request("status", args: ["code": .string(code)])
                    screen.answered(try session.decode(TurnSession.self))
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

/// The watch view: redraws the terminal with a large line a player can read across a table.
final class WatchScreen: Sendable {
    private let device: String
    private let json: Bool
    /// The household's time zone: "out of date since" is on its wall clock.
    private let zone: TimeZone
    private let shown = Atomic<Int64>(0)
    /// Why the view may be out of date, and since when; `nil` while the turn service answers.
    private let stale = Mutex<(reason: String, since: Date)?>(nil)
    private let last = Mutex<TurnSession?>(nil)

    init(device: String, json: Bool, zone: TimeZone = .current) {
        self.device = device
        self.json = json
        self.zone = zone
        if !json { Output.write("\u{1B}[?25l") }  // hide the cursor
    }

    /// The turn service answered: the view is current again (redrawn if it was marked stale).
    func answered(_ session: TurnSession) {
        let wasStale = stale.withLock { state in
            defer { state = nil }
            return state != nil
        }
        if wasStale {
            if json { Output.json(["stale": false]) }
            draw(session)
        } else {
            show(session)
        }
    }

    /// The turn service stopped answering (or lost the game): say so on the screen.
    func markStale(_ reason: String) {
        let first = stale.withLock { state -> Bool in
            guard state == nil else { return false }
            state = (reason, Date())
            return true
        }
        guard first else { return }
        if json {
            Output.json(["stale": true, "reason": .string(reason)])
        } else if let session = last.withLock({ $0 }) {
            draw(session)
        }
    }

    func show(_ session: TurnSession) {
        guard session.seq > shown.load(ordering: .relaxed) else { return }
        draw(session)
    }

    private func draw(_ session: TurnSession) {
        shown.store(max(session.seq, shown.load(ordering: .relaxed)), ordering: .relaxed)
        last.withLock { $0 = session }
        let current = session.currentPlayer
        let mine = current?.device == device
        let name = current?.name ?? ""
        let headline: String
        switch session.state {
        case .open: headline = "Waiting to start"
        case .ended: headline = "Game over"
        case .playing: headline = mine ? "YOUR TURN, \(name)" : "\(current?.name ?? "Nobody") is playing"
        }
        if json {
            let encoded = (try? JSONValue(encoding: session)) ?? .null
            Output.json(["seq": .int(session.seq), "headline": .string(headline), "session": encoded])
            return
        }
        // The big line: block capitals when the terminal is wide enough ("YOUR TURN" / the name),
        // with the rest of the sentence in bold underneath; plain bold otherwise.
        let (big, small): (String, String) =
            switch session.state {
            case .playing: mine ? ("Your turn", name) : (name, "is playing")
            default: (headline, "")
            }
        let style = "\u{1B}[1m" + (mine ? "\u{1B}[32m" : "")
        var lines = ["\u{1B}[2J\u{1B}[H", ""]
        if let rows = BlockLetters.render(big, width: BlockLetters.terminalWidth - 4) {
            lines += rows.map { "  " + style + $0 + "\u{1B}[0m" }
            if !small.isEmpty { lines += ["", "  " + style + small + "\u{1B}[0m"] }
        } else {
            lines.append("  " + style + headline + "\u{1B}[0m")
        }
        lines.append("")
        lines.append("  Game \(session.code)  ·  turn \(session.turn)")
        lines.append("")
        lines += Turn.playerLines(session).map { " " + $0 }
        if let (reason, since) = stale.withLock({ $0 }) {
            let time = Dates.timeOfDay(since, zone, milliseconds: false)
            lines += ["", "  \u{1B}[1;33m⚠ Out of date since \(time): \(reason)\u{1B}[0m"]
        }
        Output.write(lines.joined(separator: "\n") + "\n")
    }

    func finish() {
        if !json { Output.write("\u{1B}[?25h\n") }
    }

}
