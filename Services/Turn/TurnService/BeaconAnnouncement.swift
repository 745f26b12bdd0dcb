import HearthBus
import HearthCore

/// What a device's turn service announces in its beacon: itself, where its peer socket listens,
/// its public key, and the sessions it leads. Never household data.
struct BeaconAnnouncement: Codable, Sendable, Equatable {
    /// A session the device leads, as others see it before joining.
    struct Session: Codable, Sendable, Equatable {
        let code: String
        /// The leader's name.
        let leader: String?
        let state: TurnSession.State
        /// The players' names, in order, while the game waits to start; empty once it is under
        /// way, when only `playerCount` is told (a stranger on the LAN read the names of a game in
        /// progress and offered a forged copy of it: issue 62).
        let players: [String]
        /// How many players it has.
        var playerCount: Int?
        /// The devices the players sit at: a restarted device finds its games here.
        let devices: [String]
        /// The lead's term and the `seq` of the copy there: a device holding an older-ranked copy
        /// (one that went on following, or leading, a leader the others replaced) moves over.
        var term: Int64?
        var seq: Int64?

        /// The copy's rank (`TurnSession.Rank`), led by `leaderDevice`, the announcing device.
        func rank(leaderDevice: String) -> TurnSession.Rank {
            TurnSession.Rank(term: term ?? 0, leaderDevice: leaderDevice, seq: seq ?? 0)
        }
    }

    /// Always 1: anything else on the port is not a Hearth beacon.
    var hearth: Int = 1
    let device: String
    /// The device's CURVE public key (Z85, 40 characters).
    let key: String
    /// Its peer socket's TCP port.
    let port: Int
    let sessions: [Session]
    /// Sent straight to a static peer, asking for its announcement back.
    var direct: Bool?

    /// Whether it can be used: a Hearth beacon with a well-formed key and port.
    var isUsable: Bool { hearth == 1 && key.utf8.count == 40 && (1...65_535).contains(port) }
}
