import HearthBus
import HearthCore

/// Leading sessions: what member devices send this device, and what it pushes to them.
extension TurnEngine {
    /// A session's state for the other devices, with each device's key as this leader knows it.
    func stateMessage(_ session: TurnSession, change: TurnSession.Change?) -> PeerMessage {
        .state(.init(session: session, change: change, keys: keys(of: session), age: age(of: session)))
    }

    /// How old the clock of the copy held of `session` is (`Held.since`), in milliseconds.
    func age(of session: TurnSession) -> Int64? {
        guard let held = sessions[session.code], held.session.seq == session.seq else { return nil }
        return held.age(at: now())
    }

    /// What goes to the other devices after a transition of `code` from `previous`: a step when
    /// the players and the keys pushed last are as they were (a copy at `previous` takes it; one
    /// that is not asks for the whole state), or else the whole state; `nil` for a session not held.
    func push(_ code: String, previous: TurnSession, change: TurnSession.Change?) -> PeerMessage? {
        guard let held = sessions[code] else { return nil }
        let keys = keys(of: held.session)
        if keys == held.keysPushed, let step = TurnSession.Step(from: previous, to: held.session, change: change) {
            return .step(step)
        }
        sessions[code]?.keysPushed = keys
        return .state(.init(session: held.session, change: change, keys: keys, age: held.age(at: now())))
    }

    private func keys(of session: TurnSession) -> [String: String] {
        var keys: [String: String] = [:]
        for member in session.devices {
            if let key = member == device ? keyPair.publicKey : deviceKeys[member] { keys[member] = key }
        }
        return keys
    }

    /// This device's turn service is stopping (SIGTERM), which is not its players leaving: each
    /// game led here passes its lead to the next player's device, as a restart's hand-over does,
    /// with the players here kept, away until this device is heard again; the state goes to every
    /// member at once, so nobody waits out the take-over's silence (which removes them).
    func handOverBeforeStopping() {
        for code in sessions.keys {
            guard var held = sessions[code], held.leaderDevice == device, held.session.state != .ended else {
                continue
            }
            let previous = held.session
            held.catchUp(to: now())
            let changes = held.session.handOver(from: device)
            guard !changes.isEmpty else { continue }
            logger.notice("hearth-turn: stopping; \(held.leaderDevice) leads \(code) now")
            sessions[code] = held
            let message = stateMessage(held.session, change: changes.first)
            for member in held.session.devices where member != device { sendToMember(member, message) }
            publish(changes, in: held.session, previous: previous)
        }
    }

    func sendToMember(_ member: String, _ message: PeerMessage) {
        guard let route = routes[member] else { return }  // it will resync on its next heartbeat
        try? peerSocket.send([route, message.bytes])
    }

    /// One message on the peer socket: `[sender's CURVE key, routing id, JSON]`. Every request
    /// gets exactly one reply; a refusal names the field at fault.
    func fromMember(_ frames: [Frame]) {
        guard frames.count == 3 else { return }
        let key = String(decoding: frames[0], as: UTF8.self)
        let route = frames[1]
        let answer = { (message: PeerMessage) in try? self.peerSocket.send([route, message.bytes]) }
        let message: PeerMessage
        do {
            message = try PeerMessage.decode(frames[2])
        } catch {
            answer(.reply(.refusal(error.id, error.reason)))
            return
        }
        let id: String? = if case .request(let request) = message { request.id } else { nil }
        guard let sender = message.sender, !sender.isEmpty, sender != device else {
            answer(.reply(.refusal(id, "device: required, a device id (and t must be hb or req)")))
            return
        }
        // A device is its key: the first key heard for a device in a session here stays bound to
        // it, so nobody else can pass its turns or take its state pushes by claiming its id.
        if let bound = deviceKeys[sender], bound != key {
            answer(.reply(.refusal(id, "device: \(sender) is known here by another key")))
            return
        }
        if deviceKeys[sender] == nil, !key.isEmpty,
            sessions.values.contains(where: { $0.leaderDevice == device && $0.session.devices.contains(sender) })
        {
            deviceKeys[sender] = key
        }
        routes[sender] = route
        memberHeard[sender] = now()
        switch message {
        case .heartbeat(let heartbeat):
            for reply in heartbeatReplies(from: sender, seqs: heartbeat.seqs ?? [:]) { answer(reply) }
        case .state(let offered) where offered.device != nil:
            adopt(offered.session, offeredBy: sender)
        case .request(let request):
            // A retried request runs once: the reply is remembered by device and request id.
            let cacheID = "\(sender)\u{0}\(request.id)"
            if case .answered(let earlier) = replies.admit(id: cacheID, route: route) {
                try? peerSocket.send([route, earlier])
                return
            }
            let reply: PeerMessage.Reply
            switch memberRequest(sender, connection: route, key: key, request) {
            case .success(let (session, change)):
                reply = .init(id: request.id, ok: true, session: session, change: change)
            case .failure(let error):
                reply = .refusal(request.id, error.message)
            }
            let bytes = PeerMessage.reply(reply).bytes
            _ = replies.finish(id: cacheID, reply: bytes)
            try? peerSocket.send([route, bytes])
        default:
            answer(.reply(.refusal(id, "t: must be hb, req or a member's state")))
        }
    }

