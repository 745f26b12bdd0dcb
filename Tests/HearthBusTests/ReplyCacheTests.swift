import HearthBus
import Synchronization
import Testing

@Suite("Reply cache bounds", .timeLimit(.minutes(1)))
struct ReplyCacheTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        func now() -> ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test("a retried id is answered from the cache, a duplicate in flight joins")
    func answers() {
        let cache = ReplyCache(capacity: 10)
        #expect(cache.admit(id: "a", route: [1]) == .run)
        #expect(cache.admit(id: "a", route: [2]) == .joined)
        #expect(cache.finish(id: "a", reply: [9]) == [[2]])
        #expect(cache.admit(id: "a", route: [3]) == .answered([9]))
    }

    @Test("replies older than the retention are forgotten: memory follows the rate, not the run's length")
    func ages() {
        let clock = ManualClock()
        let cache = ReplyCache(capacity: 100_000, retention: .seconds(120), now: { clock.now() })
        // Ten commands a second for an hour of a long-running service.
        for second in 0..<3_600 {
            for index in 0..<10 {
                let id = "\(second)-\(index)"
                _ = cache.admit(id: id, route: [0])
                _ = cache.finish(id: id, reply: [UInt8](repeating: 7, count: 100))
            }
            clock.advance(.seconds(1))
        }
        // Two minutes of replies, not an hour's.
        #expect(cache.count <= 1_220)
        #expect(cache.bytes == cache.count * 100)
        #expect(cache.admit(id: "3599-9", route: [0]) == .answered([UInt8](repeating: 7, count: 100)))
        #expect(cache.admit(id: "0-0", route: [0]) == .run)
    }

    @Test("the byte bound and the count bound hold, oldest first")
    func bounds() {
        let cache = ReplyCache(capacity: 3, maximumBytes: 1_000)
        for id in ["a", "b", "c", "d"] {
            _ = cache.admit(id: id, route: [0])
            _ = cache.finish(id: id, reply: [1])
        }
        #expect(cache.count == 3)
        #expect(cache.admit(id: "a", route: [0]) == .run)
        _ = cache.finish(id: "big", reply: [UInt8](repeating: 0, count: 999))
        #expect(cache.bytes <= 1_000)
        #expect(cache.admit(id: "big", route: [0]) == .answered([UInt8](repeating: 0, count: 999)))
    }
}
