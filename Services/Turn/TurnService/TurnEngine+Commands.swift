import HearthBus
import HearthCore

/// Commands from this device (`turn.cmd`): the CLI and the notifier's buttons.
extension TurnEngine {
    /// Handles one command: decoded as its type in `HearthCore` (`TurnCommands`), which names a
    /// missing or mistyped field; the rules of play take the fields a player's device would
    /// forward to the leader's (`TurnCommandArguments`).
    func command(_ request: CommandRequest) async throws -> JSONValue {
        typealias Commands = TurnCommands
        do {
            switch request.command {
            case Commands.Create.name:
                let command = try request.decode(Commands.Create.self)
                return try create(
                    name: command.name,
                    TurnCommandArguments(timerSeconds: command.timerSeconds, timerPass: command.timerPass))
            case Commands.Sessions.name: return try JSONValue(encoding: sessionList())
            case Commands.Status.name: return try status(code: try code(request.decode(Commands.Status.self).code))
            case Commands.Join.name:
                let command = try request.decode(Commands.Join.self)
                return try await join(code: try code(command.code), name: command.name)
            case Commands.Start.name:
                let command = try request.decode(Commands.Start.self)
                return try leaderCommand(request.command, code: try code(command.code), TurnCommandArguments())
            case Commands.End.name:
                let command = try request.decode(Commands.End.self)
                return try leaderCommand(request.command, code: try code(command.code), TurnCommandArguments())
            case Commands.Order.name:
                let command = try request.decode(Commands.Order.self)
                var arguments = TurnCommandArguments()
                arguments.players = command.players
                return try leaderCommand(request.command, code: try code(command.code), arguments)
            case Commands.Done.name:
                let command = try request.decode(Commands.Done.self)
                return try await playerCommand(
                    request.command, code: try code(command.code),
                    TurnCommandArguments(player: command.player, seq: command.seq))
            case Commands.Leave.name:
                let command = try request.decode(Commands.Leave.self)
                return try await playerCommand(
                    request.command, code: try code(command.code), TurnCommandArguments(player: command.player))
            case Commands.Timer.name:
                let command = try request.decode(Commands.Timer.self)
                return try tableCommand(
                    request.command, code: try code(command.code),
                    TurnCommandArguments(seq: command.seq, seconds: command.seconds, pass: command.pass))
            case Commands.Pause.name:
                let command = try request.decode(Commands.Pause.self)
                return try tableCommand(
                    request.command, code: try code(command.code), TurnCommandArguments(seq: command.seq))
            case Commands.Resume.name:
                let command = try request.decode(Commands.Resume.self)
                return try tableCommand(
                    request.command, code: try code(command.code), TurnCommandArguments(seq: command.seq))
            case Commands.Skip.name:
                let command = try request.decode(Commands.Skip.self)
                return try tableCommand(
                    request.command, code: try code(command.code),
                    TurnCommandArguments(player: command.player, seq: command.seq, untilBack: command.untilBack))
            case Commands.Reverse.name:
                let command = try request.decode(Commands.Reverse.self)
                return try await playCommand(
                    request.command, code: try code(command.code),
                    TurnCommandArguments(player: command.player, seq: command.seq))
            case Commands.Back.name:
                let command = try request.decode(Commands.Back.self)
                return try await playCommand(
                    request.command, code: try code(command.code), TurnCommandArguments(player: command.player))
            default:
                throw CommandError.unknownCommand(request.command, service: "turn")
            }
        } catch let error as TurnError {
            throw error.commandError
        }
    }

    private func code(_ text: String) throws -> String {
        guard let code = SessionCode.normalized(text) else { throw TurnError.invalidCode(text) }
        return code
    }

    func held(_ code: String) throws(TurnError) -> Held {
        guard let held = sessions[code] else { throw .noSuchSession(code) }
        return held
    }

    /// Every code this device can see: its own sessions and those in beacons.
    private var visibleCodes: Set<String> {
        Set(sessions.keys).union(peers.values.flatMap { $0.announcement.sessions.map(\.code) })
    }

    /// A reply with the session and the player a command made.
    private func reply(_ session: TurnSession, _ player: TurnSession.Player) throws -> JSONValue {
        try JSONValue(encoding: SessionJoined(session: session, player: player))
    }

    private func create(name: String, _ arguments: TurnCommandArguments) throws -> JSONValue {
        let code = SessionCode.make(avoiding: visibleCodes, using: &random)
        let leader = TurnSession.Player(id: UUIDText.make(), name: name, device: device)
        var session = try TurnSession(id: UUIDText.make(), code: code, leader: leader)
        if let timer = try TurnCommandArguments.timer(seconds: arguments.timerSeconds, passes: arguments.timerPass) {
            _ = try session.setTimer(timer, by: leader.id, seq: nil)
        }
        sessions[code] = Held(session: session, since: now())
        publishChanged(session, TurnSession.Change(kind: .created, player: leader), previous: nil)
        return try reply(session, leader)
    }

    /// A session this device plays in, whole; one it only hears of, as its leader announces it
    /// (`joined: false`), so `status` and `sessions` agree.
    func status(code: String) throws -> JSONValue {
        if let held = sessions[code] { return try Self.withClock(held.session, held.clock(at: now())) }
        // A game that ended here lately: as it ended, with its statistics, for a few minutes.
        if let game = endedGames[code] { return try JSONValue(encoding: game.session) }
        // A game this device saw end is over, whatever an older beacon still says.
        for (device, peer) in peers where now() - peer.lastSeen < timing.awayAfter && ended[code] == nil {
            guard let entry = peer.announcement.sessions.first(where: { $0.code == code }) else { continue }
            return try JSONValue(
                encoding: SessionGlimpse(
                    code: code, state: entry.state.rawValue,
                    heard: .init(leaderName: entry.leader, leaderDevice: device, players: entry.players)))
        }
        throw TurnError.noSuchSession(code)
    }

