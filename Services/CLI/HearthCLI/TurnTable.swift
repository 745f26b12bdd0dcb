import ArgumentParser
import HearthBus
import HearthCore

/// `hearth turn timer|pause|resume|skip|back|reverse`: the table's rules beyond Done.
extension Turn {
    /// `--seq N`: act only if the game is still as it was at seq N (a script's guard, as a popup's
    /// button carries one); a later skip, reverse, timer, pause or turn makes it stale.
    struct SeqOption: ParsableArguments {
        @Option(help: "Act only if the game is still at this seq (from `turn status`); else refused as stale.")
        var seq: Int64?
    }

    struct Timer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "timer",
            abstract: "Set the turn timer (the leader): 90s, 2m, 1m30s, or off.",
            discussion: """
                Each turn may take this long; the current turn's timer starts now. A warning pops \
                up at 10 s left (or a fifth of the time, when less), then "Time's up" for everyone; \
                with --pass the turn passes by itself (--no-pass: it does not; neither: as the game's \
                timer was set). The timer runs on the leader's device.
                """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @Argument(help: "How long a turn may take (90s, 2m, 1m30s, 1:30), or off.") var limit: String
        @Flag(
            inversion: .prefixedNo,
            help: "Pass the turn when the time is up, or not (default: as the game's timer was set).")
        var pass: Bool?
        @OptionGroup var seq: SeqOption

        func run() async throws {
            var command = TurnCommands.Timer(code: code, seq: seq.seq)
            if limit.lowercased() != "off" {
                do {
                    command.seconds = try TurnTimer.seconds(parsing: limit)
                } catch {
                    throw ValidationError(error.description)
                }
                command.pass = pass
            }
            try await Turn.simple(options, command)
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Pause the game (the leader): the timer and the turn's time stop.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @OptionGroup var seq: SeqOption

        func run() async throws { try await Turn.simple(options, TurnCommands.Pause(code: code, seq: seq.seq)) }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume", abstract: "Resume a paused game (the leader).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @OptionGroup var seq: SeqOption

        func run() async throws { try await Turn.simple(options, TurnCommands.Resume(code: code, seq: seq.seq)) }
    }

    struct Skip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "skip",
            abstract: "Pass over a player this round (the leader); default the current player.",
            discussion: """
                With --until-back the player sits out every round until they are back \
                (`hearth turn back CODE` at their device, or the leader's). Skipping the current \
                player passes the turn on; that turn does not count in the statistics.
                """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @Argument(help: "The player to skip (name); default the current player.") var player: String?
        @Flag(help: "Sit the player out until they are back.") var untilBack = false
        @OptionGroup var seq: SeqOption

        func run() async throws {
            // `until_back` only when asked, as the service has always been sent it.
            try await Turn.simple(
                options, TurnCommands.Skip(code: code, player: player, untilBack: untilBack ? true : nil, seq: seq.seq))
        }
    }

    struct Back: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "back",
            abstract: "A player sitting out is back: the turn reaches them again.",
            discussion: "Without --player: the player at this device who sits out (the leader may name anyone).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @Option(name: [.customLong("player"), .customLong("name")], help: "The player (name).") var player: String?

        func run() async throws {
            try await Turn.simple(options, TurnCommands.Back(code: code, player: player))
        }
    }

    struct Reverse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reverse",
            abstract: "Reverse the order from the current player on (Uno): the leader or the current player.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The session code.", completion: Completions.session) var code: String
        @Option(name: [.customLong("player"), .customLong("name")], help: "Who plays it, when several sit here.")
        var player: String?
        @OptionGroup var seq: SeqOption

        func run() async throws {
            try await Turn.simple(options, TurnCommands.Reverse(code: code, player: player, seq: seq.seq))
        }
    }
}
