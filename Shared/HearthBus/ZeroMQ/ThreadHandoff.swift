/// Carries a value that is not `Sendable` (a freshly configured libzmq socket, or a few) from the
/// thread that made it to the one thread that will own it from then on (the bus proxy's sockets).
///
/// Why the unchecked `Sendable` is safe: libzmq allows a socket to move between threads provided
/// a full memory barrier separates the uses (zmq(7)). The creating thread hands the value over
/// and never touches it again; the thread that will own it is started afterwards, and
/// `Thread.start()` is itself such a barrier. Only the new thread calls `take()`, once, and owns
/// the value from then on.
public final class ThreadHandoff<Value>: @unchecked Sendable {
    private var value: Value?

    public init(_ value: Value) { self.value = value }

    /// The value, for the receiving thread, exactly once.
    public func take() -> Value {
        defer { value = nil }
        return value!
    }
}
