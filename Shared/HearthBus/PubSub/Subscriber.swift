import HearthCore
import Logging

/// Receives events from the bus, decodes them strictly, and reports gaps in each publisher's
/// sequence.
///
/// Gap reports are only meaningful for sources whose every event the subscription covers; a
/// subscriber that wants a complete picture subscribes to everything and filters locally.
public final class Subscriber: AsyncSequence, Sendable {
    public typealias Element = BusMessage

    private let socket: SocketThread<BusMessage>
    private let probeTopic = BusProbe.makeTopic()
    private let probeArrived = AsyncSignal()
    /// When this subscriber was made: publishers whose runs began later are owed in full.
    private let listeningSince = Envelope.newEpoch()

    /// Connects to the bus's subscriber endpoint.
    /// - Parameters:
    ///   - prefixes: topic prefixes to receive (`[""]` for everything).
    ///   - receiveHighWaterMark: messages libzmq queues before dropping (the bus's side drops too).
    /// - Throws: `ZMQError` when the endpoint is unusable.
    public init(
        context: ZMQContext,
        endpoint: String,
        prefixes: [String] = [""],
        maximumMessageBytes: Int = BusLimits.defaultMaximumMessageBytes,
        receiveHighWaterMark: Int32 = 100_000,
        receiveBuffer: Int = 10_000,
        logger: Logger = Logger(label: "hearth.subscriber")
    ) throws {
        let codec = EnvelopeCodec(maximumBytes: maximumMessageBytes)
        let probeTopic = self.probeTopic
        let probeArrived = self.probeArrived
        socket = try SocketThread(
            context: context,
            kind: .sub,
            name: "subscriber",
            receiveBuffer: receiveBuffer,
            logger: logger,
            // Decoded on the socket's thread from libzmq's buffers: the consumer gets values, and
            // no frame is copied into an array on the way (see `Benchmarks/README.md`).
            read: { message in
                if BusProbe.isProbe(message) {
                    if message[0].elementsEqual(probeTopic.utf8) { probeArrived.fire() }
                    return nil
                }
                return Self.read(message, codec: codec)
            },
            setUp: { [probeTopic] socket in
                try socket.setLinger(milliseconds: 0)
                try socket.setHighWaterMarks(send: 1_000, receive: receiveHighWaterMark)
                try socket.setMaximumMessageSize(Int64(maximumMessageBytes) + 4_096)
                for prefix in prefixes { try socket.subscribe(prefix) }
                try socket.subscribe(probeTopic)
                try socket.connect(endpoint)
            }
        )
    }

    /// Waits until the subscription is live end to end, by asking the bus for a probe until one
    /// arrives.
    /// - Parameter bus: a client of the bus's command endpoint.
    /// - Returns: `false` when no probe came back within `timeout`.
    public func waitUntilSubscribed(bus: CommandClient, timeout: Duration) async -> Bool {
        socket.start()  // the probe is seen on the socket's thread
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            _ = try? await bus.send(BusCommands.Probe(topic: probeTopic))
            if await probeArrived.wait(timeout: .milliseconds(100)) { return true }
        }
        return probeArrived.isFired
    }

    /// Messages dropped inside this process because the consumer fell behind.
    public var droppedLocally: Int { socket.droppedIncoming }

    /// The socket's thread as a task executor: a consumer that prefers it
    /// (`withTaskExecutorPreference(subscriber.taskExecutor) { for await … }`) handles each
    /// message on that thread, with no wake-up of the cooperative pool in between. Its code must
    /// not block (see `SocketThread`).
    public var taskExecutor: any TaskExecutor { socket }

    /// Stops receiving and closes the socket; iteration then ends.
    public func close() async {
        await socket.close()
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            messages: socket.incoming.makeAsyncIterator(), tracker: SequenceTracker(listeningSince: listeningSince))
    }

    /// One received message as an event, or why it is not one.
    private static func read(_ message: borrowing ReceivedMessage, codec: EnvelopeCodec) -> BusMessage {
        guard message.count == 2 else { return .rejected(topic: "", error: .wrongFrameCount(message.count)) }
        let topicBytes = message[0]
        let topic = String(decoding: topicBytes, as: UTF8.self)
        do {
            try Topic.validate(buffer: topicBytes)
            return .event(topic: topic, envelope: try codec.decode(message[1]))
        } catch {
            return .rejected(topic: topic, error: error)
        }
    }

    /// Tracks each publisher's sequence over the decoded messages, in arrival order.
    public struct Iterator: AsyncIteratorProtocol {
        var messages: SocketThread<BusMessage>.Messages.Iterator
        var tracker: SequenceTracker
        var held: BusMessage?

        public mutating func next() async -> BusMessage? {
            if let held {
                self.held = nil
                return held
            }
            while let message = await messages.next() {
                guard case .event(let topic, let envelope) = message else { return message }
                switch tracker.observe(
                    source: envelope.source, device: envelope.device, seq: envelope.seq, epoch: envelope.epoch,
                    runStart: envelope.runStart)
                {
                case .duplicate:
                    continue
                case .gap(let gap):
                    held = .event(topic: topic, envelope: envelope)
                    return .gap(gap)
                case .first, .inOrder, .late, .restarted:
                    return message
                }
            }
            return nil
        }
    }
}
