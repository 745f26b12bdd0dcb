import OrderedCollections
import Synchronization

/// Remembers the replies to recent request ids, so a retried request is answered, not re-run.
///
/// A duplicate that arrives while the first copy is still running waits for that run's reply.
/// The cache is bounded: the oldest finished replies are forgotten first.
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

    private struct State: ~Copyable {
        var finished: OrderedDictionary<String, [UInt8]> = [:]
        var running: [String: [Frame]] = [:]
    }

    private let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// Registers a request from the peer with routing id `route`.
    public func admit(id: String, route: Frame) -> Admission {
        state.withLock { state in
            if let reply = state.finished[id] { return .answered(reply) }
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
        state.withLock { state in
            let joined = state.running.removeValue(forKey: id) ?? []
            state.finished[id] = reply
            if state.finished.count > capacity {
                state.finished.removeFirst(state.finished.count - capacity)
            }
            return joined
        }
    }

    public var count: Int { state.withLock { $0.finished.count } }
}
