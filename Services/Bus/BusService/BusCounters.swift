import HearthBus
import HearthCore
import Synchronization

/// What the bus has done since it started; shared by the proxy thread and the command handler.
public final class BusCounters: Sendable {
    /// Events passed from publishers to subscribers.
    public let forwarded = Atomic<Int>(0)
    /// Messages refused for their shape: frame count, topic rules, a non-subscription upstream.
    public let malformed = Atomic<Int>(0)
    /// Messages refused for exceeding the maximum message size.
    public let oversized = Atomic<Int>(0)
    /// Connections libzmq dropped for speaking something other than ZMTP (garbage bytes).
    public let protocolErrors = Atomic<Int>(0)
    /// Subscription changes passed upstream.
    public let subscriptions = Atomic<Int>(0)
    /// Subscribers dropped for not reading while the bus held more than its budget for them.
    public let droppedSubscribers = Atomic<Int>(0)

    public init() {}

    /// Everything the bus refused.
    public var dropped: Int {
        malformed.load(ordering: .relaxed) + oversized.load(ordering: .relaxed)
            + protocolErrors.load(ordering: .relaxed)
    }

    /// The counters now (`stats`).
    public var stats: BusStats {
        BusStats(
            forwarded: forwarded.load(ordering: .relaxed), dropped: dropped,
            malformed: malformed.load(ordering: .relaxed), oversized: oversized.load(ordering: .relaxed),
            protocolErrors: protocolErrors.load(ordering: .relaxed),
            subscriptions: subscriptions.load(ordering: .relaxed),
            droppedSubscribers: droppedSubscribers.load(ordering: .relaxed))
    }

    /// The counters as JSON, for `stats`, `ping` and `health.bus`.
    public var json: JSONValue { (try? JSONValue(reply: stats)) ?? [:] }
}
