import Synchronization

/// Starts each request's task on the command socket's own thread as the request arrives, and
/// knows when those tasks have finished.
///
/// A request used to cross two hand-offs before its handler ran: the socket thread's batch to
/// the server's loop task (a wake-up of the cooperative pool), then the loop to a child task (an
/// enqueue, often another wake-up). `Task.immediate` runs the answer on the socket thread until
/// it first suspends: a command answered at once (`ping`, a cached reply) replies from there, and
/// one that awaits an actor crosses to the pool once. The socket thread is not the cooperative
/// pool, so this puts no blocking on it; a handler's synchronous prefix delays only the next
/// request's start, while libzmq queues it.
///
/// At most `limit` requests run at once: one more is refused at once (`refuse`, which answers
/// `busy`), so a client sending thousands of requests it never reads the answers to costs the
/// service the memory of `limit` of them, not of thousands (2,500 unread `ops.export` pages took
/// `hearth-store` from 67 MB to 627 MB).
final class CommandIntake: Sendable {
    typealias Answer = @Sendable ([Frame]) async -> Void
    typealias Refuse = @Sendable ([Frame]) -> Void

    /// How many requests may run at once.
    let limit: Int

    init(limit: Int = 64) { self.limit = limit }

    private struct State {
        var answer: Answer?
        var refuse: Refuse?
        /// Where a request's task runs after its first suspension: the pool (`nil`), or the
        /// socket's thread (`CommandServer`'s `handlersOnSocketThread`).
        var executor: (any TaskExecutor)?
        var running = 0
        var closed = false
        var drained: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// Sets what runs for each request; until then (and after `close`) requests are dropped
    /// unanswered, and a client retries them.
    func open(on executor: (any TaskExecutor)?, refuse: @escaping Refuse, _ answer: @escaping Answer) {
        state.withLock { state in
            state.answer = answer
            state.refuse = refuse
            state.executor = executor
        }
    }

    /// Called on the socket's thread for every message it receives; always consumes it.
    func admit(_ frames: [Frame]) -> Bool {
        let (answer, executor, refuse) = state.withLock { state -> (Answer?, (any TaskExecutor)?, Refuse?) in
            guard !state.closed, let answer = state.answer else { return (nil, nil, nil) }
            guard state.running < limit else { return (nil, nil, state.refuse) }
            state.running += 1
            return (answer, state.executor, nil)
        }
        if let refuse { refuse(frames) }
        guard let answer else { return true }
        Task.immediate(executorPreference: executor) {
            await answer(frames)
            self.finish()
        }
        return true
    }

    /// Stops starting requests and returns once every started one has finished.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                state.closed = true
                state.answer = nil
                guard state.running > 0 else { return true }
                state.drained = continuation
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.running -= 1
            guard state.closed, state.running == 0 else { return nil }
            defer { state.drained = nil }
            return state.drained
        }
        waiter?.resume()
    }
}
