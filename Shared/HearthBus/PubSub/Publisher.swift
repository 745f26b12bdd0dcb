import Foundation
import Logging
import Synchronization

/// Publishes events to the bus, numbering them per source with no holes.
///
/// It is an XPUB socket connected to the bus's XSUB side: the bus subscribes to everything, and
/// that subscription arriving is how `waitUntilConnected` knows events will no longer be dropped
/// for want of a connection.
public final class Publisher: Sendable {
    /// The `src` of every envelope (`turn`, `store`, `cli`, …).
    public let source: String
    /// The `dev` of every envelope.
    public let device: String

    private let socket: SocketThread<[Frame]>
    private let codec: EnvelopeCodec
    private let sequence: Mutex<(next: UInt64, ids: EventIDGenerator)>
    private let connected = AsyncSignal()

    /// Connects to the bus.
    /// - Parameters:
    ///   - endpoint: the bus's publisher endpoint (`bus.pub`).
    ///   - firstSeq: the sequence number of the next event; durable sources resume theirs.
    /// - Throws: `ZMQError` when the endpoint is unusable.
    public init(
        context: ZMQContext,
        endpoint: String,
        source: String,
        device: String,
        firstSeq: UInt64 = 1,
        maximumMessageBytes: Int = BusLimits.defaultMaximumMessageBytes,
        sendHighWaterMark: Int32 = 100_000,
        logger: Logger = Logger(label: "hearth.publisher")
    ) throws {
        self.source = source
        self.device = device
        self.codec = EnvelopeCodec(maximumBytes: maximumMessageBytes)
        self.sequence = Mutex((firstSeq, EventIDGenerator()))
        self.runStart = firstSeq
        let connected = self.connected
        socket = try SocketThread(
            context: context,
            kind: .xpub,
            name: "publisher \(source)",
            receiveBuffer: 16,
            logger: logger,
            intercept: { frames in
                // The only input an XPUB gets is subscriptions: byte 1 then the prefix.
                if frames.first?.first == 1 { connected.fire() }
                return true
            },
            // Subscriptions come once per bus connection; one a send hides is read within 250 ms.
            urgentInput: false,
            setUp: { socket in
                try socket.setLinger(milliseconds: 1_000)
                try socket.setHighWaterMarks(send: sendHighWaterMark, receive: 1_000)
                try socket.setMaximumMessageSize(Int64(maximumMessageBytes))
                try socket.connect(endpoint)
            }
        )
    }

    /// Waits until the bus has subscribed, so published events reach it.
    /// - Returns: `false` when the bus did not answer within `timeout`.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        socket.start()  // the bus's subscription is seen on the socket's thread
        return await connected.wait(timeout: timeout)
    }

    /// This run's epoch: the millisecond the publisher was made (see `Envelope.epoch`).
    public let epoch = Envelope.newEpoch()

    /// The first sequence number of this run (see `Envelope.runStart`).
    public let runStart: UInt64

    /// The sequence number the next event will carry.
    public var upcomingSeq: UInt64 { sequence.withLock { $0.next } }

    /// Publishes one event.
    /// - Returns: the envelope as sent.
    /// - Throws: `EnvelopeError` for a bad topic or an oversized event (nothing is sent and the
    ///   sequence number is not used up), `SocketThreadError` after `close()`.
    @discardableResult
    public func publish(topic: String, type: String, data: JSONValue) throws -> Envelope {
        try publish(topic: topic, type: type, data: data, seq: nil)
    }

    /// Publishes one event carrying a sequence number the caller owns: a durable source (the
    /// store) numbers events with its persistent change sequence, so numbering survives restarts.
    /// Calls must come in increasing `seq` order.
    @discardableResult
    public func publish(topic: String, type: String, data: JSONValue, seq: UInt64) throws -> Envelope {
        try publish(topic: topic, type: type, data: data, seq: Optional(seq))
    }

    /// Numbers, encodes and sends one event; `seq` is the caller's, or `nil` for the next of ours.
    private func publish(topic: String, type: String, data: JSONValue, seq: UInt64?) throws -> Envelope {
        // The topic and the encoded event go to libzmq from where they lie: no frame arrays.
        var topic = topic
        return try topic.withUTF8 { topicBytes in
            let topicBytes = UnsafeRawBufferPointer(topicBytes)
            try Topic.validate(buffer: topicBytes)
            return try sequence.withLock { state in
                // Encoding under the lock keeps sequence order and send order the same.
                let envelope = Envelope(
                    id: state.ids.makeID(), source: source, device: device, seq: seq ?? state.next, epoch: epoch,
                    runStart: runStart, type: type, data: data)
                let payload = try codec.encode(envelope)
                try payload.withUnsafeBytes { payloadBytes in try socket.send(topicBytes, payloadBytes) }
                state.next = envelope.seq + 1
                return envelope
            }
        }
    }

    /// Sends two frames exactly as given, with no envelope and no numbering (tests and benchmarks).
    public func publishFrames(_ frames: [Frame]) throws {
        try socket.send(frames)
    }

    /// Lets queued events leave (up to the 1 s linger) and closes the socket.
    public func close() async {
        await socket.close()
    }
}
