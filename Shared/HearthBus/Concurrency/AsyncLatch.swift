import Synchronization

/// A value that some thread or task sets and any number of tasks await: the one
/// mutex-plus-continuations piece behind Hearth's waiters (a signal, a process's exit status, a
/// socket thread's end, a group commit's outcome).
///
/// Setting wakes every waiter; a waiter that arrives after the value was set gets it at once. A
/// cancelled wait returns `nil` and leaves nothing behind.
public final class AsyncLatch<Value: Sendable>: Sendable {
    private struct State: ~Copyable {
        var value: Value?
        var nextTicket = 0
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The value, once set.
    public var value: Value? { state.withLock { $0.value } }

    /// Sets the value (replacing any earlier one) and wakes every waiter with it.
    public func set(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value?, Never>] in
            state.value = value
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// Forgets the value, so the next `wait` waits for a new one.
    public func reset() { state.withLock { $0.value = nil } }

    /// The value, waiting for it; `nil` if the waiting task is cancelled first.
    public func wait() async -> Value? {
        let ticket = state.withLock { state -> Int in
            state.nextTicket += 1
            return state.nextTicket
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let now: Value?? = state.withLock { state in
                    if let value = state.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[ticket] = continuation
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume(returning: nil)
        }
    }

    /// The value, waiting for it even if the task is cancelled: for a waiter whose work was
    /// already handed to someone else, which must learn how it ended.
    public func outcome() async -> Value {
        let ticket = state.withLock { state -> Int in
            state.nextTicket += 1
            return state.nextTicket
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let now: Value? = state.withLock { state in
                if let value = state.value { return value }
                state.waiters[ticket] = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }!  // only `set` resumes a waiter registered here, always with a value
    }

    /// The value, waiting at most `timeout` for it.
    public func wait(timeout: Duration) async -> Value? {
        if let value { return value }
        return await withTimeout(timeout) { await self.wait() }
    }
}
