/// The turn service's commands (`turn.cmd`), one type each: what the CLI, the page and the tests
/// send, and what `hearth-turn` decodes. Each encodes to the arguments the service always read,
/// a subset of `TurnCommandArguments` (which a player's device forwards to the leader's).
public enum TurnCommands {
    /// A new session with the sender as its leader.
    public struct Create: HearthCommand {
        public typealias Reply = SessionJoined
        public static let name = "create"
        /// The leader's name.
        public var name: String
        /// A turn timer's limit, 5 s to 24 h, and whether running out passes the turn.
        public var timerSeconds: Int64?
        public var timerPass: Bool?

        public init(name: String, timerSeconds: Int64? = nil, timerPass: Bool? = nil) {
            (self.name, self.timerSeconds, self.timerPass) = (name, timerSeconds, timerPass)
        }
    }

    /// The open sessions this device can see: its own and those in beacons.
    public struct Sessions: HearthCommand {
        public typealias Reply = SessionListing.List
        public static let name = "sessions"
        public init() {}
    }

    /// Joins a session by its code.
    public struct Join: HearthCommand {
        public typealias Reply = SessionJoined
        public static let name = "join"
        public var code: String
        public var name: String
        public init(code: String, name: String) { (self.code, self.name) = (code, name) }
    }

    /// A session's players, order, whose turn it is, and its clock now.
    public struct Status: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "status"
        public var code: String
        public init(code: String) { self.code = code }
    }

    /// Starts play (the leader).
    public struct Start: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "start"
        public var code: String
        public init(code: String) { self.code = code }
    }

    /// Ends the session (the leader).
    public struct End: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "end"
        public var code: String
        public init(code: String) { self.code = code }
    }

    /// A new order of play by the players' names (the leader).
    public struct Order: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "order"
        public var code: String
        public var players: [String]
        public init(code: String, players: [String]) { (self.code, self.players) = (code, players) }
    }

    /// Ends a turn: the named player's, or this device's only or current player's. With `seq`,
    /// only if the game is still at that step (a repeated Done ends one turn, not two).
    public struct Done: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "done"
        public var code: String
        public var player: String?
        public var seq: Int64?
        public init(code: String, player: String? = nil, seq: Int64? = nil) {
            (self.code, self.player, self.seq) = (code, player, seq)
        }
    }

    /// Leaves the session; on the player's turn, it passes on.
    public struct Leave: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "leave"
        public var code: String
        public var player: String?
        public init(code: String, player: String? = nil) { (self.code, self.player) = (code, player) }
    }

    /// Sets or clears the turn timer (the leader); without `pass`, whether it passes stays.
    public struct Timer: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "timer"
        public var code: String
        public var seconds: Int64?
        public var pass: Bool?
        public var seq: Int64?
        public init(code: String, seconds: Int64? = nil, pass: Bool? = nil, seq: Int64? = nil) {
            (self.code, self.seconds, self.pass, self.seq) = (code, seconds, pass, seq)
        }
    }

    /// Stops the clock (the leader).
    public struct Pause: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "pause"
        public var code: String
        public var seq: Int64?
        public init(code: String, seq: Int64? = nil) { (self.code, self.seq) = (code, seq) }
    }

    /// Starts the clock again where it stopped (the leader).
    public struct Resume: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "resume"
        public var code: String
        public var seq: Int64?
        public init(code: String, seq: Int64? = nil) { (self.code, self.seq) = (code, seq) }
    }

    /// Skips a player's turns (the leader): the current one, or the named player's once or
    /// until they are back.
    public struct Skip: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "skip"
        public var code: String
        public var player: String?
        public var untilBack: Bool?
        public var seq: Int64?
        public init(code: String, player: String? = nil, untilBack: Bool? = nil, seq: Int64? = nil) {
            (self.code, self.player, self.untilBack, self.seq) = (code, player, untilBack, seq)
        }
    }

    /// A player sitting out is back.
    public struct Back: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "back"
        public var code: String
        public var player: String?
        public init(code: String, player: String? = nil) { (self.code, self.player) = (code, player) }
    }

    /// Reverses the order of play (the leader or the current player).
    public struct Reverse: HearthCommand {
        public typealias Reply = TurnStatus
        public static let name = "reverse"
        public var code: String
        public var player: String?
        public var seq: Int64?
        public init(code: String, player: String? = nil, seq: Int64? = nil) {
            (self.code, self.player, self.seq) = (code, player, seq)
        }
    }
}

/// What the turn service answers a command on a session with (`status`, and every command that
/// changes one): the session held here with its clock now, or a glimpse of a game only heard of
/// or ended.
public struct TurnStatus: Decodable, Sendable {
    public enum Game: Sendable {
        /// A session this device holds.
        case held(TurnSession)
        /// A game this device only hears of, or one that has ended.
        case glimpse(SessionGlimpse)
    }

    public let game: Game
    /// The session's clock as read when the reply was made (a held session's).
    public let clockNow: TurnClockReading?

    public init(from decoder: any Decoder) throws {
        // A held session has its players with ids and its order; a glimpse only a code and a state.
        if let session = try? TurnSession(from: decoder) {
            game = .held(session)
        } else {
            game = .glimpse(try SessionGlimpse(from: decoder))
        }
        clockNow = try TurnClockReading.Carrier(from: decoder).clockNow
    }
}
