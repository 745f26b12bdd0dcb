/// `turn.<code>.your-turn`: the turn moved; `player` plays now. Carries the session's `seq`, so
/// a reader can tell a stale update from a newer one.
public struct YourTurnEvent: Codable, Sendable, Equatable {
    public let code: String
    public let seq: Int64
    public let turn: Int64
    public let player: TurnSession.Player

    public init(code: String, seq: Int64, turn: Int64, player: TurnSession.Player) {
        self.code = code
        self.seq = seq
        self.turn = turn
        self.player = player
    }

    /// Whose turn it is in a session being played, or `nil` when none is.
    public init?(_ session: TurnSession) {
        guard session.state == .playing, let player = session.currentPlayer else { return nil }
        self.init(code: session.code, seq: session.seq, turn: session.turn, player: player)
    }
}

/// `turn.<code>.changed`: the session after a change, and what changed (absent for a state
/// pushed to bring a copy up to date).
public struct TurnChangedEvent: Codable, Sendable, Equatable {
    public let session: TurnSession
    public let change: TurnSession.Change?

    public init(session: TurnSession, change: TurnSession.Change?) {
        self.session = session
        self.change = change
    }
}

/// One session in the turn service's `sessions` reply: one this device plays in, or one another
/// device's beacon announces.
public struct SessionListing: Codable, Sendable, Equatable {
    public let code: String
    /// The leader's name.
    public let leader: String?
    public let state: TurnSession.State?
    /// How many players it has.
    public let players: Int
    /// The device leading it.
    public let device: String
    /// Whether a player at this device is in it.
    public let joined: Bool

    public init(
        code: String, leader: String?, state: TurnSession.State?, players: Int, device: String, joined: Bool
    ) {
        self.code = code
        self.leader = leader
        self.state = state
        self.players = players
        self.device = device
        self.joined = joined
    }

    /// The `sessions` reply: `{"sessions": […]}`.
    public struct List: Codable, Sendable, Equatable {
        public let sessions: [SessionListing]
        public init(sessions: [SessionListing]) { self.sessions = sessions }
    }
}
