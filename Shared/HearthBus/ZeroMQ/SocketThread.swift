import CZeroMQ
import DequeModule
import Foundation
import Logging
import Synchronization

/// Owns one libzmq socket on a dedicated thread, so blocking libzmq calls never run on Swift's
/// cooperative pool.
///
/// The socket is made, configured and bound (or connected) when the `SocketThread` is made, so
/// errors surface there, before anything serves; its thread starts on first use (the first
/// `send`, the first read of `incoming`, `start()` or `close()`), never in an initialiser. Until
/// then libzmq queues what arrives.
///
/// Received messages arrive on `incoming` with a bounded buffer (what overflows is counted in
/// `droppedIncoming`); they cross into Swift concurrency in batches, one per wake-up of the
/// thread, so a busy socket costs one continuation resume per batch, not per message. `send` queues a message from any task and wakes the thread
/// through an eventfd. `close()` stops intake, hands queued messages to libzmq, closes the socket
/// with its configured linger and ends `incoming`.
public final class SocketThread: Sendable {
    /// Messages received, in order. Exactly one consumer should iterate it.
    public let incoming: Messages
    /// A readable name for logs, such as `bus.cmd ROUTER`.
    public let name: String

    private let continuation: AsyncStream<[[Frame]]>.Continuation
    private let receiveBuffer: Int
    private let wake: WakeSignal
    private let shared = Mutex(Shared())
    private let dropped = Atomic<Int>(0)
    private let starter: Starter

    private struct Shared: ~Copyable {
        var outbox: Deque<[Frame]> = []
        /// Work to run with the socket on its thread (`perform`), in order.
        var chores: [@Sendable (ZMQSocket?) -> Void] = []
        /// The thread is (about to be) blocked in `zmq_poll` and needs the eventfd to wake.
        var parked = false
        var closing = false
    }
    /// Set once the thread has closed the socket.
    private let finished = AsyncLatch<Bool>()

    /// Lets a socket thread see each message first, on the socket's own thread.
    /// Return `true` when the message was consumed and must not reach `incoming`.
    public typealias Interceptor = @Sendable ([Frame]) -> Bool

    /// Called on the socket's thread after every pass of its loop; returns how soon (in
    /// milliseconds) it wants to be called again, or `nil` for no hurry. Used for deadlines.
    public typealias Tick = @Sendable () -> Int?

    /// Opens a socket, lets `setUp` configure and bind or connect it on the calling thread (so
    /// errors surface here), then moves it to a new thread.
    /// - Parameters:
    ///   - receiveBuffer: how many received messages may wait for the consumer.
    ///   - intercept: optional first look at each received message (see `Interceptor`).
    ///   - receiveUserID: deliver each message with its connection's ZAP user id as an extra
    ///     first frame (see `ZMQSocket.receive(dontWait:userID:)`).
    /// - Throws: whatever libzmq or `setUp` throws; nothing is left open then.
    public init(
        context: ZMQContext,
        kind: ZMQSocketKind,
        name: String,
        receiveBuffer: Int = 10_000,
        logger: Logger = Logger(label: "hearth.socket"),
        intercept: Interceptor? = nil,
        tick: Tick? = nil,
        receiveUserID: Bool = false,
        setUp: (ZMQSocket) throws -> Void
    ) throws {
        let socket = try ZMQSocket(context: context, kind: kind)
        try setUp(socket)
        self.name = name
        self.wake = try WakeSignal()
        self.receiveBuffer = receiveBuffer
        let (stream, continuation) = AsyncStream.makeStream(of: [[Frame]].self)
        self.continuation = continuation
        let starter = Starter()
        self.starter = starter
        incoming = Messages(batches: stream, backlog: Backlog(), starter: starter)
        let handoff = ThreadHandoff(socket)
        starter.arm { [self] in
            let thread = Thread {
                self.runLoop(
                    socket: handoff.take(), intercept: intercept, tick: tick, userID: receiveUserID, logger: logger)
            }
            thread.name = name
            thread.start()
        }
    }

