import CZeroMQ
import DequeModule
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Owns one libzmq socket and a dedicated thread that waits on it, so no blocking libzmq call
/// runs on Swift's cooperative pool.
///
/// The socket is made, configured and bound (or connected) when the `SocketThread` is made, so
/// errors surface there, before anything serves; its thread starts on first use (the first
/// `send`, the first read of `incoming`, `start()` or `close()`), never in an initialiser. Until
/// then libzmq queues what arrives.
///
/// **Sending** happens on the caller's thread: `send` takes the socket's lock and hands the
/// message to libzmq without blocking (`ZMQ_DONTWAIT`). Only a message libzmq cannot take now
/// (a full queue) goes to an outbox that the thread sends as the socket drains, and every later
/// message queues behind it, so order holds. (A socket may be used from several threads when a
/// full memory barrier separates the uses, zmq(7): the lock gives one.) Handing every message
/// to the thread instead cost an eventfd write and a wake-up per message: `hearth-bench bus`
/// under perf, 15% of the cooperative threads' samples were those eventfd writes.
///
/// **Receiving** happens on the thread: it waits in `poll(2)` on the socket's `ZMQ_FD` and an
/// eventfd, and under the lock receives messages until `ZMQ_EVENTS` shows none left. `ZMQ_FD` is
/// edge-triggered and a send on another thread can consume its signal, so after each send the
/// sender checks `ZMQ_EVENTS` and wakes the thread when input waits. Outside the lock, the
/// socket's `Reader` turns each message, still in libzmq's buffers, into a `Message` (a frame
/// array, or a subscriber's decoded event: no copy of the bytes on the way), or consumes it.
/// Messages arrive on `incoming` with a bounded buffer (what overflows is counted in
/// `droppedIncoming`), in batches, one per pass of the thread. After a pass that did work, the
/// thread keeps looking for input for its context's `idleSpin` before it sleeps (`IdleSpin`), so
/// the next message of an exchange finds it awake. `close()` stops intake, sends
/// what the outbox holds, closes the socket with its configured linger and ends `incoming`.
///
/// **Running its consumer** (opt-in): the thread is also a `TaskExecutor`. A task that prefers
/// it (`withTaskExecutorPreference(socketThread)`, `Task.immediate(executorPreference:)`) runs
/// on this thread between passes of its loop, and so do the default actors it calls while it is
/// their only caller: a message goes from `poll` to the code that handles it with no wake-up of
/// the cooperative pool (one futex wake and a thread switch less per message, see
/// `Benchmarks/README.md`). Such code must not block: it delays this socket's sends and
/// receives, as blocking delays the pool. Once the thread has ended, jobs go to the global
/// concurrent executor, so a task that prefers a closed socket still finishes.
public final class SocketThread<Message: Sendable>: TaskExecutor, Sendable {
    /// Messages received, in order. Exactly one consumer should iterate it.
    public let incoming: Messages
    /// A readable name for logs, such as `bus.cmd ROUTER`.
    public let name: String

    private let continuation: AsyncStream<Batch>.Continuation
    private let receiveBuffer: Int
    private let wake: WakeSignal
    private let guarded: Mutex<Guarded>
    private let signalDescriptor: Int32
    private let urgentInput: Bool
    /// The context's `idleSpin`: how long the thread looks for input after it worked (`IdleSpin`).
    private let idleSpin: Duration
    private let logger: Logger
    private let dropped = Atomic<Int>(0)
    private let starter: Starter
    /// The thread's `pthread_self()` while its loop runs (0 before): a job enqueued from the
    /// thread itself needs no wake-up, it runs before the thread next waits.
    private let loopThread = Atomic<UInt>(0)

    /// Set once the thread has closed the socket.
    private let finished = AsyncLatch<Bool>()

    /// Reads each received message on the socket's own thread, outside its lock, while libzmq
    /// still holds the bytes: returns what goes to `incoming`, or `nil` when the message was
    /// consumed here. It must not block (see above) and must not keep the message's buffers.
    public typealias Reader = @Sendable (borrowing ReceivedMessage) -> Message?

    /// Called on the socket's thread after every pass of its loop; returns how soon (in
    /// milliseconds) it wants to be called again, or `nil` for no hurry. Used for deadlines.
    public typealias Tick = @Sendable () -> Int?

