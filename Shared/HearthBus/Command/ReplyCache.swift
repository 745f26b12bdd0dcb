import DequeModule
import Synchronization

/// Remembers the replies to recent request ids, so a retried request is answered, not re-run.
///
/// A duplicate that arrives while the first copy is still running waits for that run's reply.
/// Finished replies are forgotten oldest first once any bound is passed: `capacity` replies,
/// `maximumBytes` of reply bytes, or `retention` since the reply was stored. A client retries
/// within seconds (its timeout times its attempts), so a reply older than `retention` is never
/// asked for again; bounding by age keeps a long-running service's memory flat — a count bound
/// alone grew each service's memory for as long as it took to fill (4,096 replies, about 7
/// minutes at the soak's 10 commands a second).
public final class ReplyCache: Sendable {
    /// What to do with an arriving request.
    public enum Admission: Equatable {
        /// Run it; nobody else is.
        case run
        /// Already answered: send this again.
        case answered([UInt8])
        /// Another copy is running; its reply will also go to this requester.
        case joined
    }

    private struct Finished {
        let reply: [UInt8]
        let at: ContinuousClock.Instant
    }

    private struct State: ~Copyable {
        var finished: [String: Finished] = [:]
        /// Finished ids, oldest first, with when each finished: eviction takes from the front in
        /// O(1) (an ordered dictionary's `removeFirst` moves every other entry, at 4,096 replies on
        /// every request). An entry whose reply was replaced since is skipped.
        var order: Deque<(id: String, at: ContinuousClock.Instant)> = []
        var bytes = 0
        var running: [String: [Frame]] = [:]
    }

    private let capacity: Int
    private let maximumBytes: Int
    private let retention: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())

    /// - Parameter now: the clock ages are measured by (tests inject one).
    public init(
        capacity: Int, maximumBytes: Int = 8 * 1024 * 1024, retention: Duration = .seconds(120),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.capacity = capacity
        self.maximumBytes = maximumBytes
        self.retention = retention
        self.now = now
    }

    /// Registers a request from the peer with routing id `route`.
    public func admit(id: String, route: Frame) -> Admission {
        let now = now()
        return state.withLock { state in
            if let finished = state.finished[id], now - finished.at <= retention { return .answered(finished.reply) }
            if state.running[id] != nil {
                state.running[id]!.append(route)
                return .joined
            }
            state.running[id] = []
            return .run
        }
    }

    /// Stores the reply for `id` and returns the routes of duplicates that joined while it ran.
    public func finish(id: String, reply: [UInt8]) -> [Frame] {
        let now = now()
        return state.withLock { state in
            let joined = state.running.removeValue(forKey: id) ?? []
            if let previous = state.finished.updateValue(Finished(reply: reply, at: now), forKey: id) {
                state.bytes -= previous.reply.count
            }
            state.order.append((id, now))
            state.bytes += reply.count
            while let oldest = state.order.first,
                state.finished.count > capacity || state.bytes > maximumBytes || now - oldest.at > retention
                    || state.finished[oldest.id]?.at != oldest.at
            {
                state.order.removeFirst()
                // Only the entry this place in the order stands for (a replaced reply has a later one).
                if let entry = state.finished[oldest.id], entry.at == oldest.at {
                    state.bytes -= entry.reply.count
                    state.finished[oldest.id] = nil
                }
            }
            return joined
        }
    }

    public var count: Int { state.withLock { $0.finished.count } }

    /// The bytes of the replies held.
    public var bytes: Int { state.withLock { $0.bytes } }
}
