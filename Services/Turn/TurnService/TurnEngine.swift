import Foundation
import HearthBus
import HearthCore
import Logging

/// The live turn sessions this device takes part in, in memory only, and the protocol that keeps
/// every device's copy in step with the leader's.
///
/// The device of a session's leader is authoritative: it applies every transition and pushes the
/// new state to the other players' devices over CURVE-encrypted links (`PeerLink`). The others
/// send it requests (join, done, leave) and a heartbeat every second; it answers a heartbeat with
/// the state whenever the sender's copy is behind, so a dropped link resyncs by itself. A member
/// silent for 5 s is shown away; a leader silent for 15 s is replaced by the next player's
/// device, with the state it holds.
///
/// Peer messages are one JSON frame each:
/// - member → leader: `{"t":"hb","device","seqs":{code:seq}}`,
///   `{"t":"req","id","cmd":"join"|"done"|"leave","device","code","args":{…}}`
/// - leader → member: `{"t":"rep","id","ok",("session"|"error")}`, `{"t":"state","session","change"}`,
///   `{"t":"hb"}`, `{"t":"gone","code"}`
actor TurnEngine {
    static let heartbeat = Duration.seconds(1)
    static let awayAfter = Duration.seconds(5)
    static let takeOverAfter = Duration.seconds(15)
    /// How long a request to a leader's device waits (checked on each tick, so up to a second more).
    static let requestTimeout = Duration.seconds(3)
    /// Join requests one device may make per second; the rest are refused.
    static let joinsPerSecond = 5

    let device: String
    private let keyPair: CurveKeyPair
    private let peerPort: Int
    private let publisher: Publisher
    private let peerSocket: SocketThread
    /// Discovery; `nil` when its UDP port could not be bound (links still work once known).
    private let beacon: Beacon?
    private let context: ZMQContext
    private let logger: Logger
    private let linkSink: AsyncStream<PeerLink>.Continuation
    private let clock = ContinuousClock()

    /// A session and which device leads it.
    private struct Held {
        var session: TurnSession
        var leaderDevice: String { session.leaderPlayer?.device ?? "" }
    }
    private var sessions: [String: Held] = [:]

    /// What a device announced in its beacon.
    struct Peer {
        var host: String
        var peerPort: Int
        var key: String
        var sessions: [JSONValue]
        var lastSeen: ContinuousClock.Instant
        var endpoint: String { "tcp://\(host):\(peerPort)" }
    }
    private var peers: [String: Peer] = [:]

    // Leading: where each member device is reached, when it was last heard, its recent requests.
    private var routes: [String: Frame] = [:]
    private var memberHeard: [String: ContinuousClock.Instant] = [:]
    private typealias JoinWindow = (start: ContinuousClock.Instant, count: Int)
    /// Join attempts in the current second, per connection (routing id) and in all.
    private var joinWindows: [Frame: JoinWindow] = [:]
    private var allJoins: JoinWindow = (ContinuousClock.now, 0)
    private var answered: [String: [(id: String, reply: JSONValue)]] = [:]
    /// Each member device's CURVE public key, bound when it joined (or first heard after a take-over).
    private var deviceKeys: [String: String] = [:]
    /// Following: each session's device keys as its leader last sent them.
    private var sessionKeys: [String: [String: String]] = [:]

    // Following: one link per leading device, when it was last heard, requests awaiting replies.
    private var links: [String: PeerLink] = [:]
    private var leaderHeard: [String: ContinuousClock.Instant] = [:]
    private var pending:
        [String: (continuation: CheckedContinuation<JSONValue, any Error>, deadline: ContinuousClock.Instant)] = [:]
    private var random = SystemRandomNumberGenerator()

    init(
        device: String, keyPair: CurveKeyPair, peerPort: Int, publisher: Publisher, peerSocket: SocketThread,
        beacon: Beacon?, context: ZMQContext, logger: Logger, linkSink: AsyncStream<PeerLink>.Continuation
    ) {
        self.device = device
        self.keyPair = keyPair
        self.peerPort = peerPort
        self.publisher = publisher
        self.peerSocket = peerSocket
        self.beacon = beacon
        self.context = context
        self.logger = logger
        self.linkSink = linkSink
    }

    // MARK: - Commands from this device (turn.cmd)

    /// Handles one command from the CLI or the notifier.
    func command(_ request: CommandRequest) async throws -> JSONValue {
        let arguments = request.arguments
        // Commands may carry the service's prefix, as a notification button names them (`turn.done`).
        let command = request.command.hasPrefix("turn.") ? String(request.command.dropFirst(5)) : request.command
        do {
            switch command {
            case "create": return try create(name: try Self.text(arguments, "name"))
            case "sessions": return sessionList()
            case "status": return try held(code(arguments)).session.json
            case "join": return try await join(code: try code(arguments), name: try Self.text(arguments, "name"))
            case "start", "order", "end":
                return try leaderCommand(command, code: try code(arguments), arguments: arguments)
            case "done", "leave":
                return try await playerCommand(command, code: try code(arguments), arguments: arguments)
            default:
                throw CommandError.unknownCommand(request.command, service: "turn")
            }
        } catch let error as TurnError {
            throw error.commandError
        }
    }

    private func code(_ arguments: [String: JSONValue]) throws -> String {
        let text = try Self.text(arguments, "code")
        guard let code = SessionCode.normalized(text) else { throw TurnError.invalidCode(text) }
        return code
    }

    static func text(_ arguments: [String: JSONValue], _ field: String) throws -> String {
        guard let value = arguments[field] else { throw CommandError.invalidArgument(field, "is required") }
        guard let text = value.stringValue else { throw CommandError.invalidArgument(field, "must be a string") }
        return text
    }

    private func held(_ code: String) throws(TurnError) -> Held {
        guard let held = sessions[code] else { throw .noSuchSession(code) }
        return held
    }

    /// Every code this device can see: its own sessions and those in beacons.
    private var visibleCodes: Set<String> {
        Set(sessions.keys).union(peers.values.flatMap { $0.sessions.compactMap { $0["code"]?.stringValue } })
    }

    private func create(name: String) throws -> JSONValue {
        let code = SessionCode.make(avoiding: visibleCodes, using: &random)
        let leader = TurnSession.Player(id: UUIDText.make(), name: name, device: device)
        let session = try TurnSession(id: UUIDText.make(), code: code, leader: leader)
        sessions[code] = Held(session: session)
        publishChanged(session, TurnSession.Change(kind: .created, player: leader), previous: nil)
        return ["session": session.json, "player": leader.json]
    }

    private func sessionList() -> JSONValue {
        var list: [String: JSONValue] = [:]
        // Only devices heard lately: a beacon stops when its device goes.
        for (device, peer) in peers where clock.now - peer.lastSeen < Self.awayAfter {
            for entry in peer.sessions {
                guard let code = entry["code"]?.stringValue else { continue }
                list[code] = [
                    "code": .string(code), "leader": entry["leader"] ?? .null, "state": entry["state"] ?? .null,
                    "players": .int(Int64(entry["players"]?.arrayValue?.count ?? 0)), "device": .string(device),
                    "joined": false,
                ]
            }
        }
        for (code, held) in sessions {
            list[code] = [
                "code": .string(code), "leader": held.session.leaderPlayer.map { .string($0.name) } ?? .null,
                "state": .string(held.session.state.rawValue), "players": .int(Int64(held.session.players.count)),
                "device": .string(held.leaderDevice), "joined": true,
            ]
        }
        return ["sessions": .array(list.keys.sorted().map { list[$0]! })]
    }

    /// Joins `code` as `name` at this device: locally if this device leads it, else by asking
    /// the device whose beacon lists it.
    private func join(code: String, name: String) async throws -> JSONValue {
        if let held = sessions[code], held.leaderDevice == device {
            let player = TurnSession.Player(id: UUIDText.make(), name: name, device: device)
            try apply(code) { session throws(TurnError) in [try session.join(player)] }
            return ["session": sessions[code]?.session.json ?? held.session.json, "player": player.json]
        }
        guard
            let (leaderDevice, _) = peers.first(where: {
                $0.value.sessions.contains { $0["code"]?.stringValue == code }
            })
        else { throw TurnError.noSuchSession(code) }
        let reply = try await request(leaderDevice, "join", code: code, arguments: ["name": .string(name)])
        let session = try TurnSession(json: reply["session"] ?? .null)
        guard let player = session.player(named: name) else {
            throw TurnError.malformed("the leader's reply lacks the new player")
        }
        receive(session, change: reply["change"] ?? .null, from: leaderDevice)
        return ["session": session.json, "player": player.json]
    }

    /// start, order and end: only on the leader's device, by the leader.
    private func leaderCommand(_ command: String, code: String, arguments: [String: JSONValue]) throws -> JSONValue {
        let held = try held(code)
        guard held.leaderDevice == device, let leader = held.session.leaderPlayer else {
            throw CommandError(
                code: "refused",
                message:
                    "player: only the leader's device can \(command) a game (the leader is \(held.session.leaderPlayer?.name ?? "unknown"))"
            )
        }
        try apply(code) { session throws(TurnError) in
            switch command {
            case "start": return [try session.start(by: leader.id)]
            case "end": return [try session.end(by: leader.id)]
            default:
                guard let names = arguments["players"]?.arrayValue?.compactMap(\.stringValue), !names.isEmpty else {
                    throw .malformed("players: give the new order as a list of names")
                }
                return [try session.reorder(names, by: leader.id)]
            }
        }
        return sessions[code]?.session.json ?? ["code": .string(code), "state": "ended"]
    }

    /// done and leave, for a player at this device (named, or the only one / the current one).
    private func playerCommand(
        _ command: String, code: String, arguments: [String: JSONValue]
    ) async throws -> JSONValue {
        let held = try held(code)
        let local = held.session.players.filter { $0.device == device }
        let player: TurnSession.Player
        if let named = arguments["player"]?.stringValue {
            guard let found = held.session.player(named) ?? held.session.player(named: named) else {
                throw TurnError.unknownPlayer(named)
            }
            player = found
        } else if command == "done", let current = held.session.currentPlayer, current.device == device {
            player = current
        } else if local.count == 1 {
            player = local[0]
        } else {
            throw CommandError.invalidArgument(
                "player", "is required: more than one player, or none, sits at this device")
        }
        guard player.device == device else {
            throw CommandError(
                code: "refused",
                message: "player: \(player.name) plays at another device; only that device can \(command) for them")
        }
        let seq = arguments["seq"]?.intValue
        if held.leaderDevice == device {
            try apply(code) { session throws(TurnError) in
                command == "done" ? [try session.done(by: player.id, seq: seq)] : try session.leave(player.id)
            }
            return sessions[code]?.session.json ?? ["code": .string(code), "state": "ended"]
        }
        var forwarded: [String: JSONValue] = ["player": .string(player.id)]
        if let seq { forwarded["seq"] = .int(seq) }
        let reply = try await request(held.leaderDevice, command, code: code, arguments: forwarded)
        let session = try TurnSession(json: reply["session"] ?? .null)
        receive(session, change: reply["change"] ?? .null, from: held.leaderDevice)
        return session.json
    }

    // MARK: - Leading: applying transitions and telling everyone

    /// Applies a transition to a session this device leads, then publishes it here and pushes it
    /// to every other device in the session.
    private func apply(
        _ code: String, _ transition: (inout TurnSession) throws(TurnError) -> [TurnSession.Change]
    ) throws(TurnError) {
        guard var held = sessions[code] else { throw .noSuchSession(code) }
        let previous = held.session
        let changes = try transition(&held.session)
        sessions[code] = held
        settle(code, previous: previous, changes: changes)
    }

    /// After a session changed here: publish each change, push the state to the other devices
    /// (the old ones too, so a leaving device hears it is out), and work out this device's role.
    private func settle(_ code: String, previous: TurnSession, changes: [TurnSession.Change]) {
        guard let session = sessions[code]?.session else { return }
        // Other devices first: theirs is the longer way to a popup.
        let message = stateMessage(session, change: changes.last?.json ?? .null)
        for member in Set(previous.devices + session.devices) where member != device {
            sendToMember(member, message)
        }
        for (index, change) in changes.enumerated() {
            publishChanged(session, change, previous: index == changes.count - 1 ? previous : session)
        }
        reconcile(code)
    }

    /// Decides this device's part in a session from its state: lead it, follow its leader's
    /// device, or (no players here, or ended) forget it.
    private func reconcile(_ code: String) {
        guard let held = sessions[code] else { return }
        let session = held.session
        if session.state == .ended || !session.players.contains(where: { $0.device == device }) {
            if held.leaderDevice != device || session.state == .ended {
                sessions.removeValue(forKey: code)
                sessionKeys.removeValue(forKey: code)
                return
            }
        }
        if held.leaderDevice != device {
            _ = link(to: held.leaderDevice)
            if leaderHeard[held.leaderDevice] == nil { leaderHeard[held.leaderDevice] = clock.now }
        } else {
            for member in session.devices where member != device && memberHeard[member] == nil {
                memberHeard[member] = clock.now
            }
            // Leading now (a take-over, a hand-off): the members' keys come from the old leader's
            // state, so a device is bound to its real key before it is next heard from.
            for (member, key) in sessionKeys[code] ?? [:] where member != device && deviceKeys[member] == nil {
                deviceKeys[member] = key
            }
        }
    }

    /// A session's state for the other devices, with each device's key as this leader knows it.
    private func stateMessage(_ session: TurnSession, change: JSONValue) -> JSONValue {
        var keys: [String: JSONValue] = [:]
        for member in session.devices {
            if let key = member == device ? keyPair.publicKey : deviceKeys[member] { keys[member] = .string(key) }
        }
        return ["t": "state", "session": session.json, "change": change, "keys": .object(keys)]
    }

    private func sendToMember(_ member: String, _ message: JSONValue) {
        guard let route = routes[member] else { return }  // it will resync on its next heartbeat
        try? peerSocket.send([route, message.jsonBytes])
    }

    // MARK: - Leading: messages from member devices

    /// One message on the peer socket: `[sender's CURVE key, routing id, JSON]`.
    func fromMember(_ frames: [Frame]) {
        guard frames.count == 3 else { return }
        let key = String(decoding: frames[0], as: UTF8.self)
        let route = frames[1]
        let reply = { (message: JSONValue) in try? self.peerSocket.send([route, message.jsonBytes]) }
        let message: JSONValue
        do {
            message = try JSONValue.parse(frames[2])
        } catch {
            reply(["t": "rep", "id": .null, "ok": false, "error": .string("message: not JSON (\(error))")])
            return
        }
        guard let sender = message["device"]?.stringValue, !sender.isEmpty, sender != device else {
            reply(["t": "rep", "id": message["id"] ?? .null, "ok": false, "error": "device: required, a device id"])
            return
        }
        // A device is its key: the first key heard for a device in a session here stays bound to
        // it, so nobody else can pass its turns or take its state pushes by claiming its id.
        if let bound = deviceKeys[sender], bound != key {
            reply([
                "t": "rep", "id": message["id"] ?? .null, "ok": false,
                "error": .string("device: \(sender) is known here by another key"),
            ])
            return
        }
        if deviceKeys[sender] == nil, !key.isEmpty,
            sessions.values.contains(where: { $0.leaderDevice == device && $0.session.devices.contains(sender) })
        {
            deviceKeys[sender] = key
        }
        routes[sender] = route
        memberHeard[sender] = clock.now
        switch message["t"]?.stringValue {
        case "hb":
            markPresent(sender)
            let seqs = message["seqs"]?.objectValue ?? [:]
            var answeredHeartbeat = false
            for (code, seqValue) in seqs {
                guard let held = sessions[code], held.leaderDevice == device,
                    held.session.players.contains(where: { $0.device == sender })
                else {
                    reply(["t": "gone", "code": .string(code)])
                    answeredHeartbeat = true
                    continue
                }
                let theirs = seqValue.intValue ?? 0
                if theirs > held.session.seq {
                    // A copy that saw more than this (new) leader did: continue above it.
                    sessions[code]?.session.raiseSeq(to: theirs + 1)
                }
                if let current = sessions[code]?.session, theirs != current.seq {
                    reply(stateMessage(current, change: .null))
                    answeredHeartbeat = true
                }
            }
            if !answeredHeartbeat { reply(["t": "hb"]) }
        case "req":
            let id = message["id"]?.stringValue ?? ""
            if let earlier = answered[sender]?.first(where: { $0.id == id }) {
                reply(earlier.reply)  // a retried request runs once
                return
            }
            let result = memberRequest(sender, connection: route, key: key, message)
            var response: JSONValue
            switch result {
            case .success(let (session, change)):
                response = ["t": "rep", "id": .string(id), "ok": true, "session": session.json, "change": change]
            case .failure(let error):
                response = ["t": "rep", "id": .string(id), "ok": false, "error": .string(error.message)]
            }
            answered[sender, default: []].append((id, response))
            if answered[sender]!.count > 64 { answered[sender]!.removeFirst() }
            reply(response)
        default:
            reply(["t": "rep", "id": message["id"] ?? .null, "ok": false, "error": "t: must be hb or req"])
        }
    }

    private func memberRequest(
        _ sender: String, connection: Frame, key connectionKey: String, _ message: JSONValue
    ) -> Result<(TurnSession, JSONValue), CommandError> {
        let arguments = message["args"]?.objectValue ?? [:]
        if message["cmd"] == "join" {
            // Every join attempt counts, right code or wrong: guessing codes is what a flood does.
            // Counted per connection (a claimed device id costs nothing to change) and in all.
            let now = clock.now
            let fromConnection = Self.count(&joinWindows[connection, default: (now, 0)], at: now)
            let fromAll = Self.count(&allJoins, at: now)
            guard fromConnection <= Self.joinsPerSecond, fromAll <= Self.joinsPerSecond * 4 else {
                return .failure(
                    CommandError(
                        code: "refused", message: "join: too many join requests from this device; wait a second"))
            }
        }
        guard let codeText = message["code"]?.stringValue, let code = SessionCode.normalized(codeText) else {
            return .failure(TurnError.invalidCode(message["code"]?.stringValue ?? "").commandError)
        }
        guard let held = sessions[code], held.leaderDevice == device else {
            return .failure(TurnError.noSuchSession(code).commandError)
        }
        do {
            switch message["cmd"]?.stringValue {
            case "join":
                guard let name = arguments["name"]?.stringValue else { throw TurnError.invalidName("", "is required") }
                let player = TurnSession.Player(id: UUIDText.make(), name: name, device: sender)
                try apply(code) { session throws(TurnError) in [try session.join(player)] }
                if deviceKeys[sender] == nil { deviceKeys[sender] = connectionKey }
            case "done", "leave":
                guard let playerID = arguments["player"]?.stringValue, let player = held.session.player(playerID) else {
                    throw TurnError.unknownPlayer(arguments["player"]?.stringValue ?? "")
                }
                guard player.device == sender else {
                    throw CommandError(code: "refused", message: "player: \(player.name) plays at another device")
                }
                let seq = arguments["seq"]?.intValue
                let command = message["cmd"]?.stringValue
                try apply(code) { session throws(TurnError) in
                    command == "done" ? [try session.done(by: playerID, seq: seq)] : try session.leave(playerID)
                }
            default:
                throw CommandError.invalidArgument("cmd", "must be join, done or leave")
            }
        } catch let error as TurnError {
            return .failure(error.commandError)
        } catch let error as CommandError {
            return .failure(error)
        } catch {
            return .failure(CommandError(code: "refused", message: "\(error)"))
        }
        let session = sessions[code]?.session ?? held.session
        return .success((session, .null))
    }

    /// Counts one attempt in a one-second window; returns the attempts in it so far.
    private static func count(_ window: inout JoinWindow, at now: ContinuousClock.Instant) -> Int {
        if now - window.start > .seconds(1) { window = (now, 0) }
        window.count += 1
        return window.count
    }

    private func markPresent(_ member: String) {
        for code in sessions.keys { setPresence(code, member, present: true) }
    }

    /// Marks `member`'s players present or away in a session this device leads, if that changes anything.
    private func setPresence(_ code: String, _ member: String, present: Bool) {
        guard var held = sessions[code], held.leaderDevice == device else { return }
        let previous = held.session
        guard let change = held.session.setPresence(device: member, present: present) else { return }
        sessions[code] = held
        settle(code, previous: previous, changes: [change])
    }

    // MARK: - Following: requests to and messages from the leader's device

    /// Sends a request to the device leading `code` and waits (3 s at most) for its reply.
    private func request(
        _ leaderDevice: String, _ command: String, code: String, arguments: [String: JSONValue]
    ) async throws -> JSONValue {
        guard let link = link(to: leaderDevice) else {
            throw CommandError(code: "unreachable", message: "code: the device leading \(code) is not in reach")
        }
        let id = UUIDText.make()
        let message: JSONValue = [
            "t": "req", "id": .string(id), "cmd": .string(command), "device": .string(device), "code": .string(code),
            "args": .object(arguments),
        ]
        let reply: JSONValue = try await withCheckedThrowingContinuation { continuation in
            pending[id] = (continuation, clock.now + Self.requestTimeout)
            do {
                try link.socket.send([message.jsonBytes])
            } catch {
                pending.removeValue(forKey: id)?.continuation.resume(throwing: error)
            }
        }
        guard reply["ok"] == true else {
            throw CommandError(
                code: "refused", message: reply["error"]?.stringValue ?? "refused by the leader's device")
        }
        return reply
    }

    /// One message from a leader's device.
    func fromLeader(_ leaderDevice: String, _ frames: [Frame]) {
        guard frames.count == 1, let message = try? JSONValue.parse(frames[0]) else {
            logger.warning("hearth-turn: a malformed message from \(leaderDevice) ignored")
            return
        }
        leaderHeard[leaderDevice] = clock.now
        switch message["t"]?.stringValue {
        case "rep":
            guard let id = message["id"]?.stringValue, let waiting = pending.removeValue(forKey: id) else { return }
            waiting.continuation.resume(returning: message)
        case "state":
            guard let session = try? TurnSession(json: message["session"] ?? .null) else {
                logger.warning("hearth-turn: a malformed state from \(leaderDevice) ignored")
                return
            }
            // Only the device leading a session speaks for it: the one this device follows for it
            // (which may be handing it on), or, for a session not held yet, its leader.
            let held = sessions[session.code]
            guard held?.leaderDevice == leaderDevice || session.leaderPlayer?.device == leaderDevice,
                held != nil || session.players.contains(where: { $0.device == device })
            else {
                logger.warning(
                    "hearth-turn: a state for \(session.code) from \(leaderDevice), which does not lead it, ignored")
                return
            }
            if let keys = message["keys"]?.objectValue, session.seq > sessions[session.code]?.session.seq ?? 0 {
                sessionKeys[session.code] = keys.compactMapValues(\.stringValue)
            }
            receive(session, change: message["change"] ?? .null, from: leaderDevice)
        case "gone":
            guard let code = message["code"]?.stringValue, let held = sessions[code], held.leaderDevice == leaderDevice
            else {
                return
            }
            // The leader no longer has this device in the session (it ended, or we left meanwhile).
            sessions.removeValue(forKey: code)
            sessionKeys.removeValue(forKey: code)
            publish(
                "turn.\(code).changed", "turn.changed",
                ["session": held.session.json, "change": ["kind": "ended", "player": .null]])
        default:
            break
        }
    }

    /// Takes a state from a leader's device if it is newer than the copy held here.
    private func receive(_ session: TurnSession, change: JSONValue, from leaderDevice: String) {
        let previous = sessions[session.code]?.session
        if let previous, session.seq <= previous.seq { return }  // stale: never overwrite newer
        sessions[session.code] = Held(session: session)
        let kind = change["kind"]?.stringValue.flatMap(TurnSession.Change.Kind.init(rawValue:))
        let player = try? change["player"].map { try TurnSession.Player(json: $0) }
        publishChanged(session, kind.map { TurnSession.Change(kind: $0, player: player ?? nil) }, previous: previous)
        reconcile(session.code)
    }

    // MARK: - Time: heartbeats, presence, take-over

    /// Called once a second: expires requests, sends the beacon and heartbeats, marks silent
    /// members away, and takes over from a vanished leader.
    func tick() {
        let now = clock.now
        for (id, waiting) in pending where waiting.deadline < now {
            pending.removeValue(forKey: id)
            waiting.continuation.resume(
                throwing: CommandError(
                    code: "unreachable", message: "code: the leader's device did not answer within 3 s"))
        }
        forgetStrangers(now: now)
        announce()
        var following: [String: [String: JSONValue]] = [:]
        for (code, held) in sessions where held.leaderDevice != device {
            following[held.leaderDevice, default: [:]][code] = .int(held.session.seq)
        }
        for (leaderDevice, seqs) in following {
            try? link(to: leaderDevice)?.socket.send(
                [(["t": "hb", "device": .string(device), "seqs": .object(seqs)] as JSONValue).jsonBytes])
            let silent = now - (leaderHeard[leaderDevice] ?? now)
            if silent > Self.takeOverAfter { takeOver(from: leaderDevice) }
        }
        for code in sessions.keys {
            guard let held = sessions[code], held.leaderDevice == device else { continue }
            for member in held.session.devices where member != device {
                if now - (memberHeard[member] ?? now) > Self.awayAfter { setPresence(code, member, present: false) }
            }
        }
    }

    /// Bounds what a noisy LAN can make this device remember: devices that are in no session
    /// here are forgotten a while after they were last heard.
    private func forgetStrangers(now: ContinuousClock.Instant) {
        let known = Set(sessions.values.flatMap(\.session.devices))
        for (other, heard) in memberHeard where !known.contains(other) && now - heard > Self.takeOverAfter {
            memberHeard.removeValue(forKey: other)
            routes.removeValue(forKey: other)
            answered.removeValue(forKey: other)
            deviceKeys.removeValue(forKey: other)
        }
        joinWindows = joinWindows.filter { now - $0.value.start < .seconds(2) }
        for (other, peer) in peers where !known.contains(other) && now - peer.lastSeen > .seconds(30) {
            peers.removeValue(forKey: other)
            links.removeValue(forKey: other)?.socket.stopReceiving()
        }
    }

    /// The leader's device has been silent for 15 s: every session it led continues without
    /// it, led by the next player's device (this one, or one the others will follow).
    private func takeOver(from gone: String) {
        logger.notice("hearth-turn: \(gone) silent for 15 s; the next player's device takes over")
        leaderHeard.removeValue(forKey: gone)
        links.removeValue(forKey: gone)?.socket.stopReceiving()
        for code in sessions.keys {
            guard var held = sessions[code], held.leaderDevice == gone else { continue }
            let previous = held.session
            let changes = held.session.remove(device: gone)
            sessions[code] = held
            if held.leaderDevice == device {
                settle(code, previous: previous, changes: changes)
            } else {
                for (index, change) in changes.enumerated() {
                    publishChanged(held.session, change, previous: index == changes.count - 1 ? previous : held.session)
                }
                reconcile(code)
            }
        }
    }

    // MARK: - Discovery

    /// A beacon heard.
    func sighted(_ sighting: BeaconSighting) {
        let payload = sighting.payload
        guard let other = payload["device"]?.stringValue, other != device, let key = payload["key"]?.stringValue,
            key.utf8.count == 40, let port = payload["port"]?.intValue, (1...65_535).contains(port)
        else { return }
        if payload["direct"] == true { beacon?.reply(to: sighting.host, port: sighting.port) }
        let sessionsThere = payload["sessions"]?.arrayValue ?? []
        let known = peers[other]
        peers[other] = Peer(
            host: sighting.host, peerPort: Int(port), key: key, sessions: sessionsThere,
            lastSeen: clock.now)
        if let known, known.endpoint != peers[other]!.endpoint || known.key != key {
            links.removeValue(forKey: other)?.socket.stopReceiving()  // it moved or restarted: reconnect
        }
        // A session there that has a player at this device, which this device no longer holds
        // (its turn service restarted): follow it again; the heartbeat brings the state.
        for entry in sessionsThere {
            guard let code = entry["code"]?.stringValue, sessions[code] == nil,
                entry["devices"]?.arrayValue?.contains(.string(device)) == true, let link = link(to: other)
            else { continue }
            try? link.socket.send(
                [(["t": "hb", "device": .string(device), "seqs": [code: 0]] as JSONValue).jsonBytes])
        }
    }

    /// Sends this device's beacon: itself and the sessions it leads, as they are now.
    private func announce() {
        let led = sessions.values.filter { $0.leaderDevice == device && $0.session.state != .ended }.map {
            held -> JSONValue in
            [
                "code": .string(held.session.code),
                "leader": held.session.leaderPlayer.map { .string($0.name) } ?? .null,
                "state": .string(held.session.state.rawValue),
                "players": .array(held.session.players.map { .string($0.name) }),
                "devices": .array(held.session.devices.map { .string($0) }),
            ]
        }
        beacon?.announce([
            "hearth": 1, "device": .string(device), "key": .string(keyPair.publicKey), "port": .int(Int64(peerPort)),
            "sessions": .array(led),
        ])
        beacon?.send()
    }

    /// The link to `other`'s peer socket, opened on first use from its beacon.
    private func link(to other: String) -> PeerLink? {
        if let existing = links[other] { return existing }
        guard let peer = peers[other] else { return nil }
        do {
            let link = try PeerLink(
                context: context, device: other, endpoint: peer.endpoint, serverKey: peer.key, keyPair: keyPair)
            links[other] = link
            leaderHeard[other] = clock.now
            linkSink.yield(link)
            return link
        } catch {
            logger.warning("hearth-turn: cannot link to \(other) at \(peer.endpoint): \(error)")
            return nil
        }
    }

    // MARK: - Events on this device's bus

    /// Publishes `turn.<code>.your-turn` when the turn moved, then `turn.<code>.changed`. Both
    /// carry the same `seq`; the one a person is waiting for goes first.
    private func publishChanged(_ session: TurnSession, _ change: TurnSession.Change?, previous: TurnSession?) {
        if session.state == .playing, let current = session.currentPlayer,
            previous == nil || previous?.current != session.current || previous?.turn != session.turn
                || previous?.state != .playing
        {
            publish(
                "turn.\(session.code).your-turn", "turn.your-turn",
                [
                    "code": .string(session.code), "seq": .int(session.seq), "turn": .int(session.turn),
                    "player": current.json,
                ])
        }
        publish(
            "turn.\(session.code).changed", "turn.changed",
            ["session": session.json, "change": change?.json ?? .null])
    }

    private func publish(_ topic: String, _ type: String, _ data: JSONValue) {
        do {
            _ = try publisher.publish(topic: topic, type: type, data: data)
        } catch {
            logger.warning("hearth-turn: cannot publish \(topic): \(error)")
        }
    }

    /// Closes every link (at shutdown).
    func closeLinks() async {
        for link in links.values { await link.socket.close() }
        links.removeAll()
        for (_, waiting) in pending {
            waiting.continuation.resume(throwing: CommandError(code: "unreachable", message: "hearth-turn is stopping"))
        }
        pending.removeAll()
    }
}
