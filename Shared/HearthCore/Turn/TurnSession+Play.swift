/// The table's own rules beyond passing turns: the turn timer, pausing, skipping a player,
/// sitting one out, reversing the order. Each is a state change with its own `seq`, and each
/// command may carry the `seq` its sender saw: one sent for a state before the current turn
/// began, or before the last such command (a second tap, an old popup's button), is refused.
extension TurnSession {
    /// Refuses a command sent for an earlier state than the current turn or the last control
    /// change (see above); `nil` (a typed command without a number) is never stale.
    func checkFresh(_ seen: Int64?) throws(TurnError) {
        guard let seen else { return }
        if seen < max(turnStartSeq, controlSeq) || seen > seq { throw .stale(seen: seen, current: seq) }
    }

    private func checkLeader(_ playerID: String) throws(TurnError) {
        guard state != .ended else { throw .ended(code) }
        guard playerID == leader else { throw .notLeader(name(of: playerID)) }
    }

    private mutating func control(_ kind: Change.Kind, _ player: Player?) -> Change {
        let change = bump(kind, player)
        controlSeq = seq
        return change
    }

    /// Sets the turn timer (`nil`: off). In play, the current turn's timer starts now, full.
    /// - Throws: `TurnError` unless `by` is the leader of a session not ended; `.stale`.
    public mutating func setTimer(
        _ timer: TurnTimer?, by playerID: String, seq seen: Int64?
    ) throws(TurnError)
        -> Change
    {
        try checkLeader(playerID)
        try checkFresh(seen)
        clock.timer = timer
        clock.timerBase = clock.used
        clock.stage = .running
        return control(.timer, leaderPlayer)
    }

    /// Stops the clock (the timer and the turn's time) until `resume`.
    /// - Throws: `TurnError` unless `by` is the leader and the game is in play and not paused.
    public mutating func pause(by playerID: String, seq seen: Int64?) throws(TurnError) -> Change {
        try checkLeader(playerID)
        guard state == .playing else { throw .notStarted(code) }
        guard !clock.paused else { throw .paused(code, true) }
        try checkFresh(seen)
        clock.paused = true
        return control(.paused, leaderPlayer)
    }

    /// Starts the clock again where it stopped.
    public mutating func resume(by playerID: String, seq seen: Int64?) throws(TurnError) -> Change {
        try checkLeader(playerID)
        guard clock.paused else { throw .paused(code, false) }
        try checkFresh(seen)
        clock.paused = false
        return control(.resumed, leaderPlayer)
    }

    /// Passes over `target` (default: the current player) this round, or with `untilBack` sits
    /// them out until `comeBack`. The current player skipped or sat out loses the rest of the
    /// turn (it does not count in the statistics); the turn passes on.
    /// - Returns: the change, then `done`-less turn moves show as the session's new `current`.
    /// - Throws: `TurnError` unless `by` is the leader and the game is in play; when the target
    ///   is sitting out or already skipped, or sitting them out would leave nobody playing.
    public mutating func skip(
        _ target: String?, untilBack: Bool, by playerID: String, seq seen: Int64?
    ) throws(TurnError) -> Change {
        try checkLeader(playerID)
        guard state == .playing, let currentID = current else { throw .notStarted(code) }
        let targetID = target ?? currentID
        guard let player = player(targetID) else { throw .unknownPlayer(targetID) }
        guard !sittingOut.contains(targetID) else { throw .sittingOut(player.name, true) }
        try checkFresh(seen)
        if untilBack {
            guard players.contains(where: { $0.id != targetID && !sittingOut.contains($0.id) }) else {
                throw .nobodyPlaying(player.name)
            }
            sittingOut.insert(targetID)
            skipped.remove(targetID)
        } else if targetID != currentID {
            guard !skipped.contains(targetID) else { throw .alreadySkipped(player.name) }
            skipped.insert(targetID)
        }
        let passes = targetID == currentID
        if passes { passTurn(after: currentID) }
        let change = control(untilBack ? .sittingOut : .skipped, player)
        if passes { turnStartSeq = seq }
        return change
    }

    /// A player sitting out is back: the turn reaches them again from the next pass on.
    /// - Throws: `TurnError` when the game is over or the player is not sitting out.
    public mutating func comeBack(_ playerID: String) throws(TurnError) -> Change {
        guard state != .ended else { throw .ended(code) }
        guard let player = player(playerID) else { throw .unknownPlayer(playerID) }
        guard sittingOut.remove(playerID) != nil else { throw .sittingOut(player.name, false) }
        return bump(.returned, player)
    }

    /// Reverses the order from the current player on (Uno's reverse card): the current player
    /// keeps the turn, and it goes next to the one who played before.
    /// - Throws: `TurnError` unless `by` is the leader or the current player, in play.
    public mutating func reverse(by playerID: String, seq seen: Int64?) throws(TurnError) -> Change {
        guard state == .playing else { throw state == .ended ? .ended(code) : .notStarted(code) }
        guard playerID == leader || playerID == current else { throw .notLeader(name(of: playerID)) }
        try checkFresh(seen)
        players.reverse()
        return control(.reversed, player(playerID))
    }

    // MARK: - The clock

    /// Moves the turn's clock on by `milliseconds` of the leader's time (not while paused or out
    /// of play). Not a state change by itself: the leader's device calls it just before one, so
    /// the time in the new state is the time it happened.
    public mutating func advanceClock(by milliseconds: Int64) {
        guard state == .playing, !clock.paused, milliseconds > 0 else { return }
        // Saturating: `used` is at most 2^53 − 1 (`validate`), so the sum cannot overflow.
        clock.used = min(clock.used + min(milliseconds, Self.maximumSeq), Self.maximumSeq)
    }

    /// What the timer does at the clock's current time: the warning once it is at `warnAt` or
    /// less, "time's up" once it is out (and, with `passes`, the turn passes on, counted for its
    /// player). A warning due together with the end is not given.
    /// - Returns: the changes made (none, `warning`, or `time-up`).
    public mutating func checkTimer() -> [Change] {
        guard state == .playing, !clock.paused, let timer = clock.timer, let left = clock.left,
            let player = currentPlayer
        else { return [] }
        if left <= 0, clock.stage != .expired {
            clock.stage = .expired
            guard timer.passes else { return [bump(.timeUp, player)] }
            statistics.record(player, milliseconds: clock.used)
            passTurn(after: player.id)
            let change = bump(.timeUp, player)
            turnStartSeq = seq
            return [change]
        }
        if left <= timer.warnAt, clock.stage == .running {
            clock.stage = .warned
            return [bump(.warning, player)]
        }
        return []
    }

    /// Milliseconds until the timer next has something to do (warn or expire), from the clock's
    /// current time; `nil` when nothing is due (no timer, paused, expired, not in play).
    public var timerDue: Int64? {
        guard state == .playing, !clock.paused, let timer = clock.timer, let left = clock.left else { return nil }
        switch clock.stage {
        case .running: return max(0, left - timer.warnAt)
        case .warned: return max(0, left)
        case .expired: return nil
        }
    }
}