    /// What a member's heartbeat gets back: the state of every session it is behind in, `gone`
    /// for each it is no longer in, or a bare heartbeat when it is up to date.
    private func heartbeatReplies(from sender: String, seqs: [String: Int64]) -> [PeerMessage] {
        markPresent(sender)
        var replies: [PeerMessage] = []
        for (code, theirs) in seqs {
            guard let held = sessions[code], held.leaderDevice == device,
                held.session.players.contains(where: { $0.device == sender })
            else {
                let known = sessions[code] != nil || ended[code] != nil
                let reason: PeerMessage.GoneReason = moved[code] != nil ? .moved : known ? .ended : .unknown
                replies.append(.gone(code: code, reason: reason))
                continue
            }
            let awaiting = "\(code)\u{0}\(sender)"
            if theirs > held.session.seq {
                // A copy that saw more than this (new) leader did: the state sent below is older
                // than it, so its device offers it (`adopt`). One that did not by this next
                // heartbeat (its copy names another leader): continue above it.
                if awaitingOffers.contains(awaiting) {
                    awaitingOffers.remove(awaiting)
                    // By a bounded step: a heartbeat claiming a seq near 2^53 stuck the game for
                    // good (issue 62).
                    if theirs - held.session.seq <= Self.maximumSeqStep {
                        sessions[code]?.session.raiseSeq(to: theirs + 1)
                    } else {
                        logger.warning(
                            "hearth-turn: \(sender) claims \(code) at seq \(theirs), \(theirs - held.session.seq) past this copy: ignored"
                        )
                    }
                } else {
                    awaitingOffers.insert(awaiting)
                }
            } else {
                awaitingOffers.remove(awaiting)
            }
            if let current = sessions[code]?.session, theirs != current.seq {
                replies.append(stateMessage(current, change: nil))
            }
        }
        return replies.isEmpty ? [.heartbeat(.init())] : replies
    }

    /// A member's copy newer than this leader's (this device took over holding an older one):
    /// taken when it names this device leader, comes from a player's device and holds no player
    /// this copy lacks, then pushed whole to every member, so the game goes on from the newest
    /// state anyone saw instead of going back a turn.
    private func adopt(_ offered: TurnSession, offeredBy sender: String) {
        let code = offered.code
        // Only from a player's device, a small step ahead, and with exactly the players this copy
        // knows, as they are here: a stranger who joined offered a copy with a player removed, the
        // leader renamed and a seq near 2^53, and it was taken and pushed to all (issue 62).
        guard let held = sessions[code], held.leaderDevice == device, offered.leaderPlayer?.device == device,
            offered.seq > held.session.seq, offered.seq - held.session.seq <= Self.maximumSeqStep,
            held.session.players.contains(where: { $0.device == sender }),
            Self.samePlayers(offered.players, held.session.players)
        else { return }
        let previous = held.session
        logger.notice(
            "hearth-turn: \(sender) holds a game at \(offered.seq), past this copy's \(previous.seq): taken")
        sessions[code]?.session = offered
        sessions[code]?.since = now()
        awaitingOffers.remove("\(code)\u{0}\(sender)")
        publishChanged(offered, nil, previous: previous)
        let keys = keys(of: offered)
        sessions[code]?.keysPushed = keys
        for member in Set(previous.devices + offered.devices) where member != device {
            sendToMember(member, .state(.init(session: offered, change: nil, keys: keys, age: 0)))
        }
        reconcile(code)
    }

