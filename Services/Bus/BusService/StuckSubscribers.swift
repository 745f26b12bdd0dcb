import CMalloc
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
/// above what it held when it started, each subscriber connection that is stuck is shut down.
/// libzmq then closes that connection and frees what it queued for it; the drop is logged and
/// counted, and the freed memory is given back to the system (`malloc_trim`). A subscriber that
/// keeps up never has a stuck connection, so it is never dropped; one that was dropped may
/// connect again (and replays what it missed, as after any gap).
///
/// A connection is stuck when its kernel send queue (`TIOCOUTQ`: written, not yet read by the
/// peer) is full, or has held the same bytes, more than none, for `stallLimit`: a reader takes
/// from it and the bus writes more, so the count moves. The second test is the one that works
/// whatever the event size: with 200 KB events the queue fills to its buffer, but with 2 KB ones
/// the kernel stopped the bus's writes at 53,248 of 212,992 bytes, so a never-reading subscriber
/// of small events was never taken for stuck and `hearth-bus` grew to 404 MB (600+ MB with
/// 2–16 KB events, issue 62), and kept it after the subscriber left. A live reader that cannot
/// keep up while the bus is over its budget may look the same (its queue topped up to the same
/// count at each look); the two seconds keep a reader that was only short of CPU for a moment.
///
/// With this, one subscriber that never reads held `hearth-bus` to its start plus about
/// `budget` (`ResourceBoundsTests`, with 200 KB and with 2 KB events); before, it grew to 1.6 GB.
struct StuckSubscribers {
    /// Memory above the start that the bus may hold for subscribers before it drops stuck ones.
    static let budget = 128 * 1024 * 1024
    /// How many forwarded bytes between looks at memory (a look reads `/proc/self/statm`).
    static let checkEvery = 8 * 1024 * 1024
    /// How long a connection's unread bytes may stay the same before it counts as stuck.
    static let stallLimit = Duration.seconds(2)

    /// Each connection's unread bytes at the last look, and since when they have been that.
    private var connections: [Int32: (unsent: Int, since: ContinuousClock.Instant)] = [:]
    private let baseline: Int
    private var forwardedSinceCheck = 0
    private var lastCheck = ContinuousClock.now
    /// Whether memory was freed (a connection dropped or gone) since it was last given back.
    private var freed = false
    private var lastTrim = ContinuousClock.now
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
        baseline = Self.residentBytes() ?? 0
    }

    /// A subscriber connected on descriptor `fd` (the socket monitor's `ACCEPTED`).
    mutating func connected(_ fd: Int32) { connections[fd] = (0, .now) }

    /// A connection on `fd` ended (`DISCONNECTED`, `CLOSED`).
    mutating func disconnected(_ fd: Int32) {
        if connections.removeValue(forKey: fd) != nil { freed = true }
    }

    /// Counts `bytes` forwarded; returns whether it is time to look at memory.
    mutating func forwarded(_ bytes: Int) -> Bool {
        forwardedSinceCheck += bytes
        return forwardedSinceCheck >= Self.checkEvery || ContinuousClock.now - lastCheck >= .milliseconds(500)
    }

    /// Notes each connection's unread bytes, drops the stuck ones if the bus holds more than its
    /// budget, and gives back what libzmq freed since the last look.
    /// - Returns: how many connections were dropped.
    mutating func check() -> Int {
        let now = ContinuousClock.now
        forwardedSinceCheck = 0
        lastCheck = now
        let resident = Self.residentBytes() ?? baseline
        // What libzmq freed of a closed connection's queue stays in glibc's arenas (404 MB after
        // a stuck subscriber left) until trimmed: after a connection goes, and every few seconds
        // while the bus is over its budget (libzmq frees a dropped queue after the drop is seen).
        if freed || (resident - baseline > Self.budget && now - lastTrim >= .seconds(5)) {
            freed = false
            lastTrim = now
            malloc_trim(0)
        }
        var stuck: [Int32] = []
        for (fd, last) in connections {
            guard let unsent = Self.unsent(fd) else { continue }
            let since = unsent == last.unsent ? last.since : now
            connections[fd] = (unsent, since)
            let full = Self.sendBuffer(fd).map { unsent * 10 >= $0 * 9 } ?? false
            if unsent > 0 && (full || now - since >= Self.stallLimit) { stuck.append(fd) }
        }
        guard !stuck.isEmpty, resident - baseline > Self.budget else { return 0 }
        for fd in stuck {
            logger.warning(
                "hearth-bus: dropped a subscriber that stopped reading (connection \(fd): \(connections[fd]?.unsent ?? 0) bytes unread in the socket, the bus \((resident - baseline) / 1_048_576) MiB over its start)"
            )
            shutdown(fd, Int32(SHUT_RDWR))
            connections.removeValue(forKey: fd)
        }
        freed = true
        return stuck.count
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
