import Foundation

/// A private D-Bus session bus (a real `dbus-daemon`), optionally with the notification test
/// server of `deploy/notification-test-server` on it.
public final class DBusSession: Sendable {
    /// The bus address, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    /// The notification server's calls, one JSON object per line (when started with the session).
    public let server: ChildProcess?
    private let daemon: ChildProcess

    /// Starts the bus and, if `notificationServer` is set, the test server (waiting until it owns its name).
    public init(notificationServer: Bool, repositoryRoot: String) async throws {
        daemon = try await ChildProcess("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address=1"])
        guard let line = await daemon.output.waitForLine(timeout: .seconds(10), where: { $0.hasPrefix("unix:") }) else {
            throw StackError.notAnswering("dbus-daemon", daemon.errors.text)
        }
        address = line
        server = notificationServer ? try await Self.startServer(address: line, repositoryRoot: repositoryRoot) : nil
    }

    /// Starts the test kit's notification server on this bus (for a server that arrives late).
    public func startNotificationServer(repositoryRoot: String) async throws -> ChildProcess {
        try await Self.startServer(address: address, repositoryRoot: repositoryRoot)
    }

    private static func startServer(address: String, repositoryRoot: String) async throws -> ChildProcess {
        let server = try await ChildProcess(
            "\(repositoryRoot)/deploy/notification-test-server", environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        guard await server.output.waitForLine(containing: "\"ready\": true") != nil else {
            throw StackError.notAnswering("notification-test-server", server.errors.text)
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
