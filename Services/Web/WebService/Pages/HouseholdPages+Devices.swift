import Foundation
import HearthBus
import HearthCore

/// The devices view: the household's devices, each paired (with its key's fingerprint),
/// forgotten or not paired here, with its last sync; pairing requests in progress with their
/// codes (to compare on both screens); and the sync log.
extension HouseholdPages {
    func devices(_ query: Query) async throws -> [String: Any] {
        async let listing = store.request("device.list")
        async let pairingReply = sync.request("device.pairing")
        async let logReply = sync.request("sync.log", args: ["limit": 30])
        async let pairedReply = sync.request("device.paired")
        let (devices, pairings, log, paired) = try await (listing, pairingReply, logReply, pairedReply)
        var peers: [String: JSONValue] = [:]
        for peer in paired["devices"]?.arrayValue ?? [] {
            if let id = peer["id"]?.stringValue { peers[id] = peer }
        }
        let list = (devices["devices"]?.arrayValue ?? []).map { device -> [String: Any] in
            var values = device.mustacheObject
            let peer = device["id"]?.stringValue.flatMap { peers[$0] }
            let synced = peer?["last_sync_at"]?.stringValue ?? device["last_sync_at"]?.stringValue
            values["last_sync"] = synced.map { Self.localTime($0, timeZone) } ?? false
            let state: Any =
                device["local"] == true
                ? false
                : peer.map { peer in
                    if let remover = peer["removed_by"]?.stringValue { return "removed by \(remover)" }
                    return peer["forgotten"] == true ? "forgotten" : "paired"
                } ?? "not paired here"
            values["state"] = state
            let fingerprint: Any =
                peer?["forgotten"] == true ? false : (peer?["fingerprint"]?.stringValue).map { $0 as Any } ?? false
            values["fingerprint"] = fingerprint
            return values
        }
        let requests = (pairings["pairings"]?.arrayValue ?? []).map { pairing -> [String: Any] in
            var values = pairing.mustacheObject
            values["asked_here"] = pairing["role"] == "initiator"
            return values
        }
        let entries = (log["entries"]?.arrayValue ?? []).map { entry -> [String: Any] in
            var values = entry.mustacheObject
            values["when"] = Self.localTime(entry["at"]?.stringValue, timeZone)
            values["peer_name"] = entry["peer"]?["name"]?.stringValue ?? "?"
            values["completed"] = entry["outcome"] == "completed"
            // An empty detail leaves no dangling " · ".
            if (entry["detail"]?.stringValue ?? "").isEmpty { values["detail"] = false }
            return values
        }
        return [
            "devices": list, "pairings": requests, "no_pairings": requests.isEmpty, "entries": entries,
            "no_entries": entries.isEmpty,
        ]
    }
}