    /// Opens a socket, lets `setUp` configure and bind or connect it on the calling thread (so
    /// errors surface here), then moves it under the lock its thread and senders share.
    /// - Parameters:
    ///   - receiveBuffer: how many received messages may wait for the consumer.
    ///   - read: what each received message becomes (see `Reader`).
    ///   - urgentInput: `false` for a socket whose input is rare and never waited for while it
    ///     sends (a publisher's subscriptions): a send then skips the look for input it may have
    ///     hidden from the parked thread (see `send`), which cost two system calls per send, and
    ///     such input is read at the thread's next pass, within its 250 ms wait.
    /// - Throws: whatever libzmq or `setUp` throws; nothing is left open then.
    public init(
        context: ZMQContext,
        kind: ZMQSocketKind,
        name: String,
        receiveBuffer: Int = 10_000,
        logger: Logger = Logger(label: "hearth.socket"),
        tick: Tick? = nil,
        urgentInput: Bool = true,
        read: @escaping Reader,
        setUp: (ZMQSocket) throws -> Void
    ) throws {
        let socket = try ZMQSocket(context: context, kind: kind)
        try setUp(socket)
        signalDescriptor = try socket.signalDescriptor
        guarded = Mutex(Guarded(socket: socket))
        self.name = name
        self.wake = try WakeSignal()
        self.receiveBuffer = receiveBuffer
        self.urgentInput = urgentInput
        self.idleSpin = context.idleSpin
        self.logger = logger
        let (stream, continuation) = AsyncStream.makeStream(of: Batch.self)
        self.continuation = continuation
        let starter = Starter()
        self.starter = starter
        incoming = Messages(batches: stream, backlog: Backlog(), starter: starter)
        starter.arm { [self] in
            let thread = Thread { self.runLoop(read: read, tick: tick) }
            thread.name = name
            thread.start()
        }
    }

    /// Starts the socket's thread if it has not started yet.
    public func start() { starter.start() }

    /// Received messages that were dropped because the consumer fell `receiveBuffer` behind.
    public var droppedIncoming: Int { dropped.load(ordering: .relaxed) }

    /// Sends one multipart message now, on the calling thread, unless libzmq cannot take it
    /// without blocking: then it waits in order in the outbox for the thread to send.
    /// - Throws: `SocketThreadError.closed` once `close()` has begun.
    public func send(_ frames: [Frame]) throws(SocketThreadError) {
        try send(now: { socket in try socket.send(frames, dontWait: true) }, later: { frames })
    }

    /// Sends a two-frame message (a topic and an event) from borrowed bytes: as `send(_:)`, with
    /// the frames copied into arrays only when the message must wait in the outbox.
    public func send(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) throws(SocketThreadError) {
        try send(
            now: { socket in try socket.send(first, second, dontWait: true) }, later: { [Array(first), Array(second)] })
    }

