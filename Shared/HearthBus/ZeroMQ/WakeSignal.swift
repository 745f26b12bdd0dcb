import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// An eventfd that lets any thread wake a socket thread blocked in `zmq_poll`.
///
/// `signal()` is a single non-blocking `write(2)`, so it is safe to call from the cooperative pool.
public final class WakeSignal: Sendable {
    /// The descriptor to poll for input.
    public let fileDescriptor: Int32

    /// - Throws: `SystemCallError` when the kernel refuses an eventfd.
    public init() throws {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw SystemCallError.last("eventfd") }
        fileDescriptor = fd
    }

    deinit {
        Glibc.close(fileDescriptor)
    }

    /// Wakes the poller.
    public func signal() {
        var one: UInt64 = 1
        _ = write(fileDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Clears pending wake-ups; call after the poller reported the descriptor readable.
    public func drain() {
        var value: UInt64 = 0
        _ = read(fileDescriptor, &value, MemoryLayout<UInt64>.size)
    }
}
