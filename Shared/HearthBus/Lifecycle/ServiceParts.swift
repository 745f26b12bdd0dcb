import Logging
import ServiceLifecycle

/// One long-running loop of a service (reading a socket, a timer, a subscription) as a
/// `Service` of its own, cancelled when its group shuts it down.
public struct ServiceLoop: Service, CustomStringConvertible {
    /// What the loop does, for lifecycle's logs.
    public let description: String
    private let body: @Sendable () async throws -> Void

    public init(_ name: String, _ body: @escaping @Sendable () async throws -> Void) {
        description = name
        self.body = body
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown(body)
        } catch is CancellationError {
            // Shut down while waiting: how a loop ends.
        }
    }
}

/// What a service's loops share (sockets, a notification connection), closed once all of them
/// have stopped. A group shuts its services down in reverse order, each finished before the
/// next is told, so this goes first in the list and is closed last.
public struct ServiceResources: Service, CustomStringConvertible {
    public let description: String
    private let close: @Sendable () async -> Void

    public init(_ name: String, close: @escaping @Sendable () async -> Void) {
        description = name
        self.close = close
    }

    public func run() async throws {
        // Cancelled instead (the group failed): close all the same.
        try? await gracefulShutdown()
        await close()
    }
}

/// Work done when a service is asked to stop (SIGTERM, SIGINT), and only then: a service
/// cancelled (its group failed, a test's stand-in for a crash) skips it and goes silent.
/// Placed after the resources it uses, it runs while they are still open.
public struct ServiceFarewell: Service, CustomStringConvertible {
    public let description: String
    private let farewell: @Sendable () async -> Void

    public init(_ name: String, _ farewell: @escaping @Sendable () async -> Void) {
        description = name
        self.farewell = farewell
    }

    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: no farewell
        }
        await farewell()
    }
}

extension ServiceGroup {
    /// The parts of one Hearth service (its resources, loops and command server) as a group
    /// nested in the process's: the process's SIGTERM reaches them through it, and they stop in
    /// reverse order: commands first (stop intake, answer what is in flight), resources last.
    public static func parts(_ services: [any Service], logger: Logger) -> ServiceGroup {
        ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
    }
}
