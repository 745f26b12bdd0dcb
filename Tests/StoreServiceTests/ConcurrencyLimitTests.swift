import Testing

@testable import StoreService

@Suite("ConcurrencyLimit: at most its width at once, every caller served", .timeLimit(.minutes(1)))
struct ConcurrencyLimitTests {
    /// Counts the work in progress, as the work itself sees it.
    actor InFlight {
        private(set) var now = 0
        private(set) var most = 0
        func enter() {
            now += 1
            most = max(most, now)
        }
        func leave() { now -= 1 }
    }

    @Test(
        "16 searches' worth of work through a limit of 2: never more than 2 at once, all 16 done, errors pass through")
    func boundsAndServes() async throws {
        let limit = ConcurrencyLimit(2)
        let inFlight = InFlight()
        let done = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await limit.run {
                        await inFlight.enter()
                        for _ in 0..<5 { await Task.yield() }
                        await inFlight.leave()
                        return index
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(done.sorted() == Array(0..<16))
        #expect(await inFlight.most <= 2)
        #expect(await limit.mostAtOnce <= 2)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await limit.run { throw Refused() } }
        // The place a failure held is given back: more run after it.
        let one = try await limit.run { 1 }
        let two = try await limit.run { 2 }
        #expect(one + two == 3)
    }
}
