import HearthBus
import HearthCore

extension TurnSession.Player {
    /// `{"id", "name", "device", "present"}`
    var json: JSONValue {
        ["id": .string(id), "name": .string(name), "device": .string(device), "present": .bool(present)]
    }

    init(json: JSONValue) throws(TurnError) {
        guard let id = json["id"]?.stringValue, let name = json["name"]?.stringValue,
            let device = json["device"]?.stringValue
        else { throw .malformed("players: each needs id, name and device") }
        self.init(id: id, name: name, device: device, present: json["present"]?.boolValue ?? true)
    }
}

extension TurnSession {
    /// The whole session as events and peers carry it.
    var json: JSONValue {
        [
            "id": .string(id), "code": .string(code), "seq": .int(seq), "state": .string(state.rawValue),
            "turn": .int(turn), "turn_start_seq": .int(turnStartSeq), "leader": .string(leader),
            "leader_name": leaderPlayer.map { .string($0.name) } ?? .null,
            "leader_device": leaderPlayer.map { .string($0.device) } ?? .null,
            "current": current.map { .string($0) } ?? .null,
            "current_name": currentPlayer.map { .string($0.name) } ?? .null,
            "players": .array(players.map(\.json)),
        ]
    }

    /// A session received from a peer, checked for consistency.
    /// - Throws: `TurnError.malformed` naming the missing or inconsistent field.
    init(json: JSONValue) throws(TurnError) {
        guard let id = json["id"]?.stringValue else { throw .malformed("session.id is missing") }
        guard let code = json["code"]?.stringValue else { throw .malformed("session.code is missing") }
        guard let seq = json["seq"]?.intValue else { throw .malformed("session.seq is missing") }
        guard let stateText = json["state"]?.stringValue, let state = State(rawValue: stateText) else {
            throw .malformed("session.state must be open, playing or ended")
        }
        guard let leader = json["leader"]?.stringValue else { throw .malformed("session.leader is missing") }
        guard let players = json["players"]?.arrayValue else { throw .malformed("session.players is missing") }
        var parsed: [Player] = []
        for player in players { parsed.append(try Player(json: player)) }
        self.init(
            id: id, code: code, seq: seq, state: state, players: parsed, current: json["current"]?.stringValue,
            leader: leader, turn: json["turn"]?.intValue ?? 0, turnStartSeq: json["turn_start_seq"]?.intValue ?? 0)
        try validate()
    }
}

extension TurnSession.Change {
    var json: JSONValue {
        ["kind": .string(kind.rawValue), "player": player?.json ?? .null]
    }
}

extension TurnError {
    /// The command error a refusal becomes.
    var commandError: CommandError { CommandError(code: "refused", message: "\(field): \(description)") }
}
