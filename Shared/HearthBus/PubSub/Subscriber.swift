import Logging

/// Receives events from the bus, decodes them strictly, and reports gaps in each publisher's
/// sequence.
///
/// Gap reports are only meaningful for sources whose every event the subscription covers; a
/// subscriber that wants a complete picture subscribes to everything and filters locally.
public final class Subscriber: AsyncSequence, Sendable {
    public typealias Element = BusMessage

    private let socket: SocketThread
    private let codec: EnvelopeCodec
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
        maximumMessageBytes: Int = HearthConfiguration.defaultMaximumMessageBytes,
        receiveHighWaterMark: Int32 = 100_000,
        receiveBuffer: Int = 10_000,
        logger: Logger = Logger(label: "hearth.subscriber")
    ) throws {
        codec = EnvelopeCodec(maximumBytes: maximumMessageBytes)
        let probeFrame = Array(probeTopic.utf8)
        let probeArrived = self.probeArrived
        socket = try SocketThread(
            context: context,
            kind: .sub,
            name: "subscriber",
            receiveBuffer: receiveBuffer,
            logger: logger,
            intercept: { frames in
                guard BusProbe.isProbe(frames) else { return false }
                if frames[0] == probeFrame { probeArrived.fire() }
                return true
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
            _ = try? await bus.request("probe", args: ["topic": .string(probeTopic)])
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
            frames: socket.incoming.makeAsyncIterator(), codec: codec,
            tracker: SequenceTracker(listeningSince: listeningSince))
    }

    /// Decodes frames into `BusMessage`s in arrival order.
    public struct Iterator: AsyncIteratorProtocol {
        var frames: SocketThread.Messages.Iterator
        let codec: EnvelopeCodec
        var tracker: SequenceTracker
        var held: BusMessage?

        public mutating func next() async -> BusMessage? {
            if let held {
                self.held = nil
                return held
            }
            while let message = await frames.next() {
                guard message.count == 2 else {
                    return .rejected(topic: "", error: .wrongFrameCount(message.count))
                }
                let topic = String(decoding: message[0], as: UTF8.self)
                let envelope: Envelope
                do {
                    try Topic.validate(bytes: message[0])
                    envelope = try codec.decode(message[1])
                } catch {
                    return .rejected(topic: topic, error: error)
                }
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
                    return .event(topic: topic, envelope: envelope)
                }
            }
            return nil
        }
    }
}
