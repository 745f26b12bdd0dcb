import Foundation
import HearthBus

/// Proof that this process is the only instance of one service on one `HEARTH_HOME`.
///
/// Two instances of a service on one home would share its database and endpoints with separate
/// in-memory counters and clocks (operation ids could collide), and libzmq's ipc listener
/// silently takes over a socket path that is already bound. So every service process takes an
/// exclusive `flock` on `run/<service>.lock` before it binds anything, and holds it until it
/// exits. The kernel releases the lock when the process dies however it dies, so a crashed
/// instance never blocks a restart; the pid written into the file only names the holder.
public final class ServiceLock: Sendable {
    /// The lock file's path.
    public let path: String
    private let descriptor: Int32

    /// Why a lock could not be taken.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another live process holds it.
        case alreadyRunning(service: String, home: String, pid: Int32?)
        /// The lock file could not be opened or locked.
        case system(SystemCallError)

        public var description: String {
            switch self {
            case .alreadyRunning(let service, let home, let pid):
                "hearth-\(service) already runs for \(home)" + (pid.map { " (pid \($0))" } ?? "")
            case .system(let error): "\(error)"
            }
        }
    }

    /// Takes the lock of `service` in `configuration`'s run directory, or fails at once.
    /// - Throws: `Failure.alreadyRunning` naming the holder's pid when another process holds it.
    public init(service: String, configuration: HearthConfiguration) throws(Failure) {
        path = (configuration.runDirectory as NSString).appendingPathComponent("\(service).lock")
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .system(.last("open \(path)")) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            defer { close(descriptor) }
            guard code == EWOULDBLOCK else { throw .system(SystemCallError(code: code, operation: "flock \(path)")) }
            throw .alreadyRunning(service: service, home: configuration.home, pid: Self.holder(descriptor))
        }
        let pid = Array("\(getpid())\n".utf8)
        guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, pid, pid.count, 0) == pid.count else {
            let error = SystemCallError.last("write \(path)")
            close(descriptor)
            throw .system(error)
        }
        self.descriptor = descriptor
    }

    /// The pid the holder wrote, if it is there yet.
    private static func holder(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    deinit {
        // Closing the descriptor releases the lock; the file stays (removing it could let a
        // third process lock a new file while a second still holds the old one).
        close(descriptor)
    }
}
