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

    /// Last seq of every publisher except `recent`'s.
    private var others: [Publisher: UInt64] = [:]
    /// The publisher seen most recently, kept out of the dictionary: events come in runs from
    /// one publisher, and this spares hashing two strings per event.
    private var recent: (publisher: Publisher, seq: UInt64)?

    public init() {}

    /// Classifies `seq` from `source` on `device` and remembers it unless it is a duplicate.
    public mutating func observe(source: String, device: String, seq: UInt64) -> Verdict {
        let previous: UInt64?
        if let recent, recent.publisher.source == source, recent.publisher.device == device {
            previous = recent.seq
        } else {
            let key = Publisher(source: source, device: device)
            if let recent { others[recent.publisher] = recent.seq }
            previous = others.removeValue(forKey: key)
            recent = (key, previous ?? seq)
        }
        guard let previous else { return .first }
        let verdict = Self.classify(seq, after: previous, source: source, device: device)
        if verdict != .duplicate { recent!.seq = seq }
        return verdict
    }

    private static func classify(_ seq: UInt64, after previous: UInt64, source: String, device: String) -> Verdict {
        if seq == previous &+ 1 { return .inOrder }
        if seq > previous {
            return .gap(SequenceGap(source: source, device: device, expected: previous + 1, received: seq))
        }
        if seq == 1 && previous > 1 { return .restarted }
        return .duplicate
    }

    /// The last sequence number seen from a publisher, if any: what to ask a replay to start after.
    public func lastSeq(source: String, device: String) -> UInt64? {
        if let recent, recent.publisher.source == source, recent.publisher.device == device { return recent.seq }
        return others[Publisher(source: source, device: device)]
    }

    /// Records that everything up to `seq` is now held (after a replay filled a gap).
    public mutating func advance(source: String, device: String, to seq: UInt64) {
        if let recent, recent.publisher.source == source, recent.publisher.device == device {
            self.recent!.seq = max(recent.seq, seq)
        } else {
            let key = Publisher(source: source, device: device)
            others[key] = max(others[key] ?? 0, seq)
        }
    }
}
