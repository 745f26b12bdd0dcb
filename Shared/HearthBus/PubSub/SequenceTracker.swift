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

/// Remembers where each publisher's sequence stands and classifies each new `seq`.
///
/// This is the hook replay plugs into: a `.gap` tells the subscriber which range to ask the
/// source for (the Clone pattern of the ZeroMQ guide). A jump is a gap, not a new floor: the
/// numbers skipped stay expected, so when they come after all (a forged or wild `seq` from
/// another sender, a slow path) they are delivered as `.late`, never dropped as duplicates. A
/// publisher that restarted is recognised by its new epoch (`Envelope.epoch`), so its numbering
/// starting again is a restart, not a run of duplicates.
public struct SequenceTracker: Sendable {
    /// What one arriving sequence number means.
    public enum Verdict: Sendable, Equatable {
        /// The first event seen from this publisher.
        case first
        /// Exactly the next one.
        case inOrder
        /// Some events in between never arrived.
        case gap(SequenceGap)
        /// One of the numbers a gap skipped, arriving after all: deliver it.
        case late
        /// Already seen (a replayed or repeated event); the caller should skip it.
        case duplicate
        /// The publisher started again from 1 (a restarted process with a memory-only sequence).
        case restarted
    }

    private struct Publisher: Hashable {
        let source: String
        let device: String
    }

    /// Where one publisher stands.
    private struct Position {
        var epoch: UInt64
        var last: UInt64
        /// Numbers a gap skipped that may still come, oldest gaps first (a few at most).
        var missing: [ClosedRange<UInt64>] = []

        static let maximumGaps = 8

        mutating func skip(_ range: ClosedRange<UInt64>) {
            missing.append(range)
            if missing.count > Self.maximumGaps { missing.removeFirst() }
        }

        /// Takes `seq` out of the missing ranges; `false` when it was not missing.
        mutating func fill(_ seq: UInt64) -> Bool {
            guard let index = missing.firstIndex(where: { $0.contains(seq) }) else { return false }
            let range = missing.remove(at: index)
            if range.lowerBound < seq { missing.insert(range.lowerBound...(seq - 1), at: index) }
            if seq < range.upperBound { missing.append((seq + 1)...range.upperBound) }
            return true
        }
    }

    /// Every publisher except `recent`'s.
    private var others: [Publisher: Position] = [:]
    /// The publisher seen most recently, kept out of the dictionary: events come in runs from
    /// one publisher, and this spares hashing two strings per event.
    private var recent: (publisher: Publisher, position: Position)?

    /// When this subscriber began listening (an epoch: milliseconds since 1970), or 0 when not
    /// known. A publisher whose run began after it and whose first event seen is not its run's
    /// first was partly missed, and that is reported.
    private let listeningSince: UInt64

    public init(listeningSince: UInt64 = 0) {
        self.listeningSince = listeningSince
    }

    /// Classifies `seq` from `source` on `device` (in publisher run `epoch`, whose numbering
    /// began at `runStart`) and remembers it unless it is a duplicate.
    public mutating func observe(
        source: String, device: String, seq: UInt64, epoch: UInt64 = 0, runStart: UInt64 = 1
    ) -> Verdict {
        let previous: Position?
        if let recent, recent.publisher.source == source, recent.publisher.device == device {
            previous = recent.position
        } else {
            let key = Publisher(source: source, device: device)
            if let recent { others[recent.publisher] = recent.position }
            previous = others.removeValue(forKey: key)
            recent = (key, previous ?? Position(epoch: epoch, last: seq))
        }
        guard var position = previous else {
            // Listening since before this run began, yet its first events never came.
            if listeningSince != 0, epoch > listeningSince, seq > runStart {
                return .gap(SequenceGap(source: source, device: device, expected: runStart, received: seq))
            }
            return .first
        }
        let verdict = Self.classify(seq, epoch: epoch, at: &position, source: source, device: device)
        recent!.position = position
        return verdict
    }

    private static func classify(
        _ seq: UInt64, epoch: UInt64, at position: inout Position, source: String, device: String
    ) -> Verdict {
        func gap(from expected: UInt64) -> Verdict {
            .gap(SequenceGap(source: source, device: device, expected: expected, received: seq))
        }
        if epoch != position.epoch {
            // A new run of the publisher: a durable numbering carries on, a memory-only one
            // starts again at 1; whatever it sent before `seq` in this run was missed.
            let last = position.last
            position = Position(epoch: epoch, last: seq)
            if seq == last &+ 1 { return .inOrder }
            if seq > last { return gap(from: last + 1) }
            return seq == 1 ? .restarted : gap(from: 1)
        }
        if seq == position.last &+ 1 {
            position.last = seq
            return .inOrder
        }
        if seq > position.last {
            let expected = position.last + 1
            position.skip(expected...(seq - 1))
            position.last = seq
            return gap(from: expected)
        }
        if position.fill(seq) { return .late }
        if seq == 1 && position.last > 1 {
            position = Position(epoch: epoch, last: 1)
            return .restarted
        }
        return .duplicate
    }

    /// The last sequence number seen from a publisher, if any: what to ask a replay to start after.
    public func lastSeq(source: String, device: String) -> UInt64? {
        if let recent, recent.publisher.source == source, recent.publisher.device == device {
            return recent.position.last
        }
        return others[Publisher(source: source, device: device)]?.last
    }

    /// Records that everything up to `seq` is now held (after a replay filled a gap).
    public mutating func advance(source: String, device: String, to seq: UInt64) {
        func advanced(_ position: inout Position) {
            position.last = max(position.last, seq)
            position.missing = position.missing.compactMap { range in
                range.upperBound <= seq ? nil : (max(range.lowerBound, seq + 1)...range.upperBound)
            }
        }
        if let recent, recent.publisher.source == source, recent.publisher.device == device {
            advanced(&self.recent!.position)
        } else {
            let key = Publisher(source: source, device: device)
            var position = others[key] ?? Position(epoch: 0, last: seq)
            advanced(&position)
            others[key] = position
        }
    }
}
