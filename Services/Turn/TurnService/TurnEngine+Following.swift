import HearthBus
import HearthCore

/// Following a leader's device: requests to it, what it pushes back, heartbeats, and taking over
/// when it is gone.
extension TurnEngine {
    /// Sends a request to the device leading `code` and waits (`timing.requestTimeout` at most)
    /// for its reply.
    /// - Throws: `CommandError` when the device is out of reach, silent or refuses.
    func request(
        _ leaderDevice: String, _ command: PeerMessage.Request.Command, code: String,
        arguments: PeerMessage.Request.Arguments
    ) async throws -> PeerMessage.Reply {
        guard let link = link(to: leaderDevice) else {
            throw CommandError(code: "unreachable", message: "code: the device leading \(code) is not in reach")
        }
        let id = UUIDText.make()
        let message = PeerMessage.request(.init(id: id, cmd: command, device: device, code: code, args: arguments))
        let reply: PeerMessage.Reply = try await withCheckedThrowingContinuation { continuation in
            pending[id] = (continuation, now() + timing.requestTimeout)
            do {
                try link.socket.send([message.bytes])
            } catch {
                pending.removeValue(forKey: id)?.continuation.resume(throwing: error)
            }
        }
        guard reply.ok else {
            throw CommandError(code: "refused", message: reply.error ?? "refused by the leader's device")
        }
        return reply
    }

    /// Requests whose leader did not answer in time fail.
    func expireRequests(now: ContinuousClock.Instant) {
        for (id, waiting) in pending where waiting.deadline < now {
            pending.removeValue(forKey: id)
            waiting.continuation.resume(
                throwing: CommandError(
                    code: "unreachable",
                    message: "code: the leader's device did not answer within \(timing.requestTimeout)"))
        }
    }

    /// One message from a leader's device.
    func fromLeader(_ leaderDevice: String, _ frames: [Frame]) {
        let message: PeerMessage
        do throws(PeerMessageError) {
            guard frames.count == 1 else { throw PeerMessageError(id: nil, reason: "\(frames.count) frames") }
            message = try PeerMessage.decode(frames[0])
        } catch {
            logger.warning("hearth-turn: a malformed message from \(leaderDevice) ignored: \(error.reason)")
            // A reply we could not read still ends the wait for it.
            if let id = error.id, let waiting = pending.removeValue(forKey: id) {
                waiting.continuation.resume(throwing: TurnError.malformed("the leader's reply: \(error.reason)"))
            }
            return
        }
        // A device that says another leads now is not heard as a leader: should that other's
        // beacon never come, this device takes over from it as from a silent one.
        if case .gone(_, .moved) = message {} else { leaderHeard[leaderDevice] = now() }
        switch message {
        case .reply(let reply):
            guard let id = reply.id, let waiting = pending.removeValue(forKey: id) else { return }
            waiting.continuation.resume(returning: reply)
        case .state(let state):
            accept(state.session, change: state.change, keys: state.keys, age: state.age, from: leaderDevice)
        case .step(let step):
            take(step, from: leaderDevice)
        case .gone(let code, let reason):
            guard let held = sessions[code], held.leaderDevice == leaderDevice, reason != .moved else { return }
            if reason == .unknown, held.session.state != .ended {
                // The leader's device restarted and lost the game (sessions live in memory):
                // play goes on, led by the next device, with its players kept (away until it
                // resyncs from the new leader's beacon).
                return handOver(code, from: leaderDevice)
            }
            // The leader no longer has this device in the session (it ended, or we left meanwhile).
            sessions.removeValue(forKey: code)
            sessionKeys.removeValue(forKey: code)
            publish(
                "turn.\(code).changed", "turn.changed",
                TurnChangedEvent(session: held.session, change: .init(kind: .ended, player: nil)))
        case .heartbeat, .request:
            break
        }
    }

    /// A session as a leader's device sent it (whole, or a step applied to the copy here).
    /// Only the device leading a session speaks for it: the one this device follows for it (which
    /// may be handing it on), or, for a session not held yet, its leader.
    func accept(
        _ session: TurnSession, change: TurnSession.Change?, keys: [String: String]?, age: Int64? = nil,
        from leaderDevice: String
    ) {
        let held = sessions[session.code]
        guard held?.leaderDevice == leaderDevice || session.leaderPlayer?.device == leaderDevice,
            held != nil || session.players.contains(where: { $0.device == device })
        else {
            logger.warning(
                "hearth-turn: a game's state from \(leaderDevice), which does not lead it, ignored")
            return
        }
        if let keys, held.map({ session.rank > $0.session.rank }) ?? true { sessionKeys[session.code] = keys }
        receive(session, change: change, age: age, from: leaderDevice)
    }

    /// Moves the copy held here on by a leader's step. A copy the step is not for (a push was
    /// missed, so it is behind) asks for the whole state at once, with a heartbeat, rather than
    /// at its next one; a step no newer than the copy is stale and changes nothing.
    func take(_ step: TurnSession.Step, from leaderDevice: String) {
        guard let held = sessions[step.code],
            step.term > held.session.term || (step.term == held.session.term && step.seq > held.session.seq)
        else { return }
        do {
            let (session, change) = try step.applied(to: held.session)
            accept(session, change: change, keys: nil, from: leaderDevice)
        } catch {
            if step.base == held.session.seq, step.term == held.session.term {
                logger.warning("hearth-turn: a step from \(leaderDevice) refused: \(error.field)")
            }
            // A copy of another term asks from scratch: its seq says nothing of the leader's.
            sendHeartbeat(to: leaderDevice, seqs: [step.code: step.term == held.session.term ? held.session.seq : 0])
        }
    }

