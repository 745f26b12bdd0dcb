import CZeroMQ
import DequeModule
import Foundation
import HearthBus
import Logging
import ServiceLifecycle
import Synchronization

/// The bus itself: an XSUB socket publishers connect to, an XPUB socket subscribers connect to,
/// and one dedicated thread that forwards between them.
///
/// Unlike `zmq_proxy`, it checks every message on the way: an event must be two frames with a
/// valid topic and at most the maximum size; upstream, only subscription messages pass. Anything
/// else is counted and dropped. The XSUB side subscribes to everything, so every event reaches
/// the bus whoever listens, and a publisher's first subscription tells it the bus is there.
/// Other threads hand it messages to publish (heartbeats, probes) through `inject`.
///
/// The sockets are bound when it is made (so a bind error stops the bus before it serves); the
/// forwarding thread starts in `run()` and stops at graceful shutdown.
final class BusProxy: Service, CustomStringConvertible {
    let description = "bus proxy"

    /// Endpoints as bound (wildcard ports resolved).
    let publishEndpoint: String
    let subscribeEndpoint: String

    private let counters: BusCounters
    private let maximumMessageBytes: Int
    private let wake: WakeSignal
    private let shared = Mutex(Shared())
    private let finished = AsyncSignal()
    private let handoff: ThreadHandoff<Sockets>
    private let logger: Logger
    /// The context's `idleSpin`: how long the proxy looks for the next event after forwarding.
    private let idleSpin: Duration

    private struct Shared: ~Copyable {
        var outbox: Deque<[Frame]> = []
        var stopping = false
    }

    init(
        context: ZMQContext,
        publishEndpoint: String,
        subscribeEndpoint: String,
        maximumMessageBytes: Int,
        counters: BusCounters,
        logger: Logger
    ) throws {
        self.counters = counters
        self.maximumMessageBytes = maximumMessageBytes
        self.wake = try WakeSignal()
        self.idleSpin = context.idleSpin
        let monitorPrefix = "inproc://bus-monitor-\(UUIDText.make())"
        let sockets = try Sockets(
            context: context,
            publishEndpoint: publishEndpoint,
            subscribeEndpoint: subscribeEndpoint,
            maximumMessageBytes: maximumMessageBytes,
            monitorPrefix: monitorPrefix
        )
        self.publishEndpoint = sockets.xsub.lastEndpoint
        self.subscribeEndpoint = sockets.xpub.lastEndpoint
        handoff = ThreadHandoff(sockets)
        self.logger = logger
    }

    /// Forwards on its own thread until graceful shutdown, then closes both sockets.
    func run() async throws {
        let thread = Thread { [self] in
            // Set from the thread itself: on Linux only that reaches the kernel's name, which
            // `top -H` and `perf` show (set before `start()`, it stays Foundation's own).
            Thread.current.name = "bus proxy"
            forward(handoff.take(), logger: logger)
        }
        thread.start()
        try? await gracefulShutdown()
        await stop()
    }

    /// Queues a message to publish on the subscriber side, as the bus itself.
    func inject(_ frames: [Frame]) {
        let wasEmpty = shared.withLock { state -> Bool in
            state.outbox.append(frames)
            return state.outbox.count == 1
        }
        if wasEmpty { wake.signal() }
    }

    /// Stops forwarding and waits until both sockets are closed.
    private func stop() async {
        shared.withLock { $0.stopping = true }
        wake.signal()
        _ = await finished.wait(timeout: .seconds(5))
    }

    // MARK: - The proxy thread

    private func forward(_ sockets: Sockets, logger: Logger) {
        var poller = ZMQPoller()
        let xsubIndex = poller.add(sockets.xsub)
        let xpubIndex = poller.add(sockets.xpub)
        let wakeIndex = poller.add(fileDescriptor: wake.fileDescriptor)
        let monitorIndices = sockets.monitors.map { poller.add($0) }
        var injected: Deque<[Frame]> = []
        // Two parts make an event; the third slot lets a longer message be seen and refused.
        var forwarder = MessageForwarder(capacity: 3)
        var stuck = StuckSubscribers(logger: logger)

        var spin = IdleSpin(idleSpin)
        loop: while true {
            do {
                if try spin.wait(timeoutMilliseconds: 500, { try poller.poll(timeoutMilliseconds: $0) }) > 0 {
                    spin.worked()
                }
                if poller.isReadable(wakeIndex) { wake.drain() }
                let stopping = shared.withLock { state -> Bool in
                    injected.append(contentsOf: state.outbox)
                    state.outbox.removeAll(keepingCapacity: true)
                    return state.stopping
                }
                if stopping { break loop }
                while let frames = injected.popFirst() {
                    _ = try sockets.xpub.send(frames, dontWait: true)
                }
                // Connections first: a subscriber's descriptor is known before its events flow.
                for (index, monitor) in zip(monitorIndices, sockets.monitors) where poller.isReadable(index) {
                    try readMonitorEvents(monitor, &stuck)
                }
                if poller.isReadable(xsubIndex) { try forwardEvents(sockets, &forwarder, &stuck) }
                if poller.isReadable(xpubIndex) { try forwardSubscriptions(sockets, &forwarder) }
                if stuck.forwarded(0) {
                    counters.droppedSubscribers.add(stuck.check(), ordering: .relaxed)
                }
            } catch let error as ZMQError where error.contextTerminated {
                break loop
            } catch {
                // A failure on one message must never stop the bus.
                logger.error("bus proxy: \(error)")
            }
        }
        sockets.close()
        finished.fire()
    }

