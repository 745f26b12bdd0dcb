import HearthBus
import HearthCore
import HearthHost

/// Hearing other devices' beacons and announcing this one.
extension TurnEngine {
    /// A beacon heard.
    func sighted(_ sighting: BeaconSighting) {
        guard let announcement = try? sighting.payload.decode(BeaconAnnouncement.self), announcement.isUsable,
            announcement.device != device
        else { return }
        let other = announcement.device
        if announcement.direct == true { beacon?.reply(to: sighting.host, port: sighting.port) }
        let known = peers[other]
        let peer = Peer(host: sighting.host, announcement: announcement, lastSeen: now())
        peers[other] = peer
        if let known, known.endpoint != peer.endpoint || known.announcement.key != announcement.key {
            links.removeValue(forKey: other)?.socket.stopReceiving()  // it moved or restarted: reconnect
        }
        // A session there that has a player at this device, which this device no longer holds
        // (its turn service restarted): follow it again; the heartbeat brings the state.
        for entry in announcement.sessions where sessions[entry.code] == nil && entry.devices.contains(device) {
            sendHeartbeat(to: other, seqs: [entry.code: 0])
        }
        for entry in announcement.sessions {
            guard let held = sessions[entry.code], held.leaderDevice != other,
                entry.rank(leaderDevice: other) > held.session.rank
            else { continue }
            superseded(entry.code, by: other, keeping: entry.devices.contains(device))
        }
    }

    /// `other` leads `code` in a copy that ranks above the one held here: the lead passed on
    /// while this device could not hear it (it was cut off, or its leader was, and came back
    /// before this device took over). With players still in that copy, this device follows
    /// `other` (asking from scratch; the state it answers with outranks the copy here). Without,
    /// the game went on without this device's players (they were removed with their device):
    /// the copy here is dropped, and they are told.
    func superseded(_ code: String, by other: String, keeping: Bool) {
        guard let held = sessions[code] else { return }
        logger.notice("hearth-turn: \(other) leads a game past the copy here (led by \(held.leaderDevice))")
        if keeping {
            sendHeartbeat(to: other, seqs: [code: 0])
            return
        }
        sessions.removeValue(forKey: code)
        sessionKeys.removeValue(forKey: code)
        moved[code] = now()
        var copy = held.session
        let here = copy.players.filter { $0.device == device }
        _ = copy.remove(device: device)
        for player in here {
            publish(
                "turn.\(code).changed", "turn.changed",
                TurnChangedEvent(session: copy, change: .init(kind: .left, player: player)))
        }
    }

    /// Sends this device's beacon: itself and the sessions it leads, as they are now.
    func announce() {
        guard let beacon else { return }
        let led = sessions.values.filter { $0.leaderDevice == device && $0.session.state != .ended }.map { held in
            BeaconAnnouncement.Session(
                code: held.session.code, leader: held.session.leaderPlayer?.name, state: held.session.state,
                players: held.session.state == .open ? held.session.players.map(\.name) : [],
                playerCount: held.session.players.count, devices: held.session.devices, term: held.session.term,
                seq: held.session.seq)
        }
        let announcement = BeaconAnnouncement(device: device, key: keyPair.publicKey, port: peerPort, sessions: led)
        guard let payload = try? JSONValue(encoding: announcement) else { return }
        beacon.announce(payload)
        beacon.send()
    }

    /// Bounds what a noisy LAN can make this device remember: devices that are in no session
    /// here are forgotten a while after they were last heard.
    func forgetStrangers(now: ContinuousClock.Instant) {
        let known = Set(sessions.values.flatMap(\.session.devices))
        for (other, heard) in memberHeard where !known.contains(other) && now - heard > timing.takeOverAfter {
            memberHeard.removeValue(forKey: other)
            routes.removeValue(forKey: other)
            deviceKeys.removeValue(forKey: other)
        }
        joinWindows = joinWindows.filter { now - $0.value.start < .seconds(2) }
        ended = ended.filter { now - $0.value < .seconds(600) }
        moved = moved.filter { now - $0.value < .seconds(600) }
        for (other, peer) in peers where !known.contains(other) && now - peer.lastSeen > timing.takeOverAfter * 2 {
            peers.removeValue(forKey: other)
            links.removeValue(forKey: other)?.socket.stopReceiving()
        }
    }
}
