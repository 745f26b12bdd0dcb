extension TurnSession {
    /// A transition that left the players as they were (a turn passed, play started or ended,
    /// the lead moved), as a copy of the session at `base` takes it: the fields that moved, not
    /// the whole session.
    ///
    /// The leader's device pushes a step instead of the whole state on each such transition, so
    /// a turn's push is a few fields to encode and decode (in `hearth-bench turn` the push's
    /// encoding and the follower's decoding sit on the path to "Your turn"). A copy that is not
    /// at `base` cannot take it and asks for the whole state.
    public struct Step: Codable, Sendable, Equatable {
        public let code: String
        /// The `seq` a copy must be at to take this step.
        public let base: Int64
        public let seq: Int64
        /// The lead's term the step was made in: a copy of another term cannot take it.
        public let term: Int64
        public let state: State
        public let current: String?
        public let leader: String
        public let turn: Int64
        public let turnStartSeq: Int64
        public let clock: TurnClock
        public let controlSeq: Int64
        public let skipped: Set<String>
        public let sittingOut: Set<String>
        /// The statistics when the transition changed them (a turn ended); absent: as they were.
        public let statistics: TurnStatistics?
        /// What the transition did, and the id of the player it is about (a player of the session).
        public let change: Change.Kind?
        public let player: String?

        enum CodingKeys: String, CodingKey {
            case code, base, seq, term, state, current, leader, turn, change, player, clock, skipped, statistics
            case turnStartSeq = "turn_start_seq"
            case controlSeq = "control_seq"
            case sittingOut = "sitting_out"
        }

        public init(
            code: String, base: Int64, seq: Int64, term: Int64 = 0, state: State, current: String?, leader: String,
            turn: Int64, turnStartSeq: Int64, clock: TurnClock = TurnClock(), controlSeq: Int64 = 0,
            skipped: Set<String> = [],
            sittingOut: Set<String> = [], statistics: TurnStatistics? = nil, change: Change.Kind?, player: String?
        ) {
            self.clock = clock
            self.controlSeq = controlSeq
            self.skipped = skipped
            self.sittingOut = sittingOut
            self.statistics = statistics
            self.code = code
            self.base = base
            self.seq = seq
            self.term = term
            self.state = state
            self.current = current
            self.leader = leader
            self.turn = turn
            self.turnStartSeq = turnStartSeq
            self.change = change
            self.player = player
        }

        /// A step as received; the clock, skips and control `seq` default to a game without them.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                code: try container.decode(String.self, forKey: .code),
                base: try container.decode(Int64.self, forKey: .base),
                seq: try container.decode(Int64.self, forKey: .seq),
                term: try container.decodeIfPresent(Int64.self, forKey: .term) ?? 0,
                state: try container.decode(State.self, forKey: .state),
                current: try container.decodeIfPresent(String.self, forKey: .current),
                leader: try container.decode(String.self, forKey: .leader),
                turn: try container.decode(Int64.self, forKey: .turn),
                turnStartSeq: try container.decode(Int64.self, forKey: .turnStartSeq),
                clock: try container.decodeIfPresent(TurnClock.self, forKey: .clock) ?? TurnClock(),
                controlSeq: try container.decodeIfPresent(Int64.self, forKey: .controlSeq) ?? 0,
                skipped: Set(try container.decodeIfPresent([String].self, forKey: .skipped) ?? []),
                sittingOut: Set(try container.decodeIfPresent([String].self, forKey: .sittingOut) ?? []),
                statistics: try container.decodeIfPresent(TurnStatistics.self, forKey: .statistics),
                change: try container.decodeIfPresent(Change.Kind.self, forKey: .change),
                player: try container.decodeIfPresent(String.self, forKey: .player))
        }

        /// The step from `previous` to `next`, or `nil` when there is none: another session, no
        /// newer `seq`, another term, changed players (who joined, left, moved or went away is in the whole
        /// state), or a change about a player who is not in the session.
        public init?(from previous: TurnSession, to next: TurnSession, change: Change?) {
            guard previous.id == next.id, previous.code == next.code, next.seq > previous.seq,
                previous.term == next.term, previous.players == next.players
            else { return nil }
            if let player = change?.player, next.player(player.id) != player { return nil }
            self.init(
                code: next.code, base: previous.seq, seq: next.seq, term: next.term, state: next.state,
                current: next.current,
                leader: next.leader, turn: next.turn, turnStartSeq: next.turnStartSeq, clock: next.clock,
                controlSeq: next.controlSeq, skipped: next.skipped, sittingOut: next.sittingOut,
                statistics: next.statistics == previous.statistics ? nil : next.statistics, change: change?.kind,
                player: change?.player?.id)
        }

        /// `session` moved on by this step, and the change it made.
        /// - Throws: `TurnError.malformed` naming the rule when `session` is another session or
        ///   not at `base`, or the result is not a consistent session (`validate`).
        public func applied(to session: TurnSession) throws(TurnError) -> (session: TurnSession, change: Change?) {
            guard session.code == code else { throw .malformed("code: a step for \(code), not \(session.code)") }
            guard session.seq == base else {
                throw .malformed("base: the step is from seq \(base), not \(session.seq)")
            }
            guard session.term == term else {
                throw .malformed("term: the step is from term \(term), not \(session.term)")
            }
            guard seq > base else { throw .malformed("seq: \(seq) must be above base \(base)") }
            let next = TurnSession(
                id: session.id, code: code, seq: seq, term: term, state: state, players: session.players,
                current: current,
                leader: leader, turn: turn, turnStartSeq: turnStartSeq, clock: clock, skipped: skipped,
                sittingOut: sittingOut, controlSeq: controlSeq, statistics: statistics ?? session.statistics)
            try next.validate()
            let about = try player.map { id throws(TurnError) in
                guard let found = session.player(id) else { throw .malformed("player: \(id) is not playing") }
                return found
            }
            return (next, change.map { Change(kind: $0, player: about) })
        }
    }
}
