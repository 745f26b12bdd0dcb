/// Lets at most `width` callers run a piece of work at once; the others wait, first come first
/// served.
actor ConcurrencyLimit {
    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// The most that ran at once so far (for tests).
    private(set) var mostAtOnce = 0

    init(_ width: Int) { self.width = max(1, width) }

    /// Runs `work` once fewer than `width` others are running.
    nonisolated func run<Result: Sendable>(_ work: @Sendable () async throws -> Result) async throws -> Result {
        await enter()
        do {
            let result = try await work()
            await leave()
            return result
        } catch {
            await leave()
            throw error
        }
    }

    private func enter() async {
        if running < width {
            running += 1
        } else {
            // `leave` hands its place straight to the first waiting: `running` stays as it is.
            await withCheckedContinuation { waiting.append($0) }
        }
        mostAtOnce = max(mostAtOnce, running)
    }

    private func leave() {
        if waiting.isEmpty { running -= 1 } else { waiting.removeFirst().resume() }
    }
}
