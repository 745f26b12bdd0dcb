import CZeroMQ
import Foundation

/// The one libzmq context of a process: it owns the I/O threads every socket uses.
///
/// libzmq documents contexts as thread safe (zmq_ctx_new(3): "A ØMQ context is thread safe and
/// may be shared among as many application threads as necessary"), and the handle is never
/// reassigned after `init`, so sharing this object across tasks and threads is safe.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// How long each socket's thread of this process keeps looking for input after it last
    /// worked before it sleeps (`IdleSpin`); zero sleeps at once.
    public let idleSpin: Duration

    /// Creates a context.
    /// - Parameters:
    ///   - ioThreads: libzmq background I/O threads (one is plenty below a gigabit).
    ///   - idleSpin: see `idleSpin`; a service takes it from `bus.idle_spin_us`.
    /// - Throws: `ZMQError` when libzmq cannot create it.
    public init(
        ioThreads: Int32 = 1,
        idleSpin: Duration = .microseconds(BusLimits.defaultIdleSpinMicroseconds)
    ) throws {
        self.idleSpin = idleSpin
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads)
        // Hearth processes open a handful of sockets; the default limit of 1023 is plenty but the
        // blocky flag keeps zmq_ctx_term from waiting forever on sockets left with infinite linger.
        zmq_ctx_set(handle, ZMQ_BLOCKY, 0)
        self.handle = handle
    }

    /// Makes every blocking call on this context's sockets return `ETERM`; sockets must still be closed.
    public func shutdown() {
        zmq_ctx_shutdown(handle)
    }

    /// Destroys the context once every socket is closed, blocking the calling thread until
    /// lingering messages have left. Call once, at the very end of a process, off the
    /// cooperative pool (`terminate()` does that for you).
    public func terminateBlocking() {
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// Terminates the context on a throwaway thread, so the wait for lingering messages to leave
    /// never blocks the cooperative pool. Call once every socket is closed.
    public func terminate() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                self.terminateBlocking()
                done.resume()
            }
            thread.name = "zmq_ctx_term"
            thread.start()
        }
    }

    /// The libzmq version this process is linked against, such as `4.3.4`.
    public static var libraryVersion: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
