import Foundation
import Synchronization

/// Verifies many operations' signatures at once, on every core.
///
/// An Ed25519 verification costs about 50 µs on the 2-core test machine (`hearth-bench sync`
/// reports it), so a sync page of 3,400 operations is 0.17 s on one core. Verifying is
/// independent per operation, so the page is split across one thread per core. It blocks the
/// calling thread until all are done: call it from a thread of its own (`offPool`), never from
/// the cooperative pool.
public enum SignatureBatch {
    /// Below this many items one thread does it all (a thread's start costs more than it saves).
    static let parallelFrom = 64

    /// Whether each item's signature verifies, in order.
    public static func verify(_ items: [SignatureCheck]) -> [Bool] {
        let threads = min(ProcessInfo.processInfo.activeProcessorCount, max(1, items.count / parallelFrom))
        guard threads > 1 else { return items.map(\.verifies) }
        let results = Mutex([Bool](repeating: false, count: items.count))
        let chunk = (items.count + threads - 1) / threads
        let done = DispatchGroup()
        @Sendable func run(_ range: Range<Int>) {
            let verdicts = items[range].map(\.verifies)
            results.withLock { $0.replaceSubrange(range, with: verdicts) }
        }
        for part in 1..<threads {
            let range = (part * chunk)..<min(items.count, (part + 1) * chunk)
            guard !range.isEmpty else { continue }
            done.enter()
            Thread {
                run(range)
                done.leave()
            }.start()
        }
        run(0..<min(chunk, items.count))
        done.wait()
        return results.withLock { $0 }
    }
}
