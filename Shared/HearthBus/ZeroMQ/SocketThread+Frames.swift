import Logging

/// The error `SocketThread.send` throws after the thread began closing.
public enum SocketThreadError: Error, Sendable, CustomStringConvertible {
    case closed(String)

    public var description: String {
        switch self {
        case .closed(let name): "\(name) is closed"
        }
    }
}

extension SocketThread where Message == [Frame] {
    /// Lets a socket thread see each message first, on the socket's own thread.
    /// Return `true` when the message was consumed and must not reach `incoming`.
    public typealias Interceptor = @Sendable ([Frame]) -> Bool

    /// A socket whose messages arrive as copied frames (see the designated initialiser).
    /// - Parameters:
    ///   - intercept: optional first look at each received message (see `Interceptor`).
    ///   - receiveUserID: deliver each message with its connection's ZAP user id as an extra
    ///     first frame (see `ReceivedMessage.userID`).
    ///   - receivePeerAddress: then the address of the connection's other end (see
    ///     `ReceivedMessage.peerAddress`), as another extra frame.
    public convenience init(
        context: ZMQContext,
        kind: ZMQSocketKind,
        name: String,
        receiveBuffer: Int = 10_000,
        logger: Logger = Logger(label: "hearth.socket"),
        intercept: Interceptor? = nil,
        tick: Tick? = nil,
        receiveUserID: Bool = false,
        receivePeerAddress: Bool = false,
        urgentInput: Bool = true,
        setUp: (ZMQSocket) throws -> Void
    ) throws {
        try self.init(
            context: context, kind: kind, name: name, receiveBuffer: receiveBuffer, logger: logger, tick: tick,
            urgentInput: urgentInput,
            read: { message in
                let frames = message.frames(userID: receiveUserID, peerAddress: receivePeerAddress)
                return intercept?(frames) == true ? nil : frames
            },
            setUp: setUp)
    }
}
