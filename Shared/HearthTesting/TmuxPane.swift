import Foundation

/// A terminal a test types into: one tmux pane on a tmux server of the test's own, keys sent
/// with `send-keys` and the screen read with `capture-pane`, as a person would see it.
public struct TmuxPane: Sendable {
    /// The tmux server's socket name, unique to this pane.
    public let socket = "hearth-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    /// The session (and so pane) name.
    public let name: String

    public init(name: String) { self.name = name }

    /// Runs tmux on this pane's server.
    @discardableResult
    public func run(
        _ arguments: [String], timeout: Duration = .seconds(10)
    ) async throws -> (
        status: Int32?, stdout: String, stderr: String
    ) {
        try await ChildProcess.run("/usr/bin/tmux", ["-L", socket] + arguments, timeout: timeout)
    }

    /// Starts the pane running `command` (a shell command line), `width` columns wide.
    public func start(_ command: String, width: Int = 100, height: Int = 30) async throws {
        try await run(["new-session", "-d", "-s", name, "-x", String(width), "-y", String(height), command])
    }

    /// Types `keys` (tmux key names, or literal text with `literal`).
    public func send(_ keys: String..., literal: Bool = false) async throws {
        try await run(["send-keys", "-t", name] + (literal ? ["-l"] : []) + keys)
    }

    /// What the pane shows now.
    public func screen() async throws -> String { try await run(["capture-pane", "-p", "-t", name]).stdout }

    /// Reads the pane until `shown` holds for it (a terminal gives no other signal that it has
    /// redrawn), at most `timeout`.
    /// - Throws: `TmuxPaneError` naming what never showed, with the screen, when it never does.
    @discardableResult
    public func waitForScreen(
        timeout: Duration = .seconds(5), _ what: String, until shown: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var screen = ""
        while ContinuousClock.now < deadline {
            screen = try await self.screen()
            if shown(screen) { return screen }
            try await Task.sleep(for: .milliseconds(25))  // between screen reads, bounded above
        }
        throw TmuxPaneError(description: "the pane never showed \(what); it showed:\n\(screen)")
    }

    /// Reads the pane until it shows `text`, at most `timeout`.
    @discardableResult
    public func waitForScreen(_ text: String, timeout: Duration = .seconds(5)) async throws -> String {
        try await waitForScreen(timeout: timeout, "'\(text)'") { $0.contains(text) }
    }

    /// Ends the tmux server.
    public func close() async { _ = try? await run(["kill-server"]) }
}

/// A pane that never showed what a test waited for.
public struct TmuxPaneError: Error, CustomStringConvertible {
    public let description: String
}
