import Foundation
import HearthBus
import HearthCore

/// Serving paired peers: the requests a paired device makes on the replication socket, and the
/// log line and popup of a sync it started here (`sync.done`).
extension SyncEngine {
    /// A sync a peer started with this device, from its `sync.vector` to its `sync.done`: what its
    /// pages brought here.
    struct Served {
        let at: Date
        var received = 0
        var conflicts = 0
        var relayed = 0
    }

    /// A request on the replication socket. The ZAP handler admitted its key at the handshake;
    /// this checks it again on every message, so a device forgotten while connected is cut off.
    func fromPeer(_ request: CommandRequest) async throws -> JSONValue {
        guard let key = request.peerKey, let peer = paired.peer(forKey: key) else {
            await refused(
                key: request.peerKey ?? "", address: "", reason: "sent a request but is not paired (forgotten?)")
            throw CommandError(code: "not_paired", message: "this device is not paired with yours")
        }
        switch request.command {
        case "sync.vector":
            // The pair is syncing now, started by the other side: the interval counts from here.
            lastSync[peer.device] = now()
            note("sync", "\(peer.name) started a sync", device: peer.device)
            // A peer of an earlier version never says it is done: what its last sync brought is
            // logged now, without the bytes and time it alone measured.
            if let earlier = served[peer.device], earlier.received > 0 {
                await logServed(earlier, from: peer, done: nil)
            }
            served[peer.device] = Served(at: Date())
        case "sync.done":
            let done = try JSONValue.object(request.arguments).decode(SyncDone.self)
            await logServed(served.removeValue(forKey: peer.device) ?? Served(at: Date()), from: peer, done: done)
            return [:]
        default: break
        }
        let (reply, applied) = try await replicator.answer(request, from: peer)
        if let applied { refusedFrom(peer, Refusals(refused: applied.refused, count: applied.refusedCount)) }
        if let applied, applied.received > 0 {
            note(
                "received",
                "\(applied.received) operations from \(peer.name)"
                    + (applied.relayed > 0 ? " (\(applied.relayed) relayed for other devices)" : ""),
                device: peer.device)
            served[peer.device, default: Served(at: Date())].received += applied.received
            served[peer.device]?.conflicts += applied.conflicts
            served[peer.device]?.relayed += applied.relayed
            announceChanges(CardsChangedEvent.changes(merging: applied.announced), from: peer)
        }
        return reply
    }

    /// Logs a sync `peer` started with this device, with the bytes and time it measured (`done`),
    /// and raises its popup as a sync started here does.
    private func logServed(_ served: Served, from peer: SyncDatabase.Peer, done: SyncDone?) async {
        var entry = SyncDatabase.Entry(
            at: served.at, peer: peer.device, peerName: peer.name, outcome: .completed, received: served.received,
            sent: done?.received ?? 0, conflicts: served.conflicts,
            resolution: served.conflicts > 0 ? "both values kept; the latest shown until someone picks one" : "",
            detail: "started by \(peer.name)"
                + (served.relayed > 0 ? "; \(served.relayed) relayed for other devices" : ""))
        // The peer's received are what this side sent (above); its bytes and time are this one's.
        if let done {
            entry.bytes = done.bytes
            entry.duration = .milliseconds(done.durationMs)
        }
        try? await database.log(entry)
        note("completed", Self.describe(entry), device: peer.device)
        publish(
            "sync.completed",
            SyncCompletedEvent(
                peer: PeerRef(device: peer.device, name: peer.name), received: entry.received, sent: entry.sent,
                conflicts: entry.conflicts, bytes: entry.bytes, durationMs: entry.duration.milliseconds,
                detail: entry.detail))
    }
}
