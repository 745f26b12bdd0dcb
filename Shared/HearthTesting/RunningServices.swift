import Logging
import ServiceLifecycle

/// Runs `services` in a service group (in-process, real sockets) while `body` runs, then shuts
/// the group down gracefully and waits for it, as a process would on SIGTERM.
/// - Returns: what `body` returns.
/// - Throws: what `body` or a service throws.
public func withRunning<T: Sendable>(
    _ services: [any Service], _ body: () async throws -> T
) async throws -> T {
    let group = ServiceGroup(services: services, logger: Logger(label: "test.services"))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let result = try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
    }
}