    /// Tells `leaderDevice` the `seq` of each session this device follows there; it answers with
    /// the state of each one whose copy here is behind.
    func sendHeartbeat(to leaderDevice: String, seqs: [String: Int64]) {
        try? link(to: leaderDevice)?.socket.send([PeerMessage.heartbeat(.init(device: device, seqs: seqs)).bytes])
    }

    /// Takes a state from a leader's device if it ranks above the copy held here (a newer `seq`,
    /// or a later lead: `TurnSession.Rank`). One older than this copy, of the same term, from the
    /// device this copy names leader, comes from a device that took over holding an older copy
    /// (the old leader's last push reached here, not there): this copy is offered to it.
    func receive(
        _ session: TurnSession, change: TurnSession.Change?, age: Int64? = nil, from leaderDevice: String
    ) {
        let previous = sessions[session.code]?.session
        if let previous, session.rank <= previous.rank {  // stale: never overwrite newer
            if session.term == previous.term, session.seq < previous.seq,
                previous.leaderPlayer?.device == leaderDevice
            {
                let offer = PeerMessage.state(.init(session: previous, change: nil, keys: nil, device: device))
                try? link(to: leaderDevice)?.socket.send([offer.bytes])
            }
            return
        }
        // The clock goes on from when the leader's device made the state (an age past a day is not believed).
        let age = min(max(age ?? 0, 0), TurnTimer.limits.upperBound)
        sessions[session.code] = Held(session: session, since: now() - .milliseconds(age))
        publishChanged(session, change ?? Self.leaderChange(from: previous, to: session), previous: previous)
        reconcile(session.code)
    }

    /// The lead's change that a whole copy carries without saying so: this device learnt of a
    /// new leader by a state (the new leader's beacon outranked the copy here before this device
    /// took over itself), and its player is still told who leads now.
    static func leaderChange(from previous: TurnSession?, to session: TurnSession) -> TurnSession.Change? {
        guard let previous, previous.leader != session.leader, let leader = session.leaderPlayer else { return nil }
        return TurnSession.Change(kind: .leader, player: leader)
    }

    /// Sends each leading device the `seq` of every session followed there, and takes over from
    /// one that has been silent too long.
    func heartbeatLeaders(now: ContinuousClock.Instant) {
        var following: [String: [String: Int64]] = [:]
        for (code, held) in sessions where held.leaderDevice != device {
            following[held.leaderDevice, default: [:]][code] = held.session.seq
        }
        for (leaderDevice, seqs) in following {
            sendHeartbeat(to: leaderDevice, seqs: seqs)
            let silent = now - (leaderHeard[leaderDevice] ?? now)
            if silent > timing.takeOverAfter { takeOver(from: leaderDevice) }
        }
    }

    /// The leader's device has been silent too long: every session it led continues without
    /// it, led by the next player's device (this one, or one the others will follow).
    func takeOver(from gone: String) {
        logger.notice("hearth-turn: \(gone) silent for \(timing.takeOverAfter); the next player's device takes over")
        leaderHeard.removeValue(forKey: gone)
        links.removeValue(forKey: gone)?.socket.stopReceiving()
        for code in sessions.keys {
            guard var held = sessions[code], held.leaderDevice == gone else { continue }
            let previous = held.session
            // The timer keeps running across the take-over: the clock moves on to now first.
            held.catchUp(to: now())
            let changes = held.session.remove(device: gone)
            sessions[code] = held
            if held.leaderDevice == device {
                settle(code, previous: previous, changes: changes)
            } else {
                publish(changes, in: held.session, previous: previous)
                reconcile(code)
            }
        }
    }

    /// Passes the lead of `code` on from `restarted`, a device that lost the game, keeping its
    /// players; every member works out the same next leader from the same state.
    func handOver(_ code: String, from restarted: String) {
        guard var held = sessions[code] else { return }
        let previous = held.session
        held.catchUp(to: now())
        let changes = held.session.handOver(from: restarted)
        guard !changes.isEmpty else { return }
        logger.notice("hearth-turn: \(restarted) lost a game (it restarted); \(held.leaderDevice) leads it now")
        sessions[code] = held
        leaderHeard.removeValue(forKey: restarted)
        if held.leaderDevice == device {
            settle(code, previous: previous, changes: changes)
        } else {
            publish(changes, in: held.session, previous: previous)
            reconcile(code)
        }
    }

    /// The link to `other`'s peer socket, opened on first use from its beacon.
    func link(to other: String) -> PeerLink? {
        if let existing = links[other] { return existing }
        guard let peer = peers[other] else { return nil }
        do {
            let link = try PeerLink(
                context: context, device: other, endpoint: peer.endpoint, serverKey: peer.announcement.key,
                keyPair: keyPair)
            links[other] = link
            leaderHeard[other] = now()
            linkSink.yield(link)
            return link
        } catch {
            logger.warning("hearth-turn: cannot link to \(other) at \(peer.endpoint): \(error)")
            return nil
        }
    }
}
