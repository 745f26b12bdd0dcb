/// Events a subscriber never received: from `expected` up to, not including, `received`.
public struct SequenceGap: Sendable, Hashable, Codable, CustomStringConvertible {
    public let source: String
    public let device: String
    /// The first sequence number that did not arrive.
    public let expected: UInt64
    /// The sequence number that arrived instead.
    public let received: UInt64

    public init(source: String, device: String, expected: UInt64, received: UInt64) {
        self.source = source
        self.device = device
        self.expected = expected
        self.received = received
    }

    /// How many events are missing.
    public var missing: UInt64 { received - expected }

    public var description: String {
        let range = missing == 1 ? "seq \(expected)" : "seq \(expected)–\(received - 1)"
        return "missed \(missing) event\(missing == 1 ? "" : "s") from \(source)@\(device.prefix(8)) (\(range))"
    }
}

/// Remembers the last `seq` seen from each publisher and classifies each new one.
///
/// This is the hook replay plugs into: a `.gap` tells the subscriber which range to ask the
/// source for (the Clone pattern of the ZeroMQ guide).
public struct SequenceTracker: Sendable {
    /// What one arriving sequence number means.
    public enum Verdict: Sendable, Equatable {
        /// The first event seen from this publisher.
        case first
        /// Exactly the next one.
        case inOrder
        /// Some events in between never arrived.
        case gap(SequenceGap)
        /// Already seen (a replayed or repeated event); the caller should skip it.
        case duplicate
        /// The publisher started again from 1 (a restarted process with a memory-only sequence).
        case restarted
    }

    private struct Publisher: Hashable {
        let source: String
        let device: String
    }

    private var last: [Publisher: UInt64] = [:]

    public init() {}

    /// Classifies `seq` from `source` on `device` and remembers it unless it is a duplicate.
    public mutating func observe(source: String, device: String, seq: UInt64) -> Verdict {
        let key = Publisher(source: source, device: device)
        guard let previous = last[key] else {
            last[key] = seq
            return .first
        }
        if seq == previous + 1 {
            last[key] = seq
            return .inOrder
        }
        if seq > previous + 1 {
            last[key] = seq
            return .gap(SequenceGap(source: source, device: device, expected: previous + 1, received: seq))
        }
        if seq == 1 && previous > 1 {
            last[key] = seq
            return .restarted
        }
        return .duplicate
    }

    /// The last sequence number seen from a publisher, if any: what to ask a replay to start after.
    public func lastSeq(source: String, device: String) -> UInt64? {
        last[Publisher(source: source, device: device)]
    }

    /// Records that everything up to `seq` is now held (after a replay filled a gap).
    public mutating func advance(source: String, device: String, to seq: UInt64) {
        let key = Publisher(source: source, device: device)
        last[key] = max(last[key] ?? 0, seq)
    }
}