    /// How far past this leader's copy a member's `seq` may lead it: a game moves a few steps a
    /// turn, and a copy that saw more than this leader saw a few turns at most.
    static let maximumSeqStep: Int64 = 1_000

    /// The same players (id, name, device), whatever their order (a reverse reorders them).
    static func samePlayers(_ offered: [TurnSession.Player], _ known: [TurnSession.Player]) -> Bool {
        let key = { (player: TurnSession.Player) in "\(player.id)\u{0}\(player.name)\u{0}\(player.device)" }
        return offered.count == known.count && Set(offered.map(key)) == Set(known.map(key))
    }

    private func memberRequest(
        _ sender: String, connection: Frame, key connectionKey: String, _ request: PeerMessage.Request
    ) -> Result<(TurnSession, TurnSession.Change?), CommandError> {
        let arguments = request.args ?? .init()
        if request.cmd == .join {
            // Every join attempt counts, right code or wrong: guessing codes is what a flood does.
            // Counted per connection (a claimed device id costs nothing to change) and in all.
            let now = now()
            let fromConnection = Self.count(&joinWindows[connection, default: (now, 0)], at: now)
            let fromAll = Self.count(&allJoins, at: now)
            guard fromConnection <= timing.joinsPerSecond, fromAll <= timing.joinsPerSecond * 4 else {
                return .failure(
                    CommandError(
                        code: "refused", message: "join: too many join requests from this device; wait a second"))
            }
        }
        guard let code = SessionCode.normalized(request.code) else {
            return .failure(TurnError.invalidCode(request.code).commandError)
        }
        guard let held = sessions[code], held.leaderDevice == device else {
            return .failure(TurnError.noSuchSession(code).commandError)
        }
        do {
            switch request.cmd {
            case .join:
                guard let name = arguments.name else { throw TurnError.invalidName("", "is required") }
                let player = TurnSession.Player(id: UUIDText.make(), name: name, device: sender)
                try apply(code) { session throws(TurnError) in [try session.join(player)] }
                if deviceKeys[sender] == nil { deviceKeys[sender] = connectionKey }
            case .done, .leave, .reverse, .back:
                guard let playerID = arguments.player, let player = held.session.player(playerID) else {
                    throw TurnError.unknownPlayer(arguments.player ?? "")
                }
                guard player.device == sender else {
                    throw CommandError(code: "refused", message: "player: \(player.name) plays at another device")
                }
                try apply(code) { session throws(TurnError) in
                    switch request.cmd {
                    case .done: [try session.done(by: playerID, seq: arguments.seq)]
                    case .reverse: [try session.reverse(by: playerID, seq: arguments.seq)]
                    case .back: [try session.comeBack(playerID)]
                    default: try session.leave(playerID)
                    }
                }
            }
        } catch let error as TurnError {
            return .failure(error.commandError)
        } catch let error as CommandError {
            return .failure(error)
        } catch {
            return .failure(CommandError(code: "refused", message: "\(error)"))
        }
        return .success((sessions[code]?.session ?? held.session, nil))
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
    func setPresence(_ code: String, _ member: String, present: Bool) {
        guard var held = sessions[code], held.leaderDevice == device else { return }
        let previous = held.session
        held.catchUp(to: now())
        guard let change = held.session.setPresence(device: member, present: present) else { return }
        sessions[code] = held
        settle(code, previous: previous, changes: [change])
    }
}
