import Foundation

/// A private D-Bus session bus (a real `dbus-daemon`), optionally with the notification test
/// server (`hearth-notification-test-server`, built beside the tests and benchmarks) on it.
public final class DBusSession: Sendable {
    /// The bus address, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    /// The notification server's calls, one JSON object per line (when started with the session).
    public let server: ChildProcess?
    private let daemon: ChildProcess

    /// Starts the bus and, if `notificationServer` is set, the test server (waiting until it owns its name).
    public init(notificationServer: Bool) async throws {
        daemon = try await ChildProcess("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address=1"])
        guard let line = await daemon.output.waitForLine(timeout: .seconds(10), where: { $0.hasPrefix("unix:") }) else {
            throw StackError.notAnswering("dbus-daemon", daemon.errors.text)
        }
        address = line
        server = notificationServer ? try await Self.startServer(address: line) : nil
    }

    /// Starts the test kit's notification server on this bus (for a server that arrives late).
    public func startNotificationServer() async throws -> ChildProcess {
        try await Self.startServer(address: address)
    }

    /// The test server's executable: beside the running test or benchmark binary (the same
    /// build), else in `ChildProcess.binaryDirectory`.
    static let serverPath: String = {
        let name = "hearth-notification-test-server"
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let beside = ((running as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return (ChildProcess.binaryDirectory as NSString).appendingPathComponent(name)
    }()

    private static func startServer(address: String) async throws -> ChildProcess {
        let server = try await ChildProcess(Self.serverPath, environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        guard await server.output.waitForLine(containing: "\"ready\": true") != nil else {
            throw StackError.notAnswering("hearth-notification-test-server", server.errors.text)
        }
        return server
    }

    /// The environment a process needs to use this bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Presses `action` on notification `id` at the test server (it emits ActionInvoked).
    public func press(id: UInt32, action: String) async throws -> Int32? {
        try await ChildProcess.run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                "org.hearth.NotificationTest.Press", "uint32:\(id)", "string:\(action)",
            ],
            environment: environment
        ).status
    }

    deinit {
        server?.signal(SIGTERM)
        daemon.signal(SIGTERM)
    }
}