    /// `now` tries the message on the socket without blocking; `later` gives it as frames to queue.
    private func send(now: (ZMQSocket) throws -> Bool, later: () -> [Frame]) throws(SocketThreadError) {
        starter.start()
        let mustWake = try guarded.withLock { state throws(SocketThreadError) -> Bool in
            guard !state.closing, let socket = state.socket else { throw .closed(name) }
            if state.outbox.isEmpty {
                do {
                    if try !now(socket) { state.outbox.append(later()) }
                } catch {
                    // A single unroutable or refused message must not stop the socket.
                    logger.warning("\(name): \(error)")
                }
            } else {
                state.outbox.append(later())
            }
            // The send may have taken the socket's signal that input waits: the thread would
            // not see it. Waiting output needs the thread too. (Looking is a getsockopt that runs
            // libzmq's command processing, with a poll(2) and a getpid(2): under perf, 6% of the
            // publishing side's CPU in `hearth-bench bus` (b).)
            guard state.parked, !state.outbox.isEmpty || (urgentInput && socket.events.input) else { return false }
            state.parked = false
            return true
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
            let queued = guarded.withLock { state -> (accepted: Bool, wake: Bool) in
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
        guarded.withLock { $0.closing = true }
        if finished.value != nil { return }
        wake.signal()
        _ = await finished.outcome()
    }

    // MARK: - Running tasks that prefer this thread

    /// Queues a job of a task that prefers this thread; it runs between two passes of the loop.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        starter.start()
        let onThread = loopThread.load(ordering: .relaxed) == UInt(pthread_self())
        let queued = guarded.withLock { state -> JobRoute in
            guard !state.jobsForwarded else { return .forward }
            state.jobs.append(job)
            guard state.parked, !onThread else { return .queued }
            state.parked = false
            return .wake
        }
        switch queued {
        case .queued: break
        case .wake: wake.signal()
        case .forward: globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    /// Where `enqueue` sent a job: queued for a running loop, queued and the parked thread must
    /// wake, or on to the global executor once the loop has ended.
    private enum JobRoute { case queued, wake, forward }

    /// Runs the jobs queued so far, outside the lock; returns whether there were any.
    private func runJobs() -> Bool {
        let jobs = guarded.withLock { state -> [UnownedJob] in
            defer { state.jobs.removeAll(keepingCapacity: true) }
            return state.jobs
        }
        for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        return !jobs.isEmpty
    }

    // MARK: - The socket's own thread

    /// Hands a batch to the consumer, dropping (and counting) what would overfill its buffer.
    /// The batch is consumed (and moved on to `yield`), so the consumer holds the only reference
    /// and moves each message out without copying the batch.
    private func deliver(_ batch: consuming Batch) {
        let room = max(0, receiveBuffer - incoming.backlog.count)
        if batch.count > room {
            dropped.add(batch.count - room, ordering: .relaxed)
            batch = Batch(batch.prefix(room))
        }
        let count = batch.count
        guard count > 0 else { return }
        incoming.backlog.add(count)
        if case .terminated = continuation.yield(consume batch) { incoming.backlog.add(-count) }
    }

    /// One pass under the lock: the queued work, the outbox, then up to 1,024 received messages
    /// into `received` (bounded, so a flood of input cannot starve sending or shutdown); then
    /// whether to wait.
    private struct Pass {
        var wait = false
        var closing = false
        var failed = false
        /// It ran chores, sent from the outbox or received: the thread looks for more (`IdleSpin`).
        var worked = false
    }

    private func pass(receiving received: inout ReceivedMessages) -> Pass {
        guarded.withLock { state -> Pass in
            var pass = Pass()
            guard let socket = state.socket else {
                pass.closing = true
                return pass
            }
            let chores = state.chores
            state.chores.removeAll()
            for chore in chores { chore(socket) }
            let waiting = state.outbox.count
            do {
                while let message = state.outbox.first {
                    do {
                        guard try socket.send(message, dontWait: true) else { break }
                    } catch let error as ZMQError where error.contextTerminated {
                        throw error
                    } catch {
                        logger.warning("\(name): \(error)")
                    }
                    state.outbox.removeFirst()
                }
                for _ in 0..<1024 {
                    guard try received.receive(from: socket, dontWait: true) else { break }
                }
            } catch let error as ZMQError where error.contextTerminated {
                pass.failed = true
                return pass
            } catch {
                logger.warning("\(name): \(error)")
            }
            pass.closing = state.closing
            pass.worked = !chores.isEmpty || state.outbox.count < waiting || received.count > 0
            // Reading ZMQ_EVENTS last re-arms ZMQ_FD: anything after it signals the descriptor.
            let events = socket.events
            let busy =
                events.input || (!state.outbox.isEmpty && events.output) || !state.chores.isEmpty
                || !state.jobs.isEmpty
            state.parked = !busy && !state.closing
            pass.wait = state.parked
            return pass
        }
    }

    private func runLoop(read: Reader, tick: Tick?) {
        // The name shows in `top -H` and /proc (Linux keeps 15 bytes).
        hearth_name_this_thread(name)
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        var descriptors = [
            pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        var wait = 250
        var spin = IdleSpin(idleSpin)
        // Kept from pass to pass: received messages wait here, in libzmq's buffers, to be read.
        var received = ReceivedMessages()
        while true {
            let pass = pass(receiving: &received)
            if pass.failed { break }
            if received.count > 0 {
                var batch = Batch(minimumCapacity: received.count)
                for index in 0..<received.count {
                    if let message = received.read(index, read) { batch.append(message) }
                }
                received.removeAll()
                // Moved here and on into `yield`, not passed: passed, the batch was still
                // referenced on this thread when the consumer resumed, so its `popFirst` often
                // copied the whole batch (`Deque._makeUniqueCopy`, 0.6–1.0% of the benchmark's
                // samples in an envelope run; none with both moves).
                deliver(consume batch)
            }
            // Jobs queued before or by the delivery (the consumer resumed); a pass follows any that
            // ran, since they may have sent, and only a pass decides to wait (see `pass`).
            let ranJobs = runJobs()
            wait = min(250, max(1, tick?() ?? 250))
            if pass.closing { break }
            if pass.worked || ranJobs { spin.worked() }
            guard pass.wait, !ranJobs else { continue }
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = spin.wait(timeoutMilliseconds: wait) { Int(poll(&descriptors, 2, Int32($0))) }
            if ready < 0 && errno != EINTR {
                logger.error("\(name): poll: \(String(cString: strerror(errno)))")
                break
            }
            if descriptors[1].revents != 0 { wake.drain() }
        }
        // What the outbox still holds gets its last chance; the socket's linger does the rest.
        let (socket, leftover, jobs) = guarded.withLock {
            state -> (ZMQSocket?, [@Sendable (ZMQSocket?) -> Void], [UnownedJob]) in
            state.closing = true
            state.jobsForwarded = true
            if let socket = state.socket {
                while let message = state.outbox.first, (try? socket.send(message, dontWait: true)) == true {
                    state.outbox.removeFirst()
                }
                if !state.outbox.isEmpty {
                    logger.debug("\(name): \(state.outbox.count) queued messages not sent at close")
                }
            }
            defer {
                state.socket = nil
                state.chores.removeAll()
                state.jobs.removeAll()
            }
            return (state.socket, state.chores, state.jobs)
        }
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        // Closing may wait out the linger: outside the lock (senders see `closing` and stop).
        socket?.close()
        // Work queued as the loop ended is refused, never left waiting.
        for chore in leftover { chore(nil) }
        continuation.finish()
        finished.set(true)
    }
}
