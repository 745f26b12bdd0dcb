/// Why a command got no usable answer.
public enum CommandClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The service refused the command.
    case refused(CommandError)
    /// No reply after every attempt.
    case unreachable(endpoint: String, attempts: Int, timeout: Duration)
    /// The reply was not a valid reply.
    case malformedReply(String)
    /// The client was closed.
    case closed
    /// No socket could be opened for the endpoint (a bad endpoint, or the context shut down).
    case socket(endpoint: String, reason: String)
    /// The request is larger than any service takes; it was not sent.
    case tooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .refused(let error): error.message
        case .unreachable(let endpoint, let attempts, let timeout):
            "no reply from \(endpoint) after \(attempts) attempt\(attempts == 1 ? "" : "s") of \(timeout.milliseconds) ms"
        case .malformedReply(let reason): "malformed reply: \(reason)"
        case .closed: "the command client is closed"
        case .socket(let endpoint, let reason): "cannot open a socket to \(endpoint): \(reason)"
        case .tooLarge(let bytes, let limit):
            "the request is \(bytes) bytes, over the \(limit)-byte limit of a command (not sent)"
        }
    }
}

extension Duration {
    /// Whole milliseconds.
    public var milliseconds: Int64 {
        components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
    }
}
