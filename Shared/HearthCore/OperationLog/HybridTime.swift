/// A hybrid logical clock reading (Kulkarni et al., 2014): wall-clock milliseconds plus a
/// logical counter that orders events within the same millisecond or when a clock lags behind
/// one it has heard from. Readings compare as (wall, logical).
public struct HybridTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970 (UTC).
    public let wall: Int64
    public let logical: UInt32

    public init(wall: Int64, logical: UInt32 = 0) {
        self.wall = wall
        self.logical = logical
    }

    public static func < (lhs: HybridTime, rhs: HybridTime) -> Bool {
        (lhs.wall, lhs.logical) < (rhs.wall, rhs.logical)
    }

    public var description: String { "\(wall).\(logical)" }
}

/// One device's hybrid logical clock: readings never go backwards, and a reading taken after
/// hearing of a remote time is later than it.
public struct HybridClock: Sendable {
    /// How far ahead of this device's wall clock a remote reading may be before it is refused
    /// (a peer with a clock an hour fast must not drag every later edit into the future).
    public static let maximumDrift: Int64 = 60 * 60 * 1_000

    /// The latest reading this clock has issued or observed.
    public private(set) var last: HybridTime

    public init(last: HybridTime = HybridTime(wall: 0)) {
        self.last = last
    }

    /// A reading for a local event at physical time `now` (milliseconds).
    public mutating func tick(now: Int64) -> HybridTime {
        last = now > last.wall ? HybridTime(wall: now) : HybridTime(wall: last.wall, logical: last.logical + 1)
        return last
    }

    /// Takes in a remote reading (an operation received from a peer) at physical time `now`.
    /// - Throws: `OperationLogError.clockDrift` when `remote` is beyond `maximumDrift` ahead.
    public mutating func observe(_ remote: HybridTime, now: Int64) throws(OperationLogError) {
        guard remote.wall <= now + Self.maximumDrift else {
            throw .clockDrift(remoteMilliseconds: remote.wall, localMilliseconds: now)
        }
        let wall = max(last.wall, remote.wall, now)
        let logical: UInt32
        if wall == last.wall && wall == remote.wall {
            logical = max(last.logical, remote.logical) + 1
        } else if wall == last.wall {
            logical = last.logical + 1
        } else if wall == remote.wall {
            logical = remote.logical + 1
        } else {
            logical = 0
        }
        last = HybridTime(wall: wall, logical: logical)
    }
}