    /// Starts the socket's thread if it has not started yet.
    public func start() { starter.start() }

    /// Received messages that were dropped because the consumer fell `receiveBuffer` behind.
    public var droppedIncoming: Int { dropped.load(ordering: .relaxed) }

    /// Queues one multipart message for sending.
    /// - Throws: `SocketThreadError.closed` once `close()` has begun.
    public func send(_ frames: [Frame]) throws(SocketThreadError) {
        starter.start()
        let mustWake = try shared.withLock { state throws(SocketThreadError) -> Bool in
            guard !state.closing else { throw .closed(name) }
            state.outbox.append(frames)
            // A busy thread takes the outbox on its next pass; only a parked one needs waking,
            // and only once.
            defer { state.parked = false }
            return state.parked
        }
        if mustWake { wake.signal() }
    }

    /// Runs `work` with the socket on the socket's own thread, between two passes of its loop,
    /// and returns what it returns (options and binds that change while the socket serves).
    /// - Throws: what `work` throws, or `SocketThreadError.closed` once `close()` has begun.
    public func perform<Result: Sendable>(
        _ work: @escaping @Sendable (ZMQSocket) throws -> Result
    ) async throws -> Result {
        starter.start()
        return try await withCheckedThrowingContinuation { (done: CheckedContinuation<Result, any Error>) in
            let queued = shared.withLock { state -> (accepted: Bool, wake: Bool) in
                guard !state.closing else { return (false, false) }
                state.chores.append { [name] socket in
                    guard let socket else { return done.resume(throwing: SocketThreadError.closed(name)) }
                    done.resume(with: Swift.Result { try work(socket) })
                }
                defer { state.parked = false }
                return (true, state.parked)
            }
            if !queued.accepted { done.resume(throwing: SocketThreadError.closed(name)) }
            if queued.wake { wake.signal() }
        }
    }

    /// Ends `incoming` while the socket stays open for sending (graceful shutdown: stop intake,
    /// then answer what is in flight, then `close()`).
    public func stopReceiving() {
        continuation.finish()
    }

    /// Stops the thread and waits until the socket is closed and `incoming` has ended.
    public func close() async {
        // A thread never started still has the socket to close: it starts, sees it is
        // closing, and closes it.
        starter.start()
        shared.withLock { $0.closing = true }
        if finished.value != nil { return }
        wake.signal()
        _ = await finished.outcome()
    }

    // MARK: - The socket's own thread

    /// Hands a batch to the consumer, dropping (and counting) what would overfill its buffer.
    private func deliver(_ batch: [[Frame]]) {
        guard !batch.isEmpty else { return }
        let room = max(0, receiveBuffer - incoming.backlog.count)
        let kept = batch.count <= room ? batch : Array(batch.prefix(room))
        if kept.count < batch.count { dropped.add(batch.count - kept.count, ordering: .relaxed) }
        guard !kept.isEmpty else { return }
        incoming.backlog.add(kept.count)
        if case .terminated = continuation.yield(kept) { incoming.backlog.add(-kept.count) }
    }

