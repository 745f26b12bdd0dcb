import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps one subscriber that stopped reading from costing the bus more than `budget` of memory:
/// the ZeroMQ guide's slow-subscriber detection, done where the queue grows.
///
/// libzmq queues what each subscriber has not taken (up to its high-water mark of 100,000
/// events, which a live subscriber needs for bursts: with 512 the bus benchmark lost events and
/// stalled), and keeps no count of bytes. So the bus watches its own resident memory: every
/// `checkEvery` bytes forwarded (and at least twice a second), if it holds more than `budget`
/// above what it held when it started, each subscriber connection whose kernel send queue is
/// full (`TIOCOUTQ`: the peer has not read what is already in flight) is shut down. libzmq then
/// closes that connection and frees what it queued for it; the drop is logged and counted. A
/// subscriber that keeps up never has a full send queue, so it is never dropped; one that was
/// dropped may connect again (and replays what it missed, as after any gap).
///
/// With this, one subscriber that never reads held `hearth-bus` to its start plus about
/// `budget` (`BusServiceTests`); before, it grew to 1.6 GB.
struct StuckSubscribers {
    /// Memory above the start that the bus may hold for subscribers before it drops stuck ones.
    static let budget = 128 * 1024 * 1024
    /// How many forwarded bytes between looks at memory (a look reads `/proc/self/statm`).
    static let checkEvery = 8 * 1024 * 1024

    private var connections: Set<Int32> = []
    private let baseline: Int
    private var forwardedSinceCheck = 0
    private var lastCheck = ContinuousClock.now
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
        baseline = Self.residentBytes() ?? 0
    }

    /// A subscriber connected on descriptor `fd` (the socket monitor's `ACCEPTED`).
    mutating func connected(_ fd: Int32) { connections.insert(fd) }

    /// A connection on `fd` ended (`DISCONNECTED`, `CLOSED`).
    mutating func disconnected(_ fd: Int32) { connections.remove(fd) }

    /// Counts `bytes` forwarded; returns whether it is time to look at memory.
    mutating func forwarded(_ bytes: Int) -> Bool {
        forwardedSinceCheck += bytes
        return forwardedSinceCheck >= Self.checkEvery || ContinuousClock.now - lastCheck >= .milliseconds(500)
    }

    /// Drops the stuck subscribers if the bus holds more than its budget.
    /// - Returns: how many connections were dropped.
    mutating func check() -> Int {
        forwardedSinceCheck = 0
        lastCheck = .now
        guard let resident = Self.residentBytes(), resident - baseline > Self.budget else { return 0 }
        var dropped = 0
        for fd in connections {
            guard let waiting = Self.unsent(fd), let capacity = Self.sendBuffer(fd), waiting * 10 >= capacity * 9
            else { continue }
            logger.warning(
                "hearth-bus: dropped a subscriber that stopped reading (connection \(fd): \(waiting) bytes unread in the socket, the bus \((resident - baseline) / 1_048_576) MiB over its start)"
            )
            shutdown(fd, Int32(SHUT_RDWR))
            connections.remove(fd)
            dropped += 1
        }
        return dropped
    }

    /// This process's resident memory, from `/proc/self/statm`.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Bytes written to `fd` that the peer has not read.
    private static func unsent(_ fd: Int32) -> Int? {
        var bytes: Int32 = 0
        return ioctl(fd, UInt(TIOCOUTQ), &bytes) == 0 ? Int(bytes) : nil
    }

    /// The socket's send buffer (`SO_SNDBUF`).
    private static func sendBuffer(_ fd: Int32) -> Int? {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0 ? Int(size) : nil
    }
}
