import Foundation
import Synchronization

/// A real child process (a Hearth executable) with its output captured line by line.
public final class ChildProcess: Sendable {
    /// Where `swift build` put the executables: `HEARTH_BIN_DIR`, else beside the test binary.
    public static let binaryDirectory: String = {
        if let directory = ProcessInfo.processInfo.environment["HEARTH_BIN_DIR"] { return directory }
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var directory = (testBinary as NSString).deletingLastPathComponent
        // On Linux the test runner is `<bin>/HearthPackageTests.xctest`.
        while !directory.isEmpty && directory != "/"
            && !FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("hearth-bus"))
        {
            directory = (directory as NSString).deletingLastPathComponent
        }
        return directory
    }()

    /// Standard output, line by line.
    public let output = LineLog()
    /// Standard error, line by line.
    public let errors = LineLog()
    /// The process id.
    public let pid: Int32
    /// The executable's name, for messages.
    public let name: String

    private let process: Process
    private let exited = ExitStatus()

    private final class ExitStatus: Sendable {
        let signal = Mutex<(Int32?, [CheckedContinuation<Int32, Never>])>((nil, []))

        func set(_ status: Int32) {
            let waiters = signal.withLock { state -> [CheckedContinuation<Int32, Never>] in
                state.0 = status
                defer { state.1.removeAll() }
                return state.1
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }
    }

    /// Starts `executable` (a name in `binaryDirectory`, or a path) with `arguments`.
    /// - Parameter environment: added to this process's environment.
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: executable.hasPrefix("/")
                ? executable : (Self.binaryDirectory as NSString).appendingPathComponent(executable))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        let output = self.output
        let errors = self.errors
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil } else { output.append(Array(data)) }
        }
        stderr.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil } else { errors.append(Array(data)) }
        }
        let exited = self.exited
        process.terminationHandler = { process in
            exited.set(
                process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus)
        }
        try process.run()
        self.process = process
        self.pid = process.processIdentifier
        self.name = (executable as NSString).lastPathComponent
    }

    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
    }

    /// Sends `signal` (SIGTERM by default).
    public func signal(_ signal: Int32 = SIGTERM) {
        kill(pid, signal)
    }

    /// Whether the process is still running.
    public var isRunning: Bool { exited.signal.withLock { $0.0 == nil } }

    /// Waits for the process to end: its exit status (negative: killed by that signal), or `nil`
    /// if it was still running after `timeout`.
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
                    let status = self.exited.signal.withLock { state -> Int32? in
                        if let status = state.0 { return status }
                        state.1.append(continuation)
                        return nil
                    }
                    if let status { continuation.resume(returning: status) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Runs `executable` to completion and returns its status and output.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try ChildProcess(executable, arguments, environment: environment)
        let status = await child.waitForExit(timeout: timeout)
        if status == nil { child.signal(SIGKILL) }
        // The pipes may deliver their last bytes just after the exit is reported.
        _ = await child.output.waitForLine(timeout: .milliseconds(50)) { _ in false }
        return (status, child.output.text, child.errors.text)
    }
}
