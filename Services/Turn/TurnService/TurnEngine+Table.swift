import HearthBus
import HearthCore

/// The table's rules beyond passing turns (`TurnSession+Play`): the timer, pause, skip, sitting
/// out and back, reverse. The timer runs here, on the leader's device, by its clock.
extension TurnEngine {
    /// timer, pause, resume and skip: the leader, on the leader's device.
    func tableCommand(_ command: String, code: String, _ arguments: TurnCommandArguments) throws -> JSONValue {
        let (held, leader) = try leading(code, for: command)
        let target = try arguments.player.map { named throws(TurnError) in try held.session.player(idOrName: named).id }
        // A new limit without `pass` keeps whether the timer passes the turn (`turn timer CODE 2m`
        // turned a --timer-pass game's passing off without a word: issue 63).
        let timer = try TurnCommandArguments.timer(
            seconds: arguments.seconds, passes: arguments.pass ?? held.session.clock.timer?.passes)
        try apply(code) { session throws(TurnError) in
            switch command {
            case "timer": return [try session.setTimer(timer, by: leader.id, seq: arguments.seq)]
            case "pause": return [try session.pause(by: leader.id, seq: arguments.seq)]
            case "resume": return [try session.resume(by: leader.id, seq: arguments.seq)]
            default:
                return [
                    try session.skip(
                        target, untilBack: arguments.untilBack ?? false, by: leader.id, seq: arguments.seq)
                ]
            }
        }
        return try status(code: code)
    }

    /// reverse and back: on the leader's device, or asked of it by a player's device. Reverse is
    /// the leader's or the current player's (who plays the card); back is a player's own, or the
    /// leader's for anyone.
    func playCommand(_ command: String, code: String, _ arguments: TurnCommandArguments) async throws -> JSONValue {
        let held = try held(code)
        let session = held.session
        let local = session.players.filter { $0.device == device }
        let player: TurnSession.Player
        if let named = arguments.player {
            player = try session.player(idOrName: named)
        } else if command == "reverse", let current = session.currentPlayer, current.device == device,
            let leader = session.leaderPlayer, leader.device == device, leader.id != current.id
        {
            // The leader and the player whose turn it is share this device: either may reverse,
            // and the popup credits whoever did (it said "Sam reversed the order" for the
            // leader's reverse: issue 63).
            throw CommandError.invalidArgument(
                "player",
                "is required: \(leader.name) (who leads) and \(current.name) (whose turn it is) sit at this device; say who reverses (--player NAME)"
            )
        } else if command == "reverse", let current = session.currentPlayer, current.device == device {
            player = current
        } else if command == "back", let out = local.filter({ session.sittingOut.contains($0.id) }).first {
            player = out
        } else if let leader = session.leaderPlayer, leader.device == device {
            player = leader
        } else if local.count == 1 {
            player = local[0]
        } else {
            throw CommandError.invalidArgument("player", "is required: more than one player, or none, sits here")
        }
        if held.leaderDevice == device {
            let leader = session.leader
            try apply(code) { session throws(TurnError) in
                command == "reverse"
                    ? [try session.reverse(by: player.device == device ? player.id : leader, seq: arguments.seq)]
                    : [try session.comeBack(player.id)]
            }
            return try status(code: code)
        }
        guard player.device == device else {
            throw CommandError(
                code: "refused",
                message: "player: \(player.name) plays at another device; only that device or the leader's can")
        }
        let answer = try await request(
            held.leaderDevice, command == "reverse" ? .reverse : .back, code: code,
            arguments: .init(player: player.id, seq: arguments.seq))
        guard let copy = answer.session else { throw TurnError.malformed("the leader's reply lacks the session") }
        receive(copy, change: answer.change, from: held.leaderDevice)
        return try status(code: code)
    }

    /// Runs the timers of the games this device leads: the warning and "time's up" (and the
    /// turn passing, with `passes`) as state changes when due.
    /// - Returns: the time until the next timer is due, at most a heartbeat.
    func runTimers() -> Duration {
        var next = timing.heartbeat
        for code in sessions.keys {
            guard var held = sessions[code], held.leaderDevice == device, held.session.clock.timer != nil else {
                continue
            }
            held.catchUp(to: now())
            guard var due = held.session.timerDue else { continue }
            if due == 0 {
                try? apply(code) { session in session.checkTimer() }
                guard let after = sessions[code]?.session.timerDue else { continue }
                due = max(after, 1)
            }
            next = min(next, .milliseconds(due))
        }
        return max(next, .milliseconds(1))
    }
}
