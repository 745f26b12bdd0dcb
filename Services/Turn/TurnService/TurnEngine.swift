import Foundation
import HearthBus
import HearthCore
import HearthHost
import Logging

/// The live turn sessions this device takes part in, in memory only, and the protocol that keeps
/// every device's copy in step with the leader's.
///
/// The device of a session's leader is authoritative: it applies every transition and pushes it
/// to the other players' devices over CURVE-encrypted links (`PeerLink`): the whole state, or a
/// step (`TurnSession.Step`) when the players stayed as they were. The others send it requests
/// (join, done, leave) and a heartbeat every second; it answers a heartbeat with the state
/// whenever the sender's copy is behind, so a dropped link resyncs by itself, and a copy that
/// cannot take a step (it missed a push) sends one at once. A member
/// silent for 5 s is shown away; a leader silent for 10 s is replaced by the next player's
/// device, with the state it holds. Each pass of the lead raises the session's `term`; copies
/// are ordered by term first (`TurnSession.Rank`), and beacons carry it, so a device that missed
/// the pass (or an old leader's, back on the network) moves to the later copy. Messages are
/// `PeerMessage`s.
///
/// Games are ephemeral: nothing of one is written anywhere, and the log (a file under
/// `HEARTH_HOME/log` in a supervised stack) never names a game's code or players.
///
/// By role: commands from this device (`+Commands`), leading sessions (`+Leading`), following a
/// leader's device (`+Following`), and hearing other devices (`+Discovery`). Its clock and every
/// interval are injected (`TurnTiming`), so tests run the protocol in milliseconds.
actor TurnEngine {
    let device: String
    let timing: TurnTiming
    let keyPair: CurveKeyPair
    let peerPort: Int
    let publisher: Publisher
    let peerSocket: SocketThread<[Frame]>
    /// Discovery; `nil` when its UDP port could not be bound (links still work once known).
    let beacon: Beacon?
    let context: ZMQContext
    let logger: Logger
    let linkSink: AsyncStream<PeerLink>.Continuation
    /// The clock; tests inject one they move.
    let now: @Sendable () -> ContinuousClock.Instant

    /// A session and which device leads it.
    struct Held {
        var session: TurnSession
        /// When, on this device's clock, the session's turn clock (`session.clock.used`) read what
        /// it reads: when the leader's device made the state, or, following, when it was made
        /// there as told by the push (received less the `age` it carried).
        var since: ContinuousClock.Instant
        /// Leading: the devices' keys as last pushed with the whole state (a step carries none).
        var keysPushed: [String: String]?
        var leaderDevice: String { session.leaderPlayer?.device ?? "" }

        init(session: TurnSession, since: ContinuousClock.Instant) { (self.session, self.since) = (session, since) }

        /// Milliseconds from `since` to `now`.
        func age(at now: ContinuousClock.Instant) -> Int64 { max(0, (now - since).milliseconds) }

        /// The turn clock as it reads at `now`.
        func clock(at now: ContinuousClock.Instant) -> TurnClockReading {
            TurnClockReading(session.clock, elapsed: age(at: now))
        }

        /// Moves the session's clock on to `now` (just before a state change made at `now`).
        mutating func catchUp(to now: ContinuousClock.Instant) {
            session.advanceClock(by: age(at: now))
            since = now
        }
    }
    var sessions: [String: Held] = [:]
    /// Games that ended lately, as they ended, for `status` to show their statistics a while
    /// (`timing.endedKept`); then forgotten. Memory only, as every game.
    var endedGames: [String: (session: TurnSession, at: ContinuousClock.Instant)] = [:]

    /// What a device announced in its beacon, and when it was last heard.
    struct Peer {
        var host: String
        var announcement: BeaconAnnouncement
        var lastSeen: ContinuousClock.Instant
        var endpoint: String { "tcp://\(host):\(announcement.port)" }
    }
    var peers: [String: Peer] = [:]

    // Leading: where each member device is reached, when it was last heard, its recent requests.
    var routes: [String: Frame] = [:]
    var memberHeard: [String: ContinuousClock.Instant] = [:]
    typealias JoinWindow = (start: ContinuousClock.Instant, count: Int)
    /// Join attempts in the current second, per connection (routing id) and in all.
    var joinWindows: [Frame: JoinWindow] = [:]
    var allJoins: JoinWindow
    /// Replies to members' recent requests, by device and request id: a retried request runs once.
    let replies = ReplyCache(capacity: 4_096)
    /// Each member device's CURVE public key, bound when it joined (or first heard after a take-over).
    var deviceKeys: [String: String] = [:]
    /// Sessions (`code NUL device`) whose member's heartbeat showed a newer copy than this
    /// leader's: it offers that copy when it sees this one's; if it has not by its next
    /// heartbeat, this leader continues above it (`heartbeatReplies`).
    var awaitingOffers: Set<String> = []
    /// Sessions that ended lately, so a member asking about one hears `gone: ended` (while one
    /// this device never knew, as after a restart, is `gone: unknown`), and an older beacon still
    /// listing one is not believed.
    var ended: [String: ContinuousClock.Instant] = [:]
    /// Sessions this device dropped lately because another device leads a later copy without
    /// its players (`superseded`): a member still asking here hears `gone: moved`.
    var moved: [String: ContinuousClock.Instant] = [:]
    /// Following: each session's device keys as its leader last sent them.
    var sessionKeys: [String: [String: String]] = [:]

    // Following: one link per leading device, when it was last heard, requests awaiting replies.
    var links: [String: PeerLink] = [:]
    var leaderHeard: [String: ContinuousClock.Instant] = [:]
    var pending:
        [String: (continuation: CheckedContinuation<PeerMessage.Reply, any Error>, deadline: ContinuousClock.Instant)] =
            [:]
    var random = SystemRandomNumberGenerator()

    init(
        device: String, keyPair: CurveKeyPair, peerPort: Int, publisher: Publisher, peerSocket: SocketThread<[Frame]>,
        beacon: Beacon?, context: ZMQContext, logger: Logger, linkSink: AsyncStream<PeerLink>.Continuation,
        timing: TurnTiming = .standard, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
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
        self.timing = timing
        self.now = now
        allJoins = (now(), 0)
    }

    // MARK: - Applying transitions and telling everyone

    /// Applies a transition to a session this device leads, then publishes it here and pushes it
    /// to every other device in the session.
    func apply(
        _ code: String, _ transition: (inout TurnSession) throws(TurnError) -> [TurnSession.Change]
    ) throws(TurnError) {
        guard var held = sessions[code] else { throw .noSuchSession(code) }
        let previous = held.session
        held.catchUp(to: now())
        let changes = try transition(&held.session)
        sessions[code] = held
        settle(code, previous: previous, changes: changes)
    }

    /// After a session changed here: push the state to the other devices (the old ones too, so a
    /// leaving device hears it is out), publish each change, and work out this device's role.
    ///
    /// The device of the player whose turn it is goes first: that is the popup someone waits
    /// for. When that player is here, the changes are published before the push (a done sent
    /// from another device then reaches the leader's own "Your turn" without waiting for the
    /// step to be encoded and sent to the other devices); otherwise the other devices go first.
    func settle(_ code: String, previous: TurnSession, changes: [TurnSession.Change]) {
        guard let session = sessions[code]?.session else { return }
        let upHere = session.state == .playing && session.currentPlayer?.device == device
        if upHere { publish(changes, in: session, previous: previous) }
        guard let message = push(code, previous: previous, change: changes.last) else { return }
        for member in Set(previous.devices + session.devices) where member != device {
            sendToMember(member, message)
        }
        if !upHere { publish(changes, in: session, previous: previous) }
        reconcile(code)
    }

    /// Decides this device's part in a session from its state: lead it, follow its leader's
    /// device, or (no players here, or ended) forget it.
    func reconcile(_ code: String) {
        guard let held = sessions[code] else { return }
        let session = held.session
        if session.state == .ended || !session.players.contains(where: { $0.device == device }) {
            if held.leaderDevice != device || session.state == .ended {
                sessions.removeValue(forKey: code)
                sessionKeys.removeValue(forKey: code)
                // (A device that only left may see the game again in its leader's beacon.)
                if session.state == .ended {
                    ended[code] = now()
                    endedGames[code] = (session, now())
                }
                return
            }
        }
        if held.leaderDevice != device {
            _ = link(to: held.leaderDevice)
            if leaderHeard[held.leaderDevice] == nil { leaderHeard[held.leaderDevice] = now() }
        } else {
            for member in session.devices where member != device && memberHeard[member] == nil {
                memberHeard[member] = now()
            }
            // Leading now (a take-over, a hand-off): the members' keys come from the old leader's
            // state, so a device is bound to its real key before it is next heard from.
            for (member, key) in sessionKeys[code] ?? [:] where member != device && deviceKeys[member] == nil {
                deviceKeys[member] = key
            }
        }
    }

    // MARK: - Time

    /// Called every heartbeat, and when a turn timer is due: expires requests, sends the beacon
    /// and heartbeats, marks silent members away, takes over from a vanished leader, and runs
    /// the timers of the games led here.
    /// - Returns: how long until the next call is due: a heartbeat, or sooner for a timer.
    @discardableResult
    func tick() -> Duration {
        let now = now()
        for (code, game) in endedGames where now - game.at > timing.endedKept { endedGames.removeValue(forKey: code) }
        expireRequests(now: now)
        forgetStrangers(now: now)
        announce()
        heartbeatLeaders(now: now)
        for code in sessions.keys {
            guard let held = sessions[code], held.leaderDevice == device else { continue }
            for member in held.session.devices where member != device {
                if now - (memberHeard[member] ?? now) > timing.awayAfter { setPresence(code, member, present: false) }
            }
        }
        return runTimers()
    }

    // MARK: - Events on this device's bus

    /// Publishes a transition's changes: `turn.<code>.your-turn` when the turn moved, then
    /// `turn.<code>.changed` for each change. The one a person is waiting for goes first.
    func publish(_ changes: [TurnSession.Change], in session: TurnSession, previous: TurnSession?) {
        for (index, change) in changes.enumerated() {
            publishChanged(session, change, previous: index == changes.count - 1 ? previous : session)
        }
    }

    /// Publishes `turn.<code>.your-turn` when the turn moved since `previous`, then
    /// `turn.<code>.changed`. Both carry the session's `seq`.
    func publishChanged(_ session: TurnSession, _ change: TurnSession.Change?, previous: TurnSession?) {
        let held = sessions[session.code]
        let clock = held?.session.seq == session.seq ? held?.clock(at: now()) : nil
        if let yourTurn = YourTurnEvent(session, clock: clock),
            previous == nil || previous?.current != session.current || previous?.turn != session.turn
                || previous?.state != .playing
        {
            publish("turn.\(session.code).your-turn", "turn.your-turn", yourTurn)
        }
        publish(
            "turn.\(session.code).changed", "turn.changed",
            TurnChangedEvent(
                session: session, change: change, clockNow: clock ?? TurnClockReading(session.clock, elapsed: 0)))
    }

    func publish(_ topic: String, _ type: String, _ event: some Encodable) {
        do {
            _ = try publisher.publish(topic: topic, type: type, data: try JSONValue(encoding: event))
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

extension TurnError {
    /// The command error a refusal becomes.
    var commandError: CommandError { CommandError(code: "refused", message: "\(field): \(description)") }
}
