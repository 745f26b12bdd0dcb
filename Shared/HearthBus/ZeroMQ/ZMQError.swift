import CZeroMQ

/// A failed libzmq call, carrying the C error number and libzmq's own explanation of it.
public struct ZMQError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value libzmq reported.
    public let code: Int32
    /// The libzmq function (and its subject, such as an endpoint) that failed.
    public let operation: String
    /// `zmq_strerror` text for `code`.
    public let message: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
        self.message = String(cString: zmq_strerror(code))
    }

    /// The error libzmq left in `errno` for the call that just failed.
    static func last(_ operation: String) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation)
    }

    public var description: String { "\(operation): \(message)" }

    /// The call would have blocked (`EAGAIN`).
    public var wouldBlock: Bool { code == EAGAIN }
    /// The context was shut down or terminated (`ETERM`).
    public var contextTerminated: Bool { code == ETERM }
}
