/// A latch tasks can await with a timeout: once fired, it stays fired until `reset()`.
///
/// Socket threads fire it (for example when a subscription arrives); tasks wait for it without
/// polling.
public final class AsyncSignal: Sendable {
    private let latch = AsyncLatch<Bool>()

    public init() {}

    /// Whether `fire()` has happened.
    public var isFired: Bool { latch.value != nil }

    /// Fires the signal and wakes every waiter.
    public func fire() { latch.set(true) }

    /// Makes it unfired again, for a waiter that loops (reset, look at the state, wait): a fire
    /// after the reset wakes the next wait, so no change is missed.
    public func reset() { latch.reset() }

    /// Waits until the signal fires or `timeout` passes.
    /// - Returns: `true` when it fired, `false` on timeout or cancellation.
    public func wait(timeout: Duration) async -> Bool {
        await latch.wait(timeout: timeout) ?? false
    }
}
