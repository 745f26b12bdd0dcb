import HearthBus
import HearthCore
import HearthPairing

/// What a device's sync service announces in its beacon (`[discovery] beacon_port` + 1): who it
/// is, its public key, and where to reach it. Never household data.
struct SyncAnnouncement: Codable, Sendable, Equatable {
    /// Always 1: anything else on the port is not a Hearth beacon.
    var hearth: Int = 1
    var service: String = "sync"
    let device: String
    let name: String
    /// The device's CURVE public key (Z85, 40 characters).
    let key: String
    let fingerprint: String
    /// The replication socket's TCP port (CURVE; paired keys only).
    let port: Int
    /// The pairing socket's TCP port (CURVE; any key, pairing messages only).
    let pairing: Int
    /// Sent straight to a static peer, asking for its announcement back.
    var direct: Bool?

    /// Whether it can be used: a well-formed announcement whose name is text a person may see.
    var isUsable: Bool {
        guard hearth == 1, service == "sync", DeviceID.isValid(device), key.utf8.count == 40,
            (1...65_535).contains(port), (1...65_535).contains(pairing), fingerprint == Pairing.fingerprint(key)
        else { return false }
        do {
            try TextRules.check(name, field: "name", maximumLength: Devices.maximumNameLength)
            return !name.isEmpty
        } catch {
            return false
        }
    }

    /// The same announcement as broadcast (without `direct`), to compare two sightings.
    var plain: SyncAnnouncement {
        var copy = self
        copy.direct = nil
        return copy
    }
}
