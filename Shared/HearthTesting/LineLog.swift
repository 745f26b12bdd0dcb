import HearthBus
import Synchronization

/// Lines a child process printed, which tests can wait on without sleeping.
public final class LineLog: Sendable {
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var finished = false
        var lines: [String] = []
        var partial: [UInt8] = []
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    /// A wait for a line that matches: set with the first one that comes.
    private struct Waiter {
        let predicate: @Sendable (String) -> Bool
        let line: AsyncLatch<String>
    }

    public init() {}

    private let ended = AsyncSignal()

    /// Marks the end of output: a last unterminated line becomes a line.
    public func finish() {
        let partial = state.withLock { state -> [UInt8] in
            state.finished = true
            return state.partial
        }
        if !partial.isEmpty { append([UInt8(ascii: "\n")]) }
        ended.fire()
    }

    /// Waits until the writer closed its end (or `timeout` passed).
    public func waitUntilFinished(timeout: Duration) async {
        _ = await ended.wait(timeout: timeout)
    }

    /// Every complete line so far.
    public var lines: [String] { state.withLock { $0.lines } }

    /// How many complete lines so far (a starting point for `waitForLine(from:)`).
    public var count: Int { state.withLock { $0.lines.count } }

    /// Everything so far as one string.
    public var text: String { lines.joined(separator: "\n") }

    /// Adds raw output; complete lines wake matching waiters.
    public func append(_ bytes: [UInt8]) {
        var matched: [(AsyncLatch<String>, String)] = []
        state.withLock { state in
            for byte in bytes {
                if byte == UInt8(ascii: "\n") {
                    let line = String(decoding: state.partial, as: UTF8.self)
                    state.partial.removeAll()
                    state.lines.append(line)
                    for (key, waiter) in state.waiters where waiter.predicate(line) {
                        state.waiters.removeValue(forKey: key)
                        matched.append((waiter.line, line))
                    }
                } else {
                    state.partial.append(byte)
                }
            }
        }
        for (latch, line) in matched { latch.set(line) }
    }

    /// The first line (already printed or yet to come) that satisfies `predicate`, or `nil`
    /// after `timeout`.
    /// - Parameter start: lines before this index are not looked at (a long log need not be
    ///   rescanned for each wait).
    public func waitForLine(
        timeout: Duration = .seconds(10),
        from start: Int = 0,
        where predicate: @escaping @Sendable (String) -> Bool
    ) async -> String? {
        let latch = AsyncLatch<String>()
        let (found, ticket): (String?, Int) = state.withLock { state in
            if let line = state.lines[min(start, state.lines.count)...].first(where: predicate) { return (line, 0) }
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = Waiter(predicate: predicate, line: latch)
            return (nil, state.nextWaiter)
        }
        if let found { return found }
        let line = await latch.wait(timeout: timeout)
        state.withLock { _ = $0.waiters.removeValue(forKey: ticket) }
        return line
    }

    /// Waits until `count` lines (from `start` on) satisfy `predicate`.
    /// - Returns: whether they did within `timeout`.
    public func waitForLines(
        _ count: Int, timeout: Duration = .seconds(10), from start: Int = 0,
        where predicate: @escaping @Sendable (String) -> Bool
    ) async -> Bool {
        // The predicate sees each line once (those already printed, then each new one).
        let matched = Mutex(0)
        return await waitForLine(timeout: timeout, from: start) { line in
            guard predicate(line) else { return false }
            return matched.withLock { seen in
                seen += 1
                return seen >= count
            }
        } != nil
    }

    /// Waits for a line containing `text`.
    public func waitForLine(containing text: String, timeout: Duration = .seconds(10)) async -> String? {
        await waitForLine(timeout: timeout) { $0.contains(text) }
    }
}
