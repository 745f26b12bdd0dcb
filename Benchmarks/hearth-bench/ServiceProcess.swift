import Foundation
import HearthBus

/// A real Hearth service process (the one built beside this benchmark) on a temporary home.
struct ServiceProcess {
    let configuration: HearthConfiguration
    private let process: Process

    init(_ service: HearthService = .bus, home: String, context: ZMQContext) async throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        configuration = try HearthConfiguration.load(home: home, environment: [:])
        process = Process()
        process.executableURL = directory.appendingPathComponent("hearth-\(service.rawValue)")
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["HEARTH_HOME": home, "HEARTH_LOG_LEVEL": "warning"]) { _, new in new }
        try process.run()
        let client = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(service), timeout: .milliseconds(200),
            attempts: 50)
        _ = try await client.request("ping")
        await client.close()
    }

    /// Sends SIGTERM and waits for the process to exit.
    func stop() async {
        process.terminate()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                process.waitUntilExit()
                done.resume()
            }.start()
        }
    }
}

/// A short temporary directory for the benchmark's ipc sockets.
final class TemporaryBenchHome {
    let path: String

    init() throws {
        var template = Array("/tmp/hearth-bench-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SystemCallError.last("mkdtemp") }
        path = String(cString: created)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
