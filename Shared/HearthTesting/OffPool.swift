import Foundation

/// Runs CPU-heavy or blocking test work (building a large file, SQLite transactions,
/// compressing megabytes) on a thread of its own, not on the test process's cooperative threads:
/// every suite shares those (two on a 2-core machine), and work that holds one for a second made
/// other suites' timing bounds fail in CI.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { done in
        Thread { done.resume(with: Result { try body() }) }.start()
    }
}