    private func sessionList() -> SessionListing.List {
        var list: [String: SessionListing] = [:]
        // Only devices heard lately: a beacon stops when its device goes.
        for (device, peer) in peers where now() - peer.lastSeen < timing.awayAfter {
            for entry in peer.announcement.sessions where ended[entry.code] == nil {
                list[entry.code] = SessionListing(
                    code: entry.code, leader: entry.leader, state: entry.state,
                    players: entry.playerCount ?? entry.players.count,
                    device: device, joined: false)
            }
        }
        for (code, held) in sessions {
            list[code] = SessionListing(
                code: code, leader: held.session.leaderPlayer?.name, state: held.session.state,
                players: held.session.players.count, device: held.leaderDevice, joined: true)
        }
        return SessionListing.List(sessions: list.keys.sorted().map { list[$0]! })
    }

    /// Joins `code` as `name` at this device: locally if this device leads it, else by asking
    /// the device whose beacon lists it.
    private func join(code: String, name: String) async throws -> JSONValue {
        if let held = sessions[code], held.leaderDevice == device {
            let player = TurnSession.Player(id: UUIDText.make(), name: name, device: device)
            try apply(code) { session throws(TurnError) in [try session.join(player)] }
            return try reply(sessions[code]?.session ?? held.session, player)
        }
        guard
            let (leaderDevice, _) = peers.first(where: {
                $0.value.announcement.sessions.contains { $0.code == code }
            })
        else { throw TurnError.noSuchSession(code) }
        let answer = try await request(leaderDevice, .join, code: code, arguments: .init(name: name))
        guard let session = answer.session, let player = session.player(named: name) else {
            throw TurnError.malformed("the leader's reply lacks the new player")
        }
        receive(session, change: answer.change, from: leaderDevice)
        return try reply(session, player)
    }

    /// The session `code` and its leader, for a command only the leader's device takes.
    /// - Throws: when this device does not lead it, naming the leader.
    func leading(_ code: String, for command: String) throws -> (held: Held, leader: TurnSession.Player) {
        let held = try held(code)
        guard held.leaderDevice == device, let leader = held.session.leaderPlayer else {
            throw CommandError(
                code: "refused",
                message:
                    "player: only the leader's device can \(command) a game (the leader is \(held.session.leaderPlayer?.name ?? "unknown"))"
            )
        }
        return (held, leader)
    }

    /// start, order and end: only on the leader's device, by the leader.
    private func leaderCommand(_ command: String, code: String, _ arguments: TurnCommandArguments) throws -> JSONValue {
        let leader = try leading(code, for: command).leader
        try apply(code) { session throws(TurnError) in
            switch command {
            case "start": return [try session.start(by: leader.id)]
            case "end": return [try session.end(by: leader.id)]
            default:
                guard let names = arguments.players, !names.isEmpty else {
                    throw .malformed("players: give the new order as a list of names")
                }
                return [try session.reorder(names, by: leader.id)]
            }
        }
        return try sessionOrEnded(code)
    }

    /// The session after a command, or a short `ended` record once it is gone.
    private func sessionOrEnded(_ code: String) throws -> JSONValue {
        guard sessions[code] != nil || endedGames[code] != nil else {
            return try JSONValue(encoding: SessionGlimpse(code: code, state: "ended"))
        }
        return try status(code: code)
    }

    /// A session's JSON with the reading of its clock now beside it (`clock_now`).
    static func withClock(_ session: TurnSession, _ clock: TurnClockReading) throws -> JSONValue {
        guard case .object(var fields) = try JSONValue(encoding: session) else { return .null }
        fields["clock_now"] = try JSONValue(encoding: clock)
        return .object(fields)
    }

    /// done and leave, for a player at this device (named, or the only one / the current one).
    private func playerCommand(
        _ command: String, code: String, _ arguments: TurnCommandArguments
    ) async throws -> JSONValue {
        let held = try held(code)
        let local = held.session.players.filter { $0.device == device }
        let player: TurnSession.Player
        if let named = arguments.player {
            player = try held.session.player(idOrName: named)
        } else if command == "done", local.count > 1, arguments.seq == nil {
            // Two players at one device: `turn done` twice ended both their turns (issue 63).
            // Which one, or the state it was typed against, must be said.
            throw CommandError.invalidArgument(
                "player",
                "is required: \(local.map(\.name).joined(separator: " and ")) sit at this device; say whose turn ends (--player NAME), or the game's seq from turn status (--seq N)"
            )
        } else if command == "done", let current = held.session.currentPlayer, current.device == device {
            player = current
        } else if local.count == 1 {
            player = local[0]
        } else {
            throw CommandError.invalidArgument(
                "player", "is required: more than one player, or none, sits at this device")
        }
        guard player.device == device else {
            throw CommandError(
                code: "refused",
                message: "player: \(player.name) plays at another device; only that device can \(command) for them")
        }
        let seq = arguments.seq
        if held.leaderDevice == device {
            try apply(code) { session throws(TurnError) in
                command == "done" ? [try session.done(by: player.id, seq: seq)] : try session.leave(player.id)
            }
            return try sessionOrEnded(code)
        }
        let answer = try await request(
            held.leaderDevice, command == "done" ? .done : .leave, code: code,
            arguments: .init(player: player.id, seq: seq))
        guard let session = answer.session else { throw TurnError.malformed("the leader's reply lacks the session") }
        receive(session, change: answer.change, from: held.leaderDevice)
        return try sessionOrEnded(code)
    }
}
