/// A one-way latch tasks can await with a timeout: once fired, it stays fired.
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

    /// Waits until the signal fires or `timeout` passes.
    /// - Returns: `true` when it fired, `false` on timeout or cancellation.
    public func wait(timeout: Duration) async -> Bool {
        await latch.wait(timeout: timeout) ?? false
    }
}
