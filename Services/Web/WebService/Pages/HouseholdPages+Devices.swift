import Foundation
import HearthBus
import HearthCore

/// The devices view: the household's paired devices with their last sync, pairing requests in
/// progress with their codes (to compare on both screens), and the sync log.
extension HouseholdPages {
    func devices(_ query: Query) async throws -> [String: Any] {
        async let listing = store.request("device.list")
        async let pairingReply = sync.request("device.pairing")
        async let logReply = sync.request("sync.log", args: ["limit": 30])
        let (devices, pairings, log) = try await (listing, pairingReply, logReply)
        let list = (devices["devices"]?.arrayValue ?? []).map { device -> [String: Any] in
            var values = device.mustacheObject
            values["last_sync"] = device["last_sync_at"]?.stringValue.map { Self.localTime($0, timeZone) } ?? false
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
            return values
        }
        return [
            "devices": list, "pairings": requests, "no_pairings": requests.isEmpty, "entries": entries,
            "no_entries": entries.isEmpty,
        ]
    }
}
