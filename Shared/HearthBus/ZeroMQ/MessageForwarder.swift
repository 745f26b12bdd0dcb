import CZeroMQ

/// Moves whole multipart messages from one socket to another without copying their parts into
/// Swift memory: each part is received into a `zmq_msg_t`, looked at in place, and handed back to
/// libzmq with `zmq_msg_send`, which takes the part's buffer over. The bus proxy forwards every
/// event this way; receiving into `[Frame]` and sending that cost two copies and three
/// allocations per event on the proxy's thread (`hearth-bench bus` under perf, 2026-11-23).
///
/// It owns its part slots (`capacity` of them, reused for every message) and is used by one
/// thread, like the sockets it moves between.
public struct MessageForwarder: ~Copyable {
    /// What happened to one message.
    public enum Outcome: Equatable, Sendable {
        /// Nothing was waiting.
        case none
        /// The message was accepted and handed to the destination.
        case sent
        /// `accept` refused it, or it had more parts than the forwarder holds; it was dropped.
        case refused
        /// Accepted, but the destination could not take it without blocking; it was dropped.
        case dropped
    }

    /// The parts of the message being forwarded, readable in place while `accept` runs.
    public struct Parts: ~Copyable {
        fileprivate let slots: UnsafeMutablePointer<zmq_msg_t>
        /// How many parts the message has.
        public fileprivate(set) var count: Int

        /// The bytes of part `index`; valid only inside `accept`.
        public subscript(index: Int) -> UnsafeRawBufferPointer {
            precondition(index >= 0 && index < count, "part \(index) of \(count)")
            let size = zmq_msg_size(slots + index)
            guard size > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            return UnsafeRawBufferPointer(start: zmq_msg_data(slots + index), count: size)
        }
    }

    private var parts: Parts
    private let capacity: Int
    /// Where parts beyond `capacity` are read and dropped.
    private let overflow: UnsafeMutablePointer<zmq_msg_t>

    /// - Parameter capacity: the most parts a message may have to be forwarded; a longer one is
    ///   read to its end and refused.
    public init(capacity: Int) {
        precondition(capacity > 0, "a message has at least one part")
        self.capacity = capacity
        parts = Parts(slots: .allocate(capacity: capacity), count: 0)
        overflow = .allocate(capacity: 1)
    }

    deinit {
        parts.slots.deallocate()
        overflow.deallocate()
    }

    /// Forwards the next message waiting on `source` to `destination` if `accept` takes it.
    /// Never blocks: `none` when nothing waits; a send the destination cannot take now is
    /// dropped as `zmq_proxy` drops it (an XPUB past a subscriber's high-water mark).
    /// - Throws: `ZMQError` for a failure other than "nothing waiting" (such as `ETERM`).
    public mutating func forward(
        from source: ZMQSocket, to destination: ZMQSocket, accept: (borrowing Parts) -> Bool
    ) throws -> Outcome {
        // `parts.count` is 0 here: every call ends by closing the parts and resetting it.
        var tooMany = false
        defer {
            for index in 0..<parts.count { zmq_msg_close(parts.slots + index) }
            parts.count = 0
        }
        while true {
            let slot = parts.count < capacity ? parts.slots + parts.count : overflow
            zmq_msg_init(slot)
            guard zmq_msg_recv(slot, source.handle, ZMQ_DONTWAIT) >= 0 else {
                let code = zmq_errno()
                zmq_msg_close(slot)
                if code == EAGAIN && parts.count == 0 && !tooMany { return .none }
                throw ZMQError(code: code, operation: "zmq_msg_recv(\(source.kind))")
            }
            let more = zmq_msg_more(slot) != 0
            if slot == overflow {
                tooMany = true
                zmq_msg_close(slot)
            } else {
                parts.count += 1
            }
            if !more { break }
        }
        guard !tooMany, accept(parts) else { return .refused }
        for index in 0..<parts.count {
            let flags = ZMQ_DONTWAIT | (index < parts.count - 1 ? ZMQ_SNDMORE : 0)
            // On success libzmq owns the buffer and leaves an empty message, which the deferred
            // close releases; on failure the part is still ours and closed there too.
            guard zmq_msg_send(parts.slots + index, destination.handle, flags) >= 0 else {
                let code = zmq_errno()
                // Only the first part can find the queue full; later parts follow it atomically.
                if code == EAGAIN && index == 0 { return .dropped }
                throw ZMQError(code: code, operation: "zmq_msg_send(\(destination.kind))")
            }
        }
        return .sent
    }
}
