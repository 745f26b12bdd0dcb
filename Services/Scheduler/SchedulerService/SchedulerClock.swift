import Foundation
import HearthBus

/// The scheduler's time: what time it is, and a wait until a deadline that a change cuts short.
/// Injected so tests drive time instead of waiting for it.
public protocol SchedulerClock: Sendable {
    func now() -> Date
    /// Returns at `deadline` on this clock (never, if `nil`) or as soon as `wake` is set.
    func wait(until deadline: Date?, or wake: AsyncSignal) async
}

/// The system's clock.
public struct SystemSchedulerClock: SchedulerClock {
    public init() {}

    public func now() -> Date { Date() }

    public func wait(until deadline: Date?, or wake: AsyncSignal) async {
        guard let deadline else {
            _ = await wake.wait(timeout: .seconds(3600))
            return
        }
        let seconds = max(0, deadline.timeIntervalSince(Date()))
        // Timers are the point here: this is the wait until a reminder is due.
        _ = await wake.wait(timeout: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}
