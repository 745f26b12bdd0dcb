import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthPairing
import Logging

/// `hearth-sync`'s state and decisions: the devices heard on the LAN, pairing attempts, when to
/// sync with whom, and what happened (diagnostics, the sync log, events on the bus).
///
/// By role: hearing devices and syncing (here), pairing (`+Pairing`), this device's commands
/// (`+Commands`). Its clock is injected, so the five-minute rule is tested by moving it.
actor SyncEngine {
    let device: String
    let keyPair: CurveKeyPair
    let database: SyncDatabase
    let paired: PairedKeys
    let replicator: SyncReplicator
    let store: CommandClient
    let publisher: Publisher
    let context: ZMQContext
    /// Discovery: `nil` until started, or when the UDP port could not be bound.
    var beacon: Beacon?
    /// This device's replication and pairing ports, as announced (set once the sockets are bound).
    var ports: (replication: Int, pairing: Int) = (0, 0)
    /// Closes every live connection to the replication socket (each peer handshakes afresh).
    var dropPeerConnections: @Sendable () async throws -> Void = {}
    /// At most one automatic sync per pair this often (`[sync] interval`, 5 minutes at least).
    let interval: Duration
    let logger: Logger
    let now: @Sendable () -> ContinuousClock.Instant

    /// This device's household name (the store's, refreshed as it changes).
    var name: String

    /// A device heard in a sync beacon.
    struct Heard {
        var announcement: SyncAnnouncement
        var host: String
        var at: Date
        var firstHeard: ContinuousClock.Instant
        var lastHeard: ContinuousClock.Instant
        var endpoint: String { "tcp://\(host):\(announcement.port)" }
        var pairingEndpoint: String { "tcp://\(host):\(announcement.pairing)" }
    }
    var heard: [String: Heard] = [:]

    /// A pairing attempt in progress, by the other device's id.
    struct Pending {
        var session: PairingSession
        let device: String
        /// The other device's name as it announced it, or as the person here named it.
        var name: String
        let key: String
        let started: Date
        /// The other device's signing key, as it sent it over the CURVE link of the pairing.
        var signingKey: String?
        /// Where the request came from (an attempt asked of this device), or `nil`.
        var address: String?
    }
    var pairings: [String: Pending] = [:]
    /// When each pairing popup was raised here, by the address that asked (the last minute's).
    var pairingPopups: [(address: String, at: ContinuousClock.Instant)] = []
    /// This device's signing key, as its store gives it (asked once).
    var ownSigningKey: String?

    /// When each pair last synced (either side starting it): the five-minute rule's clock.
    var lastSync: [String: ContinuousClock.Instant] = [:]
    /// Syncs in progress, by peer: a second request for one joins it.
    var running: [String: Task<SyncDatabase.Entry, Never>] = [:]
    /// Syncs a peer started with this device, by peer, from its `sync.vector` to its `sync.done`:
    /// what its pages brought here, logged (with the bytes and time the peer measured) when it
    /// says it is done.
    var served: [String: Served] = [:]

    /// The last diagnostics lines (`hearth sync diag`), newest last.
    var diagnostics: [SyncDiagLine] = []
    static let diagnosticsKept = 200
    var refusals = 0
    /// Operations refused on import, over all syncs (each sync's are also in its log line).
    var refusedOperations = 0
    /// Refused operations already shown in an alert (the newest 1,000): each is named once.
    var alerted: [String] = []
    /// When a refused key was last reported (diagnostics, the service log and the sync log: at
    /// most once a minute each), for the keys reported in the last minute.
    var refusalLogged: [String: ContinuousClock.Instant] = [:]
    /// At most this many refusals are reported a minute across all keys: a peer that makes a new
    /// key for every attempt (libzmq reconnects ten times a second) is counted, not reported
    /// each time, and `refusalLogged` holds at most this many keys.
    static let refusalsReportedPerMinute = 20
    var cloneReported: ContinuousClock.Instant?
    /// How far along each `sync now` is, for the terminal's progress line (`progress {token}`).
    let progress = ProgressBoard()

    init(
        device: String, name: String, keyPair: CurveKeyPair, database: SyncDatabase, paired: PairedKeys,
        replicator: SyncReplicator, store: CommandClient, publisher: Publisher, context: ZMQContext,
        interval: Duration, logger: Logger,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.device = device
        self.name = name
        self.keyPair = keyPair
        self.database = database
        self.paired = paired
        self.replicator = replicator
        self.store = store
        self.publisher = publisher
        self.context = context
        self.interval = interval
        self.logger = logger
        self.now = now
    }

    /// Takes the bound sockets' ports, the beacon, and how to cut peers' live connections,
    /// before serving starts.
    func start(
        beacon: Beacon?, ports: (replication: Int, pairing: Int),
        dropPeerConnections: @escaping @Sendable () async throws -> Void
    ) {
        self.beacon = beacon
        self.ports = ports
        self.dropPeerConnections = dropPeerConnections
    }

    // MARK: - Hearing devices

    /// A sync beacon heard.
    func sighted(_ sighting: BeaconSighting) async {
        guard let announcement = try? sighting.payload.decode(SyncAnnouncement.self), announcement.isUsable else {
            return
        }
        if announcement.direct == true { beacon?.reply(to: sighting.host, port: sighting.port) }
        if announcement.device == device {
            // This device's own beacon comes back by broadcast; another key or port is a copy.
            if announcement.key != keyPair.publicKey || announcement.port != ports.replication {
                reportClone(announcement, host: sighting.host)
            }
            return
        }
        let other = announcement.device
        // A paired device's id with another key changes nothing (not what `device nearby` shows,
        // not where `sync now` goes): it is refused before it is stored.
        if let peer = paired.peer(device: other), peer.key != announcement.key {
            await refused(
                key: announcement.key, address: sighting.host,
                reason: "announces the id of \(peer.name), paired with another key")
            return
        }
        let instant = now()
        let previous = heard[other]
        heard[other] = Heard(
            announcement: announcement.plain, host: sighting.host, at: Date(),
            firstHeard: previous?.firstHeard ?? instant, lastHeard: instant)
        if previous == nil || previous?.announcement != announcement.plain || previous?.host != sighting.host {
            note(
                "heard",
                "\(announcement.name) (\(announcement.fingerprint)) at \(sighting.host), sync port \(announcement.port)",
                device: other)
        }
        guard let peer = paired.peer(device: other) else { return }
        syncIfDue(peer)
    }

    /// Starts an automatic sync with `peer` if the pair has not synced within the interval. The
    /// device with the lower id starts; the other waits 30 s more, so both do not start at once,
    /// and a pair heard continuously syncs once per interval, not once per beacon.
    func syncIfDue(_ peer: SyncDatabase.Peer) {
        guard running[peer.device] == nil, let seen = heard[peer.device] else { return }
        let lead: Duration = device < peer.device ? .zero : .seconds(30)
        let since = lastSync[peer.device] ?? (seen.firstHeard - interval)
        guard now() - since >= interval + lead else { return }
        lastSync[peer.device] = now()
        _ = startSync(peer, endpoint: seen.endpoint, reason: "automatic")
    }

    /// Starts a sync with `peer` (or joins the one running).
    /// - Parameter progress: told the operations moved and to move, as pages go (a new sync's).
    func startSync(
        _ peer: SyncDatabase.Peer, endpoint: String, reason: String,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) -> Task<SyncDatabase.Entry, Never> {
        if let task = running[peer.device] { return task }
        note("sync", "\(reason) sync with \(peer.name) at \(endpoint)", device: peer.device)
        let replicator = replicator
        let task = Task { [weak self] in
            let (entry, changes) = await replicator.sync(with: peer, endpoint: endpoint, progress: progress)
            return await self?.finished(peer, entry: entry, changes: changes, endpoint: endpoint) ?? entry
        }
        running[peer.device] = task
        return task
    }

    /// Records a sync's outcome: the log, the peer's last sync, events for the popups. A peer
    /// that did not answer is asked on its pairing socket whether it forgot this device (see
    /// `askStillPaired`).
    /// - Returns: the entry as logged.
    private func finished(
        _ peer: SyncDatabase.Peer, entry given: SyncDatabase.Entry, changes: [CardsChangedEvent.Change],
        endpoint: String
    ) async -> SyncDatabase.Entry {
        running[peer.device] = nil
        lastSync[peer.device] = now()
        var entry = given
        if entry.unanswered, await askStillPaired(peer) == false {
            entry.detail = "\(peer.name) removed this device: pair with it again to sync"
        }
        do {
            try await database.log(entry)
            if let offset = entry.clockOffsetMilliseconds {
                try await database.noteClock(peer.device, offsetMilliseconds: offset, at: entry.at)
            }
            if entry.outcome == .completed {
                try await database.noteSynced(peer.device, at: entry.at, endpoint: endpoint)
                _ = try await store.send(DeviceCommands.Synced(id: peer.device, at: Timestamp.format(entry.at)))
            }
        } catch {
            logger.error("hearth-sync: cannot record the sync with \(peer.name): \(error)")
        }
        let ref = PeerRef(device: peer.device, name: peer.name)
        if entry.outcome == .completed {
            note("completed", Self.describe(entry), device: peer.device)
            publish(
                "sync.completed",
                SyncCompletedEvent(
                    peer: ref, received: entry.received, sent: entry.sent, conflicts: entry.conflicts,
                    bytes: entry.bytes, durationMs: entry.duration.milliseconds, detail: entry.detail))
        } else {
            note("failed", entry.detail, device: peer.device)
            publish("sync.failed", SyncFailedEvent(peer: ref, reason: entry.detail))
        }
        refusedFrom(peer, entry.refused)
        announceChanges(changes, from: peer)
        return entry
    }

    /// Operations `peer` brought that the store refused: counted for `hearth sync diag`, noted,
    /// and shown once as an alert naming the device that brought them (`sync.refused`); the same
    /// refused operations brought again are counted but not shown again.
    func refusedFrom(_ peer: SyncDatabase.Peer, _ refusals: Refusals) {
        guard refusals.count > 0 else { return }
        refusedOperations += refusals.count
        note(
            "refused", "refused \(refusals.count) operations from \(peer.name): \(refusals.summary)",
            device: peer.device)
        let ids = refusals.ids
        guard ids.isEmpty || ids.contains(where: { !alerted.contains($0) }) else { return }
        alerted = Array((alerted + ids).suffix(1_000))
        let event = OperationsRefusedEvent(
            peer: .init(device: peer.device, name: peer.name), count: refusals.count,
            refused: Array(refusals.refused.prefix(5)))
        publish("sync.refused", event)
    }

    /// One "Mum changed August: Beach day → Beach weekend" for the cards a sync changed here.
    func announceChanges(_ changes: [CardsChangedEvent.Change], from peer: SyncDatabase.Peer) {
        guard !changes.isEmpty else { return }
        publish(
            "sync.changed",
            CardsChangedEvent(peer: PeerRef(device: peer.device, name: peer.name), changes: changes))
    }

    static func describe(_ entry: SyncDatabase.Entry) -> String {
        "\(entry.received) received, \(entry.sent) sent, \(entry.conflicts) conflicts, \(entry.bytes) bytes in \(entry.duration.milliseconds) ms"
            + (entry.detail.isEmpty ? "" : "; \(entry.detail)")
    }

    // MARK: - Refusals and clones

    /// A key refused at the handshake or on a message: counted every time; reported (in
    /// diagnostics, published as `sync.diag`, in the service log and in the sync log) at most once
    /// a minute per key and `refusalsReportedPerMinute` times a minute in all.
    func refused(key: String, address: String, reason: String) async {
        refusals += 1
        let moment = now()
        refusalLogged = refusalLogged.filter { moment - $0.value < .seconds(60) }
        guard refusalLogged[key] == nil, refusalLogged.count < Self.refusalsReportedPerMinute else { return }
        refusalLogged[key] = moment
        let fingerprint = key.utf8.count == 40 ? Pairing.fingerprint(key) : "no key"
        let known = paired.peer(forKey: key)
        let detail = "refused key \(fingerprint)\(address.isEmpty ? "" : " from \(address)"): \(reason)"
        note("refused", detail, device: known?.device)
        logger.notice("hearth-sync: \(detail)")
        let entry = SyncDatabase.Entry(
            at: Date(), peer: known?.device ?? "", peerName: known?.name ?? "key \(fingerprint)", outcome: .refused,
            detail: detail)
        do {
            try await database.log(entry)
        } catch {
            logger.error("hearth-sync: cannot write the sync log: \(error)")
        }
    }

    /// Another device announces this device's id: a copied home (a cloned SD card, a restored
    /// backup on a second machine). Both would reuse this device's counters; said loudly.
    private func reportClone(_ announcement: SyncAnnouncement, host: String) {
        if let last = cloneReported, now() - last < .seconds(300) { return }
        cloneReported = now()
        let detail =
            "another device at \(host) announces this device's id \(device) (key \(announcement.fingerprint), port \(announcement.port)): a copied HEARTH_HOME or a restored backup; give the copy a new identity before it writes"
        logger.error("hearth-sync: \(detail)")
        note("clone", detail, device: device)
        publish("device.clone", DeviceCloneEvent(host: host, fingerprint: announcement.fingerprint, detail: detail))
    }

    // MARK: - Beacon

    /// Sends this device's beacon.
    func announce() {
        guard let beacon else { return }
        let announcement = SyncAnnouncement(
            device: device, name: name, key: keyPair.publicKey, fingerprint: Pairing.fingerprint(keyPair.publicKey),
            port: ports.replication, pairing: ports.pairing)
        guard let payload = try? JSONValue(encoding: announcement) else { return }
        beacon.announce(payload)
        beacon.send()
    }

    /// Once a second: the beacon, expired pairings, devices not heard for a minute dropped, and
    /// every few seconds the household name (a rename shows in the next beacons).
    func tick(refreshName: Bool) async {
        if refreshName { await refreshLocalName() }
        announce()
        expirePairings()
        let instant = now()
        heard = heard.filter { instant - $0.value.lastHeard < .seconds(60) }
    }

    /// Takes this device's household name from the store (`hearth device rename` changes it there).
    func refreshLocalName() async {
        guard let list = try? await store.send(DeviceCommands.List()) else { return }
        if let local = list.devices.first(where: \.local) { name = local.name }
    }

    /// Whether a sync with `device` is in progress.
    func isSyncing(with device: String) -> Bool { running[device] != nil }

    /// Waits for the syncs in progress to finish (and be logged).
    func waitForSyncs() async {
        for task in running.values { _ = await task.value }
    }

    /// Cancels syncs in progress (at shutdown).
    func cancelAll() {
        for task in running.values { task.cancel() }
    }

    // MARK: - Diagnostics and events

    /// A diagnostics line, kept for `hearth sync diag` and published as `sync.diag`.
    func note(_ kind: String, _ text: String, device other: String? = nil) {
        let line = SyncDiagLine(at: Timestamp.format(Date()), kind: kind, text: text, device: other)
        diagnostics.append(line)
        if diagnostics.count > Self.diagnosticsKept {
            diagnostics.removeFirst(diagnostics.count - Self.diagnosticsKept)
        }
        publish("sync.diag", line)
    }

    /// Publishes an event from its type in HearthCore.
    func publish<Event: Encodable>(_ type: String, _ event: Event) {
        do {
            _ = try publisher.publish(topic: type, type: type, data: try JSONValue(encoding: event))
        } catch {
            logger.warning("hearth-sync: cannot publish \(type): \(error)")
        }
    }
}
