import Foundation
import Synchronization

/// Replies too large for one message, held by the server that made them and fetched part by
/// part (`_reply.part`), as the ZeroMQ guide's file transfer does with chunks: a list of 5,001
/// todos (2 MB) or a history of 60,000 operations reaches the command line whole, where one
/// message over the limit used to make libzmq drop the connection and the client blame a
/// service that was running.
///
/// A reply over the message limit is kept here, and the client is sent `parts {token, count,
/// bytes}` instead; `CommandClient` fetches the parts (each its base64 under the limit) and puts
/// the reply together, so every caller gets it whole. What is held is bounded: one reply at most
/// `maximumReplyBytes` (beyond it the caller is refused, `reply_too_large`), all together at
/// most `maximumHeldBytes` (the oldest go first), each for `retention`.
public final class ReplyParts: Sendable {
    /// The parts of one reply, as its header says.
    public struct Header: Sendable, Equatable {
        public let token: String
        public let count: Int
        public let bytes: Int

        public var json: JSONValue {
            ["token": .string(token), "count": .int(Int64(count)), "bytes": .int(Int64(bytes))]
        }

        public init?(_ value: JSONValue?) {
            guard let token = value?["token"]?.stringValue, let count = value?["count"]?.intValue,
                let bytes = value?["bytes"]?.intValue, (1...10_000).contains(count), bytes > 0
            else { return nil }
            (self.token, self.count, self.bytes) = (token, Int(count), Int(bytes))
        }

        init(token: String, count: Int, bytes: Int) { (self.token, self.count, self.bytes) = (token, count, bytes) }
    }

    /// The command a client sends for one part: `{token, index}`.
    public static let command = "_reply.part"
    /// The largest reply held in parts (a service's whole answer).
    public static let maximumReplyBytes = 16 * 1024 * 1024

    private struct Held {
        let bytes: [UInt8]
        let at: ContinuousClock.Instant
    }

    private let partBytes: Int
    private let maximumHeldBytes: Int
    private let retention: Duration
    private let held = Mutex<(replies: [String: Held], order: [String], bytes: Int)>(([:], [], 0))

    /// - Parameter maximumMessageBytes: the largest message; each part's base64 stays under it.
    public init(
        maximumMessageBytes: Int, maximumHeldBytes: Int = 32 * 1024 * 1024, retention: Duration = .seconds(60)
    ) {
        // Base64 makes 3 bytes 4; 1 KiB left for the reply around it.
        partBytes = max(1, (maximumMessageBytes - 1_024) / 4 * 3)
        self.maximumHeldBytes = maximumHeldBytes
        self.retention = retention
    }

    /// Holds `reply` (a whole reply's bytes) and returns the header to send instead.
    /// - Returns: `nil` when it is larger than `maximumReplyBytes`.
    func hold(_ reply: [UInt8]) -> Header? {
        guard reply.count <= Self.maximumReplyBytes else { return nil }
        let token = UUIDText.make()
        let now = ContinuousClock.now
        held.withLock { state in
            state.replies[token] = Held(bytes: reply, at: now)
            state.order.append(token)
            state.bytes += reply.count
            while let oldest = state.order.first,
                state.bytes > maximumHeldBytes || now - (state.replies[oldest]?.at ?? now) > retention
            {
                state.order.removeFirst()
                state.bytes -= state.replies.removeValue(forKey: oldest)?.bytes.count ?? 0
            }
        }
        return Header(token: token, count: (reply.count + partBytes - 1) / partBytes, bytes: reply.count)
    }

    /// Part `index` of the reply held under `token`, in base64.
    /// - Throws: `CommandError` naming the argument when there is no such reply or part (gone
    ///   after `retention`, or pushed out by newer ones: the client asks its command again).
    func part(_ arguments: [String: JSONValue]) throws(CommandError) -> JSONValue {
        guard let token = arguments["token"]?.stringValue else {
            throw CommandError.invalidArgument("token", "is required")
        }
        guard let index = arguments["index"]?.intValue, index >= 0 else {
            throw CommandError.invalidArgument("index", "must be a part number from 0")
        }
        let now = ContinuousClock.now
        guard let reply = held.withLock({ $0.replies[token] }), now - reply.at <= retention else {
            throw CommandError(code: "reply_gone", message: "that reply is no longer held; ask for it again")
        }
        let start = Int(index) * partBytes
        guard start < reply.bytes.count else {
            throw CommandError.invalidArgument(
                "index", "must be below \((reply.bytes.count + partBytes - 1) / partBytes)")
        }
        let chunk = reply.bytes[start..<min(start + partBytes, reply.bytes.count)]
        if start + partBytes >= reply.bytes.count {
            // The last part: the client has it all (a retry of a part repeats the request, answered
            // from the reply cache).
            held.withLock { state in
                if let gone = state.replies.removeValue(forKey: token) {
                    state.bytes -= gone.bytes.count
                    state.order.removeAll { $0 == token }
                }
            }
        }
        return ["chunk": .string(Data(chunk).base64EncodedString())]
    }

    /// The bytes of the replies held now.
    public var bytes: Int { held.withLock { $0.bytes } }
}