    /// Publishers → subscribers: pass valid events, count and drop the rest. The parts are read
    /// in place and handed on without a copy (`MessageForwarder`).
    private func forwardEvents(
        _ sockets: Sockets, _ forwarder: inout MessageForwarder, _ stuck: inout StuckSubscribers
    ) throws {
        for _ in 0..<4_096 {
            var oversized = false
            var bytes = 0
            let outcome = try forwarder.forward(from: sockets.xsub, to: sockets.xpub) { parts in
                guard parts.count == 2, Topic.isValid(buffer: parts[0]) else { return false }
                bytes = parts[1].count
                oversized = bytes > maximumMessageBytes
                return !oversized
            }
            if stuck.forwarded(bytes) { counters.droppedSubscribers.add(stuck.check(), ordering: .relaxed) }
            switch outcome {
            case .none: return
            case .refused where oversized: counters.oversized.add(1, ordering: .relaxed)
            case .refused: counters.malformed.add(1, ordering: .relaxed)
            // XPUB never blocks: a subscriber past its high-water mark loses the event, which
            // its sequence tracking reports as a gap.
            case .sent, .dropped: counters.forwarded.add(1, ordering: .relaxed)
            }
        }
    }

    /// Subscribers → publishers: only subscribe and unsubscribe messages go upstream (the XSUB
    /// side already takes everything; passing them up keeps the pattern standard should a
    /// publisher filter).
    private func forwardSubscriptions(_ sockets: Sockets, _ forwarder: inout MessageForwarder) throws {
        for _ in 0..<4_096 {
            let outcome = try forwarder.forward(from: sockets.xpub, to: sockets.xsub) { parts in
                guard parts.count == 1, let kind = parts[0].first else { return false }
                return (kind == 0 || kind == 1) && parts[0].count <= Topic.maximumLength + 1
            }
            switch outcome {
            case .none: return
            case .refused: counters.malformed.add(1, ordering: .relaxed)
            case .sent, .dropped: counters.subscriptions.add(1, ordering: .relaxed)
            }
        }
    }

    /// Socket-monitor events: a handshake that failed on protocol grounds is garbage on the wire;
    /// subscriber connections coming and going (`StuckSubscribers` watches them).
    private func readMonitorEvents(_ monitor: ZMQSocket, _ stuck: inout StuckSubscribers) throws {
        while let frames = try monitor.receive(dontWait: true) {
            // The first frame: the event (2 bytes) and its value (4 bytes, a descriptor here),
            // little-endian; the second, the endpoint.
            guard let first = frames.first, first.count >= 6 else { continue }
            let event = Int32(UInt16(first[0]) | UInt16(first[1]) << 8)
            let value = Int32(
                bitPattern: UInt32(first[2]) | UInt32(first[3]) << 8 | UInt32(first[4]) << 16 | UInt32(first[5]) << 24)
            switch event {
            case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: counters.protocolErrors.add(1, ordering: .relaxed)
            case ZMQ_EVENT_ACCEPTED: stuck.connected(value)
            case ZMQ_EVENT_DISCONNECTED, ZMQ_EVENT_CLOSED: stuck.disconnected(value)
            default: continue
            }
        }
    }
}

/// The proxy's sockets, opened and bound by the starting thread, then owned by the proxy thread.
private struct Sockets {

    let xsub: ZMQSocket
    let xpub: ZMQSocket
    let monitors: [ZMQSocket]

    init(
        context: ZMQContext,
        publishEndpoint: String,
        subscribeEndpoint: String,
        maximumMessageBytes: Int,
        monitorPrefix: String
    ) throws {
        xsub = try ZMQSocket(context: context, kind: .xsub)
        xpub = try ZMQSocket(context: context, kind: .xpub)
        var monitors: [ZMQSocket] = []
        for (socket, endpoint, name) in [(xsub, publishEndpoint, "xsub"), (xpub, subscribeEndpoint, "xpub")] {
            try socket.setLinger(milliseconds: 200)
            // Room for a live subscriber's bursts; one that stops reading is dropped by
            // `StuckSubscribers` long before this many large events pile up.
            try socket.setHighWaterMarks(send: 100_000, receive: 100_000)
            // Frames somewhat over the limit are read and counted; far larger ones make libzmq
            // drop the sender's connection before it can use up memory.
            try socket.setMaximumMessageSize(Int64(maximumMessageBytes) * 4)
            let monitorEndpoint = "\(monitorPrefix)-\(name)"
            // On the subscriber side also each connection, for `StuckSubscribers`.
            let connections = name == "xpub" ? ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_CLOSED : 0
            try socket.monitor(endpoint: monitorEndpoint, events: ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | connections)
            let monitor = try ZMQSocket(context: context, kind: .pair)
            try monitor.setLinger(milliseconds: 0)
            try monitor.connect(monitorEndpoint)
            monitors.append(monitor)
            try socket.bind(endpoint)
        }
        self.monitors = monitors
        // Subscribe upstream to everything: the bus sees every event and counts what it drops.
        try xsub.send([[1]])
    }

    func close() {
        for monitor in monitors { monitor.close() }
        xsub.close()
        xpub.close()
    }
}
