/// Runs `operation` for at most `timeout`: its result, or `nil` once the time is up.
///
/// On timeout the operation is cancelled and awaited, so it must give up promptly when
/// cancelled (every waiter in Hearth resumes with `nil` on cancellation).
public func withTimeout<T: Sendable>(
    _ timeout: Duration,
    _ operation: @escaping @Sendable () async -> T?
) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
