import Foundation

/// A board game's turn order across the players' devices: who plays, in which order, whose turn
/// it is, who leads. Pure rules; `hearth-turn` holds sessions in memory and moves them on.
///
/// Every transition bumps `seq`, so every copy of a session can tell a newer state from an older
/// one, and a `done` from an earlier turn is recognisably stale.
public struct TurnSession: Sendable, Equatable {
    /// The most players a session takes.
    public static let maximumPlayers = 8
    /// The fewest players a game starts with.
    public static let minimumPlayers = 2
    /// The longest player name, in characters.
    public static let maximumNameLength = 32
    /// The largest `seq`, turn count or turn start a session may carry: 2^53 − 1, the largest
    /// integer every JSON reader holds exactly (a browser's among them). A copy received with
    /// more is malformed; the bound also leaves every transition room to count on (a session
    /// received at `Int64.max` trapped the first time a device moved it on).
    public static let maximumSeq: Int64 = (1 << 53) - 1

    /// Where a session is in its life.
    public enum State: String, Sendable, Equatable {
        case open, playing, ended
    }

    /// One player at one device.
    public struct Player: Sendable, Equatable {
        public let id: String
        public let name: String
        /// The device the player sits at: "Your turn" pops up there.
        public let device: String
        /// Whether the player's device has been heard from in the last few seconds.
        public var present: Bool

        public init(id: String, name: String, device: String, present: Bool = true) {
            self.id = id
            self.name = name
            self.device = device
            self.present = present
        }
    }

