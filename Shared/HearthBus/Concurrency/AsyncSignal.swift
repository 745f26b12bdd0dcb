import Synchronization

/// A one-way latch tasks can await with a timeout: once fired, it stays fired.
///
/// Socket threads fire it (for example when a subscription arrives); tasks wait for it without
/// polling.
public final class AsyncSignal: Sendable {
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var fired = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    }

    public init() {}

    /// Whether `fire()` has happened.
    public var isFired: Bool { state.withLock { $0.fired } }

    /// Fires the signal and wakes every waiter.
    public func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Waits until the signal fires or `timeout` passes.
    /// - Returns: `true` when it fired, `false` on timeout or cancellation.
    public func wait(timeout: Duration) async -> Bool {
        if isFired { return true }
        return await withTimeout(timeout) { await self.waitUntilFiredOrCancelled() } ?? false
    }

    private func waitUntilFiredOrCancelled() async -> Bool {
        let ticket = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow: Bool? = state.withLock { state in
                    if state.fired { return true }
                    if Task.isCancelled { return false }
                    state.waiters[ticket] = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: ticket) }
            waiter?.resume(returning: false)
        }
    }
}
