/// Why a turn command was refused, in words a player understands.
public enum TurnError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidCode(String)
    case invalidName(String, String)
    case noSuchSession(String)
    case ended(String)
    case full(String)
    case nameTaken(String)
    case notLeader(String)
    case tooFewPlayers(Int)
    case alreadyStarted(String)
    case notStarted(String)
    case unknownPlayer(String)
    case notYourTurn(String, current: String)
    case stale(seen: Int64, current: Int64)
    case invalidTimer(String)
    /// The game is paused already (`true`), or is not paused (`false`).
    case paused(String, Bool)
    /// The player is sitting out already (`true`), or is not sitting out (`false`).
    case sittingOut(String, Bool)
    case alreadySkipped(String)
    /// Sitting this player out would leave nobody playing.
    case nobodyPlaying(String)
    case malformed(String)

    /// The field the error is about, for command errors.
    public var field: String {
        switch self {
        case .invalidCode, .noSuchSession, .ended, .full, .alreadyStarted, .notStarted: "code"
        case .invalidName, .nameTaken: "name"
        case .notLeader, .unknownPlayer, .notYourTurn, .sittingOut, .alreadySkipped, .nobodyPlaying: "player"
        case .invalidTimer: "timer"
        case .paused: "code"
        case .tooFewPlayers: "players"
        case .stale: "seq"
        case .malformed: "session"
        }
    }

    public var description: String {
        switch self {
        case .invalidCode(let code):
            "\(code) is not a session code (three characters, a dash, one more, such as J7X-3)"
        case .invalidName(let name, let rule): "name \"\(name)\" \(rule)"
        case .noSuchSession(let code): "no session \(code) here or on any device in reach"
        case .ended(let code): "session \(code) has ended"
        case .full(let code): "session \(code) is full (8 players)"
        case .nameTaken(let name): "the name \(name) is taken in this session"
        case .notLeader(let name): "only the leader can do that, not \(name)"
        case .tooFewPlayers(let count): "a game needs at least 2 players, this one has \(count)"
        case .alreadyStarted(let code): "session \(code) has already started"
        case .notStarted(let code): "session \(code) has not started"
        case .unknownPlayer(let name): "no player \(name) in this session"
        case .notYourTurn(let name, let current): "it is not \(name)'s turn (it is \(current)'s)"
        case .stale(let seen, let current):
            "that was for an earlier state of the game (seq \(seen)); the session is at seq \(current)"
        case .invalidTimer(let rule): "the turn timer \(rule)"
        case .paused(let code, true): "session \(code) is paused already"
        case .paused(let code, false): "session \(code) is not paused"
        case .sittingOut(let name, true): "\(name) is sitting out already"
        case .sittingOut(let name, false): "\(name) is not sitting out"
        case .alreadySkipped(let name): "\(name) is skipped this round already"
        case .nobodyPlaying(let name): "sitting \(name) out would leave nobody playing"
        case .malformed(let rule): rule
        }
    }
}
