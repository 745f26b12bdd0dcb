import HearthCore
import Logging

/// Follows a durable source's changes with nothing missed and nothing twice: the Clone pattern
/// of the ZeroMQ guide.
///
/// It subscribes to the source's topics, then asks the source for every change after the
/// position it starts from (`changes {since}`), then follows live events. A live event is a
/// signal that something changed, never the change itself: the change comes from the source's own
/// feed, asked for from the follower's position. So an event forged on the local bus (another
/// process publishing under the store's name with the next `seq`) can neither be taken for a
/// change nor hide the real one with that number: the feed holds what the store committed.
/// Events lost on the way, or a live event overtaking the replay, are covered the same way.
/// Anything at or before its position is dropped.
public struct ChangeFollower: AsyncSequence, Sendable {
    /// One change: its durable sequence number and the payload the source gave it.
    public struct Change: Sendable, Equatable {
        public let seq: UInt64
        public let data: JSONValue
    }

    private let subscriber: Subscriber
    private let source: String
    private let commands: CommandClient
    private let since: UInt64

    /// - Parameters:
    ///   - source: the envelope `src` of the durable source (`store`).
    ///   - prefix: the topic prefix of its change events (`store.`).
    ///   - commands: a client of its command endpoint (it must answer `changes {since}`).
    ///   - since: the last sequence number already held (0 for everything).
    public init(
        context: ZMQContext,
        busEndpoint: String,
        bus: CommandClient,
        source: String,
        prefix: String,
        commands: CommandClient,
        since: UInt64
    ) async throws {
        subscriber = try Subscriber(context: context, endpoint: busEndpoint, prefixes: [prefix])
        // Live first, then replay: whatever commits in between arrives live and overlaps the
        // replay, and the overlap is dropped by sequence number.
        _ = await subscriber.waitUntilSubscribed(bus: bus, timeout: .seconds(5))
        self.source = source
        self.commands = commands
        self.since = since
    }

    /// Stops following.
    public func close() async { await subscriber.close() }

    public func makeAsyncIterator() -> Iterator {
        Iterator(live: subscriber.makeAsyncIterator(), source: source, commands: commands, position: since)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var live: Subscriber.Iterator
        let source: String
        let commands: CommandClient
        /// The last sequence number handed out.
        var position: UInt64
        var pending: [Change] = []
        var replayed = false

        public mutating func next() async throws -> Change? {
            if !replayed {
                replayed = true
                try await replay()
            }
            while true {
                if !pending.isEmpty { return take() }
                guard let message = await live.next() else { return nil }
                guard case .event(_, let envelope) = message, envelope.source == source else { continue }
                if envelope.seq <= position { continue }
                // Something committed (or someone says so): what, from the feed itself. One
                // request covers every change since, so a burst costs a page, not an event each.
                try await replay()
            }
        }

        private mutating func take() -> Change {
            let change = pending.removeFirst()
            position = change.seq
            return change
        }

        /// Fetches every change after `position` into `pending`, page by page.
        private mutating func replay() async throws {
            var after = pending.last?.seq ?? position
            while true {
                // Each change is kept as it came (the event a subscriber would have had).
                let asked = HistoryCommands.Changes(since: Int64(after), limit: 1_000)
                let reply = try await commands.request(HistoryCommands.Changes.name, args: try asked.arguments())
                let page = (reply["changes"]?.arrayValue ?? []).compactMap { item -> Change? in
                    guard let seq = item["seq"]?.intValue, UInt64(seq) > after else { return nil }
                    return Change(seq: UInt64(seq), data: item)
                }
                pending.append(contentsOf: page)
                after = pending.last?.seq ?? after
                let last = UInt64(reply["last_seq"]?.intValue ?? 0)
                if page.isEmpty || after >= last { return }
            }
        }
    }
}
