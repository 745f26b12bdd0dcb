import Foundation

/// Runs CPU-heavy or blocking work on a thread of its own and awaits its result, so it never holds
/// one of the cooperative pool's threads (two on a 2-core machine).
///
/// A new `Thread`, not `DispatchQueue.global()`: on Linux libdispatch caps the runnable threads of
/// the pool the cooperative pool shares at the number of cores, so work that computes for seconds
/// there starves every task of the process just the same (two crafted calendar imports made the
/// `hearth-store` process's other commands wait 3.3–3.6 s; on a thread of their own, 19–21 ms:
/// `StoreCalendarCostTests`). Meant for occasional work (an import, a test's large fixture), not
/// per message: each call starts a thread.
public func offPool<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { done in
        Thread { done.resume(returning: Result { () throws(E) -> T in try body() }) }.start()
    }
    return try result.get()
}
