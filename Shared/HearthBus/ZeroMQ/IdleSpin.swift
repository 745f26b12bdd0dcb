#if canImport(Glibc)
    import Glibc
#endif

/// How a socket's thread waits for its next message: right after it has worked, it keeps
/// looking (a poll that does not wait, giving up its core between looks) for a short while, and
/// only then sleeps in the poll that waits.
///
/// Why: on the 2-core virtual machines Hearth is measured on, a thread asleep in `poll(2)` is
/// woken by an interrupt to a halted vCPU, 17–35 µs a hand-off (see `Benchmarks/README.md`), and
/// a command's round trip crosses several such threads. A thread still looking finds the next
/// message without being woken. `hearth-bench bus` (d), 2026-11-26, interleaved runs of one
/// binary: the round trip's p99 ratio to raw libzmq 1.74–2.11 without, 0.93–1.25 with 100 µs
/// (p50 ratio 1.89–2.12 → 0.97–1.10). Giving up the core between looks (`sched_yield(2)`) is what
/// keeps the looking from costing the threads it waits for: without it the p99 ratio rose to
/// 2.5–4.5, the lookers holding both cores while libzmq's I/O thread waited for one.
///
/// The cost is at most the spin's length of CPU after each burst of work, and nothing while
/// the process is idle.
public struct IdleSpin: Sendable {
    /// How long to keep looking after the last work; zero never looks.
    public let length: Duration
    /// Until when to look.
    private var until = ContinuousClock.Instant.now

    public init(_ length: Duration) { self.length = max(.zero, length) }

    /// Notes that the thread has just worked: it looks for the next message until the spin is over.
    public mutating func worked() {
        if length > .zero { until = .now + length }
    }

    /// Waits for input with `poll` (given a timeout in milliseconds, it returns how many
    /// descriptors are ready, 0 when none, or a negative error): while the spin since the last
    /// work lasts, with no wait and the core given up between calls; then once with
    /// `timeoutMilliseconds`. Returns the last answer.
    public func wait(timeoutMilliseconds: Int, _ poll: (_ timeoutMilliseconds: Int) throws -> Int) rethrows -> Int {
        while length > .zero, ContinuousClock.now < until {
            let ready = try poll(0)
            if ready != 0 { return ready }
            sched_yield()
        }
        return try poll(timeoutMilliseconds)
    }
}
