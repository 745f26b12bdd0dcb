import Foundation
import HearthBus
import HearthHost

/// Real Hearth service processes on a temporary home, each ready once it answers `ping`.
public final class TestStack: Sendable {
    public let home: TemporaryHome
    public let configuration: HearthConfiguration
    public let environment: [String: String]
    /// The processes, by service.
    public let processes: [HearthService: ChildProcess]
    /// What each process is started under (`ip netns exec NAME`: a device on its own network).
    public let launcher: [String]

    /// The bus process (every stack has one).
    public var process: ChildProcess { processes[.bus]! }

    /// Starts `services` (the bus first) and waits (up to `timeout` each) until they answer.
    /// - Parameter launcher: a command each process is started under, such as `ip netns exec
    ///   hearth-…-1` (the command-line and the test still reach it over its `ipc://` sockets).
    public init(
        _ services: [HearthService] = [.bus],
        home: TemporaryHome? = nil,
        environment extra: [String: String] = [:],
        context: ZMQContext,
        timeout: Duration = .seconds(10),
        launcher: [String] = []
    ) async throws {
        let home = try home ?? TemporaryHome()
        self.home = home
        self.launcher = launcher
        // The page on any free port: stacks run side by side, and 8470 may be taken.
        environment = ["HEARTH_HOME": home.path, "HEARTH_WEB_LISTEN": "127.0.0.1:0"].merging(extra) { _, new in new }
        configuration = try home.configuration(extra)
        var processes: [HearthService: ChildProcess] = [:]
        for service in [.bus] + services.filter({ $0 != .bus }) {
            processes[service] = try await Self.start(service, environment: environment, launcher: launcher)
            guard
                await Self.waitUntilAnswering(
                    configuration.commandEndpoint(service), context: context, timeout: timeout)
            else {
                for process in processes.values { process.signal(SIGKILL) }
                throw StackError.notAnswering("hearth-\(service.rawValue)", processes[service]!.errors.text)
            }
        }
        self.processes = processes
    }

    /// Starts one service's executable on this stack's home (under `launcher`, when given).
    public static func start(
        _ service: HearthService, environment: [String: String], launcher: [String] = []
    ) async throws -> ChildProcess {
        guard let first = launcher.first else {
            return try await ChildProcess("hearth-\(service.rawValue)", environment: environment)
        }
        let executable = (ChildProcess.binaryDirectory as NSString).appendingPathComponent("hearth-\(service.rawValue)")
        return try await ChildProcess(first, Array(launcher.dropFirst()) + [executable], environment: environment)
    }

    /// Pings `endpoint` until it answers or `timeout` passes; each ping waits at most 200 ms.
    public static func waitUntilAnswering(_ endpoint: String, context: ZMQContext, timeout: Duration) async -> Bool {
        let client = CommandClient(context: context, endpoint: endpoint, timeout: .milliseconds(200), attempts: 1)
        let deadline = ContinuousClock.now + timeout
        var answered = false
        while !answered && ContinuousClock.now < deadline {
            answered = (try? await client.request("ping")) != nil
        }
        await client.close()
        return answered
    }

    /// Runs the `hearth` command line against this stack.
    public func hearth(
        _ arguments: [String], timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32?, stdout: String, stderr: String) {
        try await ChildProcess.run("hearth", arguments, environment: environment, timeout: timeout)
    }

    /// Sends SIGTERM to every process and waits for each to exit; returns their statuses.
    public func stop(timeout: Duration = .seconds(2)) async -> [HearthService: Int32?] {
        for process in processes.values { process.signal(SIGTERM) }
        var statuses: [HearthService: Int32?] = [:]
        for (service, process) in processes { statuses[service] = await process.waitForExit(timeout: timeout) }
        return statuses
    }
}

/// A stack process that did not come up.
public enum StackError: Error, CustomStringConvertible {
    case notAnswering(String, String)

    public var description: String {
        switch self {
        case .notAnswering(let name, let log): "\(name) did not answer ping; its log:\n\(log)"
        }
    }
}
