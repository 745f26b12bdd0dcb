import Foundation
import HearthBus
import HearthCore

/// The devices view: the household's devices, each paired (with its key's fingerprint),
/// forgotten or not paired here, with its last sync; pairing requests in progress with their
/// codes (to compare on both screens); and the sync log.
extension HouseholdPages {
    func devices(_ query: Query) async throws -> [String: Any] {
        async let listing = store.send(DeviceCommands.List())
        async let pairingReply = sync.send(PairingCommands.Pending())
        async let logReply = sync.send(SyncCommands.Log(limit: 30))
        async let pairedReply = sync.send(PairingCommands.Paired())
        let (devices, pairings, log, paired) = try await (listing, pairingReply, logReply, pairedReply)
        let peers = Dictionary(paired.devices.map { ($0.id, $0) }) { first, _ in first }
        let list = try devices.devices.map { device -> [String: Any] in
            var values = try JSONValue(reply: device).mustacheObject
            let peer = peers[device.id]
            let synced = peer?.lastSyncAt ?? device.lastSyncAt
            values["last_sync"] = synced.map { Self.localTime($0, timeZone) } ?? false
            let state: Any =
                device.local
                ? false
                : peer.map { peer in
                    if let remover = peer.removedBy { return "removed by \(remover)" }
                    return peer.forgotten ? "forgotten" : "paired"
                } ?? "not paired here"
            values["state"] = state
            let fingerprint: Any = peer.flatMap { $0.forgotten ? nil : $0.fingerprint as Any } ?? false
            values["fingerprint"] = fingerprint
            return values
        }
        let requests = try pairings.pairings.map { pairing -> [String: Any] in
            var values = try JSONValue(reply: pairing).mustacheObject
            values["asked_here"] = pairing.role == "initiator"
            return values
        }
        let entries = try log.entries.map { entry -> [String: Any] in
            var values = try JSONValue(reply: entry).mustacheObject
            values["when"] = Self.localTime(entry.at, timeZone)
            values["peer_name"] = entry.peer.name
            values["completed"] = entry.outcome == "completed"
            // An empty detail leaves no dangling " · ".
            if entry.detail.isEmpty { values["detail"] = false }
            return values
        }
        return [
            "devices": list, "pairings": requests, "no_pairings": requests.isEmpty, "entries": entries,
            "no_entries": entries.isEmpty,
        ]
    }
}
