/// The one wire form of a session, its players and its changes: what the turn service's peers
/// exchange, what its events carry, and what the CLI and the notifier read.

extension TurnSession.State: Codable {}
extension TurnSession.Change.Kind: Codable {}

extension TurnSession.Player: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, device, present
    }

    /// A player as received; `present` defaults to true when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
            device: try container.decode(String.self, forKey: .device),
            present: try container.decodeIfPresent(Bool.self, forKey: .present) ?? true)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(device, forKey: .device)
        try container.encode(present, forKey: .present)
    }
}

extension TurnSession.Change: Codable {
    enum CodingKeys: String, CodingKey {
        case kind, player
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            kind: try container.decode(Kind.self, forKey: .kind),
            player: try container.decodeIfPresent(TurnSession.Player.self, forKey: .player))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(player, forKey: .player)
    }
}

extension TurnSession: Codable {
    enum CodingKeys: String, CodingKey {
        case id, code, seq, term, state, turn, leader, current, players, clock, skipped, statistics
        case turnStartSeq = "turn_start_seq"
        case sittingOut = "sitting_out"
        case controlSeq = "control_seq"
        // Written for readers' convenience (the CLI's --json, a person watching the bus); derived
        // from the players when read.
        case leaderName = "leader_name"
        case leaderDevice = "leader_device"
        case currentName = "current_name"
    }

    /// A session as received from its leader, checked for consistency (`validate`).
    /// - Throws: `DecodingError` naming a missing or mistyped field, `TurnError.malformed` for
    ///   an inconsistent session.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id), code: try container.decode(String.self, forKey: .code),
            seq: try container.decode(Int64.self, forKey: .seq),
            term: try container.decodeIfPresent(Int64.self, forKey: .term) ?? 0,
            state: try container.decode(State.self, forKey: .state),
            players: try container.decode([Player].self, forKey: .players),
            current: try container.decodeIfPresent(String.self, forKey: .current),
            leader: try container.decode(String.self, forKey: .leader),
            turn: try container.decodeIfPresent(Int64.self, forKey: .turn) ?? 0,
            turnStartSeq: try container.decodeIfPresent(Int64.self, forKey: .turnStartSeq) ?? 0,
            clock: try container.decodeIfPresent(TurnClock.self, forKey: .clock) ?? TurnClock(),
            skipped: Set(try container.decodeIfPresent([String].self, forKey: .skipped) ?? []),
            sittingOut: Set(try container.decodeIfPresent([String].self, forKey: .sittingOut) ?? []),
            controlSeq: try container.decodeIfPresent(Int64.self, forKey: .controlSeq) ?? 0,
            statistics: try container.decodeIfPresent(TurnStatistics.self, forKey: .statistics) ?? TurnStatistics())
        try validate()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(code, forKey: .code)
        try container.encode(seq, forKey: .seq)
        try container.encode(term, forKey: .term)
        try container.encode(state, forKey: .state)
        try container.encode(turn, forKey: .turn)
        try container.encode(turnStartSeq, forKey: .turnStartSeq)
        try container.encode(leader, forKey: .leader)
        try container.encodeIfPresent(current, forKey: .current)
        try container.encode(players, forKey: .players)
        try container.encode(clock, forKey: .clock)
        try container.encode(controlSeq, forKey: .controlSeq)
        try container.encode(skipped.sorted(), forKey: .skipped)
        try container.encode(sittingOut.sorted(), forKey: .sittingOut)
        try container.encode(statistics, forKey: .statistics)
        try container.encodeIfPresent(leaderPlayer?.name, forKey: .leaderName)
        try container.encodeIfPresent(leaderPlayer?.device, forKey: .leaderDevice)
        try container.encodeIfPresent(currentPlayer?.name, forKey: .currentName)
    }
}
