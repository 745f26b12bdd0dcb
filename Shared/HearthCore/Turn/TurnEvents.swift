/// `turn.<code>.your-turn`: the turn moved; `player` plays now. Carries the session's `seq`, so
/// a reader can tell a stale update from a newer one.
public struct YourTurnEvent: Codable, Sendable, Equatable {
    public let code: String
    public let seq: Int64
    public let turn: Int64
    public let player: TurnSession.Player
    /// Milliseconds the turn's timer has left as the event is published; absent without a timer.
    public let timerLeft: Int64?

    public init(code: String, seq: Int64, turn: Int64, player: TurnSession.Player, timerLeft: Int64? = nil) {
        self.code = code
        self.seq = seq
        self.turn = turn
        self.player = player
        self.timerLeft = timerLeft
    }

    /// Whose turn it is in a session being played, or `nil` when none is.
    public init?(_ session: TurnSession, clock: TurnClockReading? = nil) {
        guard session.state == .playing, let player = session.currentPlayer else { return nil }
        self.init(
            code: session.code, seq: session.seq, turn: session.turn, player: player,
            timerLeft: clock?.left ?? session.clock.left)
    }

    enum CodingKeys: String, CodingKey {
        case code, seq, turn, player
        case timerLeft = "timer_left_ms"
    }
}

/// `turn.<code>.changed`: the session after a change, and what changed (absent for a state
/// pushed to bring a copy up to date).
public struct TurnChangedEvent: Codable, Sendable, Equatable {
    public let session: TurnSession
    public let change: TurnSession.Change?
    /// The turn's clock as the event is published (the session's clock is as of its `seq`).
    public let clockNow: TurnClockReading?

    public init(session: TurnSession, change: TurnSession.Change?, clockNow: TurnClockReading? = nil) {
        self.session = session
        self.change = change
        self.clockNow = clockNow
    }

    enum CodingKeys: String, CodingKey {
        case session, change
        case clockNow = "clock_now"
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

/// What `status` says of a game that is not a session held here: one this device only hears of
/// (`joined: false`, its players' names as its leader announces them), or one that has ended.
public struct SessionGlimpse: Codable, Sendable, Equatable {
    /// A game heard of: its leader (name and device) and its players' names.
    public struct Heard: Sendable, Equatable {
        public let leaderName: String?
        public let leaderDevice: String
        public let players: [String]

        public init(leaderName: String?, leaderDevice: String, players: [String]) {
            (self.leaderName, self.leaderDevice, self.players) = (leaderName, leaderDevice, players)
        }
    }

    public let code: String
    public let state: String
    /// `nil` for an ended game's record.
    public let heard: Heard?

    public init(code: String, state: String, heard: Heard? = nil) {
        (self.code, self.state, self.heard) = (code, state, heard)
    }

    enum CodingKeys: String, CodingKey {
        case code, state, players, joined
        case leaderName = "leader_name"
        case leaderDevice = "leader_device"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        state = try container.decode(String.self, forKey: .state)
        heard =
            container.contains(.joined)
            ? Heard(
                leaderName: try container.decodeIfPresent(String.self, forKey: .leaderName),
                leaderDevice: try container.decode(String.self, forKey: .leaderDevice),
                players: try container.decode([String].self, forKey: .players)) : nil
    }

    /// A heard game with `joined: false` and its leader's name (`null` when unknown); an ended
    /// one with its code and state alone.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(state, forKey: .state)
        guard let heard else { return }
        try container.encode(heard.leaderName, forKey: .leaderName)
        try container.encode(heard.players, forKey: .players)
        try container.encode(heard.leaderDevice, forKey: .leaderDevice)
        try container.encode(false, forKey: .joined)
    }
}

/// The reply to `create` and `join`: the session and the player made at this device.
public struct SessionJoined: Codable, Sendable, Equatable {
    public let session: TurnSession
    public let player: TurnSession.Player

    public init(session: TurnSession, player: TurnSession.Player) { (self.session, self.player) = (session, player) }
}

/// The arguments of the turn service's commands (`turn.cmd`), as the CLI, the page and the
/// notifier's buttons send them. Each command reads those it takes:
///
/// - `create`: `name`, `timer_seconds?`, `timer_pass?`
/// - `done`, `leave`: `code`, `player?` (id or name), `seq?` (done: the state the player saw)
/// - `order`: `code`, `players` (every player's name, in the new order)
/// - `timer`: `code`, `seconds` (absent or null: off), `pass?`, `seq?`
/// - `pause`, `resume`, `reverse`: `code`, `seq?` (`reverse` also `player?`: who plays it)
/// - `skip`: `code`, `player?` (name or id; default the current player), `until_back?`, `seq?`
/// - `back`: `code`, `player?` (default the one player at this device sitting out)
public struct TurnCommandArguments: Codable, Sendable, Equatable {
    public var code: String?
    public var name: String?
    public var player: String?
    public var seq: Int64?
    public var seconds: Int64?
    public var pass: Bool?
    public var untilBack: Bool?
    public var timerSeconds: Int64?
    public var timerPass: Bool?
    public var players: [String]?

    public init(
        code: String? = nil, name: String? = nil, player: String? = nil, seq: Int64? = nil, seconds: Int64? = nil,
        pass: Bool? = nil, untilBack: Bool? = nil, timerSeconds: Int64? = nil, timerPass: Bool? = nil
    ) {
        (self.code, self.name, self.player, self.seq, self.seconds) = (code, name, player, seq, seconds)
        (self.pass, self.untilBack, self.timerSeconds, self.timerPass) = (pass, untilBack, timerSeconds, timerPass)
    }

    enum CodingKeys: String, CodingKey {
        case code, name, player, seq, seconds, pass, players
        case untilBack = "until_back"
        case timerSeconds = "timer_seconds"
        case timerPass = "timer_pass"
    }

    /// The timer `seconds` (or `timer_seconds`) and `pass` ask for; `nil` for none.
    /// - Throws: `TurnError.invalidTimer` outside 5 s to 24 h.
    public static func timer(seconds: Int64?, passes: Bool?) throws(TurnError) -> TurnTimer? {
        guard let seconds else { return nil }
        guard (0...TurnTimer.limits.upperBound / 1_000).contains(seconds) else {
            throw .invalidTimer("must be from 5 s to 24 h, not \(seconds) s")
        }
        return try TurnTimer(limit: seconds * 1_000, passes: passes ?? false)
    }
}
