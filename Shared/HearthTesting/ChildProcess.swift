import Foundation
import HearthBus
import Synchronization

/// A real child process (a Hearth executable) with its output captured line by line.
///
/// Started with `posix_spawn` as a shell would start it: an empty signal mask and default signal
/// handling (threads of the cooperative pool block nearly every signal, and a child would inherit
/// that). Output is read and the exit reaped by plain threads, so no dispatch source ever watches
/// a descriptor that might be closed and reused underneath it.
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
    public let pid: pid_t
    /// The executable's name, for messages.
    public let name: String

    private let exited = AsyncLatch<Int32>()

    /// Starts `executable` (a name in `binaryDirectory`, or a path) with `arguments`.
    /// - Parameter environment: added to this process's environment.
    /// - Throws: `ChildProcessError` when the executable cannot be started.
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:]) async throws {
        let path =
            executable.hasPrefix("/")
            ? executable : (Self.binaryDirectory as NSString).appendingPathComponent(executable)
        name = (executable as NSString).lastPathComponent
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        guard pipe(&stdoutPipe) == 0, pipe(&stderrPipe) == 0 else { throw ChildProcessError.spawn(path, errno) }
        // Other children must not inherit these pipes (they would hold them open past our child).
        for fd in stdoutPipe + stderrPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard rc == 0 else {
            close(stdoutPipe[0])
            close(stderrPipe[0])
            throw ChildProcessError.spawn(path, rc)
        }
        pid = child
        let spawned = child
        Self.drain(stdoutPipe[0], into: output)
        Self.drain(stderrPipe[0], into: errors)
        let exited = self.exited
        Thread {
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (they are macros in C).
            let signal = status & 0x7F
            exited.set(signal == 0 ? (status >> 8) & 0xFF : -signal)
        }.start()
    }

    deinit {
        if exited.value == nil { kill(pid, SIGKILL) }
    }

    /// Reads a pipe until the child closes it.
    private static func drain(_ fd: Int32, into log: LineLog) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count > 0 {
                    log.append(Array(buffer[0..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(fd)
            log.finish()
        }.start()
    }

    /// Sends `signal` (SIGTERM by default).
    public func signal(_ signal: Int32 = SIGTERM) {
        kill(pid, signal)
    }

    /// Whether the process is still running.
    public var isRunning: Bool { exited.value == nil }

    /// A memory figure of the process from `/proc/PID/status`, in bytes: `VmRSS` (resident now),
    /// `VmHWM` (the peak resident so far).
    public func memory(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1_024
    }

    /// Waits for the process to end: its exit status (negative: killed by that signal), or `nil`
    /// if it was still running after `timeout`.
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        await exited.wait(timeout: timeout)
    }

    /// Runs `executable` to completion and returns its status and all its output. One still
    /// running after `timeout` gets SIGTERM and 5 s to clean up (a script's `trap … EXIT` stops
    /// what it started), then SIGKILL: killed outright, a script left its stack running, and
    /// those processes slowed every test after it.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try await ChildProcess(executable, arguments, environment: environment)
        let status = await child.waitForExit(timeout: timeout)
        if status == nil {
            child.signal(SIGTERM)
            if await child.waitForExit(timeout: .seconds(5)) == nil { child.signal(SIGKILL) }
        }
        await child.output.waitUntilFinished(timeout: .seconds(5))
        await child.errors.waitUntilFinished(timeout: .seconds(5))
        return (status, child.output.text, child.errors.text)
    }
}

/// A child process that could not be started.
public enum ChildProcessError: Error, CustomStringConvertible {
    case spawn(String, Int32)

    public var description: String {
        switch self {
        case .spawn(let path, let code): "cannot start \(path): \(String(cString: strerror(code)))"
        }
    }
}