    /// What one transition did, for the `turn.<code>.changed` event.
    public struct Change: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case created, joined, left, reordered, started, done, leader, away, back, ended
            /// The timer set or turned off; paused and resumed; a player skipped this round, sat
            /// out until back, or back; the order reversed.
            case timer, paused, resumed, skipped, reversed, returned
            case sittingOut = "sitting-out"
            /// The turn's time running out (the warning), and up.
            case warning
            case timeUp = "time-up"
        }
        public let kind: Kind
        /// The player it is about (who joined, left, finished a turn, became leader…).
        public let player: Player?

        public init(kind: Kind, player: Player?) {
            self.kind = kind
            self.player = player
        }
    }

    public let id: String
    public let code: String
    public internal(set) var seq: Int64
    /// The lead's term: raised each time the lead passes from one player to another (a leader
    /// leaving, a take-over, a hand-over). Of two copies led by different devices, the one with
    /// the higher term is the game (`rank`).
    public internal(set) var term: Int64
    public internal(set) var state: State
    /// The players in turn order.
    public internal(set) var players: [Player]
    /// The player whose turn it is (while playing).
    public internal(set) var current: String?
    /// The leader's player id: the leader's device is authoritative.
    public internal(set) var leader: String
    /// Turns played so far (the current one is `turn`).
    public internal(set) var turn: Int64
    /// The `seq` at which the current turn began: a `done` sent for an earlier state than that is stale.
    public internal(set) var turnStartSeq: Int64
    /// The current turn's clock: time played, the timer, paused.
    public internal(set) var clock: TurnClock
    /// Players passed over the next time the turn would reach them (`skip`), by id.
    public internal(set) var skipped: Set<String>
    /// Players sitting out until they are back (`skip --until-back`), by id.
    public internal(set) var sittingOut: Set<String>
    /// The `seq` of the last skip, reverse, reorder, timer, pause or resume: such a command sent
    /// for an earlier state than this (a second tap, an old popup's button) is stale.
    public internal(set) var controlSeq: Int64
    /// Each player's turns so far, for the end of the game.
    public internal(set) var statistics: TurnStatistics

    /// A new open session with its leader as the first player.
    /// - Throws: `TurnError` if the leader's name is not acceptable.
    public init(id: String, code: String, leader: Player) throws(TurnError) {
        try Self.check(name: leader.name)
        guard SessionCode.isValid(code) else { throw .invalidCode(code) }
        self.id = id
        self.code = code
        seq = 1
        term = 0
        state = .open
        players = [leader]
        current = nil
        self.leader = leader.id
        turn = 0
        turnStartSeq = 0
        clock = TurnClock()
        skipped = []
        sittingOut = []
        controlSeq = 0
        statistics = TurnStatistics()
    }

    /// A session exactly as given, as received from its leader; `validate` checks it.
    public init(
        id: String, code: String, seq: Int64, term: Int64 = 0, state: State, players: [Player], current: String?,
        leader: String, turn: Int64, turnStartSeq: Int64, clock: TurnClock = TurnClock(), skipped: Set<String> = [],
        sittingOut: Set<String> = [], controlSeq: Int64 = 0, statistics: TurnStatistics = TurnStatistics()
    ) {
        self.id = id
        self.code = code
        self.seq = seq
        self.term = term
        self.state = state
        self.players = players
        self.current = current
        self.leader = leader
        self.turn = turn
        self.turnStartSeq = turnStartSeq
        self.clock = clock
        self.skipped = skipped
        self.sittingOut = sittingOut
        self.controlSeq = controlSeq
        self.statistics = statistics
    }

    /// Checks a received session for consistency.
    /// - Throws: `TurnError.malformed` naming what is wrong.
    public func validate() throws(TurnError) {
        guard SessionCode.isValid(code) else { throw .invalidCode(code) }
        guard seq > 0 else { throw .malformed("seq must be positive") }
        guard seq <= Self.maximumSeq else { throw .malformed("seq: \(seq) is above the largest, \(Self.maximumSeq)") }
        guard (0...Self.maximumSeq).contains(turn) else {
            throw .malformed("turn: \(turn) must be from 0 to \(Self.maximumSeq)")
        }
        for (field, value) in [
            ("term", term), ("turn_start_seq", turnStartSeq), ("control_seq", controlSeq),
            ("clock.used_ms", clock.used),
            ("clock.timer_base_ms", clock.timerBase),
        ] where !(0...Self.maximumSeq).contains(value) {
            throw .malformed("\(field): \(value) must be from 0 to \(Self.maximumSeq)")
        }
        guard clock.timerBase <= clock.used else { throw .malformed("clock: the timer started after now") }
        let ids = Set(players.map(\.id))
        guard skipped.isSubset(of: ids), sittingOut.isSubset(of: ids) else {
            throw .malformed("skipped, sitting_out: not a player")
        }
        try statistics.validate()
        guard players.count <= Self.maximumPlayers else { throw .malformed("more than 8 players") }
        guard ids.count == players.count else { throw .malformed("players: duplicate id") }
        guard state == .ended || players.contains(where: { $0.id == leader }) else {
            throw .malformed("leader: not a player")
        }
        if state == .playing {
            guard let current, players.contains(where: { $0.id == current }) else {
                throw .malformed("current: not a player")
            }
        }
    }

    // MARK: - Looking up

    /// The player with `id`.
    public func player(_ id: String) -> Player? { players.first { $0.id == id } }

    /// The player called `name` (names are unique, ignoring case).
    public func player(named name: String) -> Player? {
        players.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The player a command names, by id or by name.
    /// - Throws: `TurnError.unknownPlayer` when none is.
    public func player(idOrName text: String) throws(TurnError) -> Player {
        guard let found = player(text) ?? player(named: text) else { throw .unknownPlayer(text) }
        return found
    }

    /// The leader.
    public var leaderPlayer: Player? { player(leader) }

    /// The player whose turn it is.
    public var currentPlayer: Player? { current.flatMap { player($0) } }

    /// The devices players sit at, in turn order, each once.
    public var devices: [String] {
        var seen = Set<String>()
        return players.map(\.device).filter { seen.insert($0).inserted }
    }

    // MARK: - Transitions

    /// Adds a player at the end of the order (also during play).
    /// - Throws: `TurnError` if the session is over or full, or the name is taken or unacceptable.
    public mutating func join(_ player: Player) throws(TurnError) -> Change {
        guard state != .ended else { throw .ended(code) }
        try Self.check(name: player.name)
        guard players.count < Self.maximumPlayers else { throw .full(code) }
        guard self.player(named: player.name) == nil else { throw .nameTaken(player.name) }
        guard self.player(player.id) == nil else {
            throw .malformed("player id \(player.id) is already in the session")
        }
        players.append(player)
        return bump(.joined, player)
    }

    /// Starts play with the first player in order.
    /// - Throws: `TurnError` unless `by` is the leader, the session is open and has 2 players.
    public mutating func start(by playerID: String) throws(TurnError) -> Change {
        guard state == .open else { throw state == .ended ? .ended(code) : .alreadyStarted(code) }
        guard playerID == leader else { throw .notLeader(name(of: playerID)) }
        guard players.count >= Self.minimumPlayers else { throw .tooFewPlayers(players.count) }
        state = .playing
        let first = players.first { !sittingOut.contains($0.id) } ?? players[0]
        current = first.id
        turn = 1
        clock.restart()
        let change = bump(.started, first)
        turnStartSeq = seq
        return change
    }

    /// Ends `playerID`'s turn and passes it to the next player in order.
    /// - Parameter seq: the session `seq` the player saw when pressing Done; a value from before
    ///   the current turn began is stale (a double tap, a late retry) and refused. `nil` when the
    ///   caller has no such number (a typed command naming the player).
    /// - Throws: `TurnError.notYourTurn` or `.stale`.
    public mutating func done(by playerID: String, seq seen: Int64?) throws(TurnError) -> Change {
        guard state == .playing else { throw state == .ended ? .ended(code) : .notStarted(code) }
        guard let player = player(playerID) else { throw .unknownPlayer(playerID) }
        guard current == playerID else { throw .notYourTurn(player.name, current: currentPlayer?.name ?? "nobody") }
        if let seen, seen < turnStartSeq || seen > seq { throw .stale(seen: seen, current: seq) }
        statistics.record(player, milliseconds: clock.used)
        passTurn(after: playerID)
        let change = bump(.done, player)
        turnStartSeq = seq
        return change
    }

    /// Sets a new order: every player, each once, by name. The current player keeps the turn.
    /// - Throws: `TurnError` unless `by` is the leader and `names` is exactly the players.
    public mutating func reorder(_ names: [String], by playerID: String) throws(TurnError) -> Change {
        guard state != .ended else { throw .ended(code) }
        guard playerID == leader else { throw .notLeader(name(of: playerID)) }
        var ordered: [Player] = []
        for name in names {
            guard let player = player(named: name) else { throw .unknownPlayer(name) }
            guard !ordered.contains(where: { $0.id == player.id }) else { throw .malformed("order: \(name) twice") }
            ordered.append(player)
        }
        guard ordered.count == players.count else {
            let missing = players.filter { player in !ordered.contains { $0.id == player.id } }.map(\.name)
            throw .malformed("order: missing \(missing.joined(separator: ", "))")
        }
        players = ordered
        let change = bump(.reordered, leaderPlayer)
        controlSeq = seq
        return change
    }

    /// Removes a player. On their turn, the turn passes on; a leader hands leadership to the next
    /// player in order. The last player leaving ends the session.
    /// - Returns: the changes made, in order (left, then possibly leader or ended).
    /// - Throws: `TurnError` if the session is over or the player unknown.
    public mutating func leave(_ playerID: String) throws(TurnError) -> [Change] {
        guard state != .ended else { throw .ended(code) }
        guard let index = players.firstIndex(where: { $0.id == playerID }) else { throw .unknownPlayer(playerID) }
        let leaving = players[index]
        let successor = players.count > 1 ? players[(index + 1) % players.count] : nil
        let hadTurn = current == playerID
        if hadTurn { passTurn(after: playerID, leaving: true) }
        players.remove(at: index)
        skipped.remove(playerID)
        sittingOut.remove(playerID)
        guard let successor else {
            current = nil
            state = .ended
            return [bump(.left, leaving), bump(.ended, nil)]
        }
        var changes = [bump(.left, leaving)]
        if hadTurn { turnStartSeq = seq }
        if leader == playerID {
            leader = successor.id
            term += 1
            changes.append(bump(.leader, successor))
        }
        return changes
    }

    /// Ends the session (the leader only).
    public mutating func end(by playerID: String) throws(TurnError) -> Change {
        guard state != .ended else { throw .ended(code) }
        guard playerID == leader else { throw .notLeader(name(of: playerID)) }
        // The turn in play when the game ends was played: it counts.
        if state == .playing, let player = currentPlayer { statistics.record(player, milliseconds: clock.used) }
        state = .ended
        current = nil
        return bump(.ended, leaderPlayer)
    }

    /// Marks every player at `device` present or away. Returns `nil` if nothing changed.
    public mutating func setPresence(device: String, present: Bool) -> Change? {
        var changed: Player?
        for index in players.indices where players[index].device == device && players[index].present != present {
            players[index].present = present
            changed = changed ?? players[index]
        }
        guard let changed, state != .ended else { return nil }
        return bump(present ? .back : .away, changed)
    }

    // MARK: - Helpers

    mutating func bump(_ kind: Change.Kind, _ player: Player?) -> Change {
        seq += 1
        return Change(kind: kind, player: player)
    }

    /// Moves `current` to the next player in order after `playerID` (cycling) who is not sitting
    /// out, passing over (and clearing) those skipped this round, and starts the new turn's clock.
    /// When everyone else is skipped or sitting out, the first not sitting out plays; a player
    /// `leaving` is never chosen.
    mutating func passTurn(after playerID: String, leaving: Bool = false) {
        guard let index = players.firstIndex(where: { $0.id == playerID }) else {
            current = nil
            return
        }
        let order = (1...players.count).map { players[(index + $0) % players.count] }
            .filter { !(leaving && $0.id == playerID) }
        var next = order.first { player in
            guard !sittingOut.contains(player.id) else { return false }
            return skipped.remove(player.id) == nil
        }
        next = next ?? order.first { !sittingOut.contains($0.id) }
        current = (next ?? order.first)?.id
        turn += 1
        clock.restart()
    }

    func name(of playerID: String) -> String { player(playerID)?.name ?? playerID }

    static func check(name: String) throws(TurnError) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed == name else {
            throw .invalidName(name, "must be non-empty, without surrounding spaces")
        }
        do {
            try TextRules.check(name, field: "name", maximumLength: maximumNameLength)
        } catch {
            throw .invalidName(name, error.rule)
        }
    }
}