    private func runLoop(socket: ZMQSocket, intercept: Interceptor?, tick: Tick?, userID: Bool, logger: Logger) {
        // The name shows in `top -H` and /proc (Linux keeps 15 bytes).
        hearth_name_this_thread(name)
        var poller = ZMQPoller()
        let socketIndex = poller.add(socket)
        let wakeIndex = poller.add(fileDescriptor: wake.fileDescriptor)
        var pending: Deque<[Frame]> = []
        var closing = false
        var wait = 250

        loop: while true {
            poller.setWantsOutput(socketIndex, !pending.isEmpty)
            // Park only with nothing queued; a sender seeing `parked` signals the eventfd.
            let park = shared.withLock { state -> Bool in
                state.parked = state.outbox.isEmpty && state.chores.isEmpty && !state.closing
                return state.parked
            }
            do {
                _ = try poller.poll(timeoutMilliseconds: park ? wait : 0)
            } catch let error as ZMQError {
                if !error.contextTerminated { logger.error("\(name): \(error)") }
                break loop
            } catch {
                logger.error("\(name): \(error)")
                break loop
            }
            if poller.isReadable(wakeIndex) { wake.drain() }
            let chores = shared.withLock { state -> [@Sendable (ZMQSocket?) -> Void] in
                state.parked = false
                pending.append(contentsOf: state.outbox)
                state.outbox.removeAll(keepingCapacity: true)
                closing = state.closing
                defer { state.chores.removeAll() }
                return state.chores
            }
            for chore in chores { chore(socket) }
            do {
                while let message = pending.first {
                    guard try socket.send(message, dontWait: true) else { break }
                    pending.removeFirst()
                }
                // Bounded so a flood of input cannot starve sending or shutdown.
                var batch: [[Frame]] = []
                for _ in 0..<1024 {
                    guard let message = try socket.receive(dontWait: true, userID: userID) else { break }
                    if let intercept, intercept(message) { continue }
                    batch.append(message)
                }
                deliver(batch)
            } catch let error as ZMQError where error.contextTerminated {
                break loop
            } catch {
                // A single unroutable or refused message must not stop the socket.
                logger.warning("\(name): \(error)")
                if !pending.isEmpty { pending.removeFirst() }
            }
            wait = min(250, max(1, tick?() ?? 250))
            if closing {
                if !pending.isEmpty {
                    logger.debug("\(name): \(pending.count) queued messages not sent at close")
                }
                break loop
            }
        }
        // Work queued as the loop ended is refused, never left waiting.
        let leftover = shared.withLock { state -> [@Sendable (ZMQSocket?) -> Void] in
            state.closing = true
            defer { state.chores.removeAll() }
            return state.chores
        }
        socket.close()
        for chore in leftover { chore(nil) }
        continuation.finish()
        finished.set(true)
    }
}

extension SocketThread {
    /// The messages a socket thread received, one at a time, in order.
    public struct Messages: AsyncSequence, Sendable {
        let batches: AsyncStream<[[Frame]]>
        let backlog: Backlog
        let starter: Starter

        public func makeAsyncIterator() -> Iterator {
            starter.start()
            return Iterator(batches: batches.makeAsyncIterator(), backlog: backlog)
        }

        public struct Iterator: AsyncIteratorProtocol {
            var batches: AsyncStream<[[Frame]]>.Iterator
            let backlog: Backlog
            var batch: [[Frame]] = []
            var position = 0

            public mutating func next() async -> [Frame]? {
                if position == batch.count {
                    guard let next = await batches.next() else { return nil }
                    backlog.add(-next.count)
                    batch = next
                    position = 0
                }
                defer { position += 1 }
                return batch[position]
            }
        }
    }

    /// What starts the socket's thread, run once.
    final class Starter: Sendable {
        private let started = Atomic<Bool>(false)
        private let launch = Mutex<(@Sendable () -> Void)?>(nil)

        func arm(_ launch: @escaping @Sendable () -> Void) { self.launch.withLock { $0 = launch } }

        func start() {
            guard !started.load(ordering: .acquiring) else { return }
            let pending = launch.withLock { launch -> (@Sendable () -> Void)? in
                defer { launch = nil }
                return launch
            }
            guard let pending else { return }
            started.store(true, ordering: .releasing)
            pending()
        }
    }

    /// How many received messages wait for the consumer.
    final class Backlog: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .relaxed) }
        func add(_ delta: Int) { value.add(delta, ordering: .relaxed) }
    }
}

/// The error `SocketThread.send` throws after the thread began closing.
public enum SocketThreadError: Error, Sendable, CustomStringConvertible {
    case closed(String)

    public var description: String {
        switch self {
        case .closed(let name): "\(name) is closed"
        }
    }
}
