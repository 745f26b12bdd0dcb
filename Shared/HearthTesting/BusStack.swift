import Foundation
import HearthBus

/// A real `hearth-bus` process on a temporary home, ready once it answers `ping`.
public final class BusStack: Sendable {
    public let home: TemporaryHome
    public let configuration: HearthConfiguration
    public let process: ChildProcess
    public let environment: [String: String]

    /// Starts the bus and waits (up to `timeout`) until it answers.
    public init(
        home: TemporaryHome? = nil,
        environment extra: [String: String] = [:],
        context: ZMQContext,
        timeout: Duration = .seconds(10)
    ) async throws {
        let home = try home ?? TemporaryHome()
        self.home = home
        environment = ["HEARTH_HOME": home.path].merging(extra) { _, new in new }
        configuration = try home.configuration(extra)
        process = try await ChildProcess("hearth-bus", environment: environment)
        guard await BusStack.waitUntilAnswering(configuration.commandEndpoint(.bus), context: context, timeout: timeout)
        else {
            process.signal(SIGKILL)
            throw StackError.notAnswering("hearth-bus", process.errors.text)
        }
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
