import CZeroMQ
import Logging

/// A ZAP handler (ZeroMQ RFC 27) for the CURVE server sockets of one context: it sees each
/// connecting client's public key, lets `policy` accept or refuse it, and names an accepted
/// connection by its key (Z85), so every message from it carries that key as its `User-Id`
/// (`SocketThread(receiveUserID: true)`). A peer can claim any device id in a message, but not
/// a key it does not hold.
///
/// Bind it before the CURVE server socket takes connections, and run `run()` while serving: a
/// handshake waits for the handler's answer.
public final class CurveAuthenticator: Sendable {
    /// Decides whether a client with this public key (Z85), from this address, may connect to a
    /// server socket of this ZAP domain (`ZMQ_ZAP_DOMAIN`; empty unless the socket sets one, as
    /// `CommandServer(curveDomain:)` does: one handler serves every server socket of a context).
    public typealias Policy = @Sendable (_ clientKey: String, _ address: String, _ domain: String) -> Bool

    private let socket: SocketThread<[Frame]>
    private let policy: Policy
    private let logger: Logger

    /// Binds `inproc://zeromq.zap.01` in `context` (one handler per context).
    /// - Throws: `ZMQError` if another handler is bound there already.
    public init(context: ZMQContext, logger: Logger, policy: @escaping Policy = { _, _, _ in true }) throws {
        self.policy = policy
        self.logger = logger
        socket = try SocketThread(context: context, kind: .router, name: "ZAP handler") { socket in
            try socket.setLinger(milliseconds: 0)
            try socket.bind("inproc://zeromq.zap.01")
        }
    }

    /// Answers ZAP requests until closed.
    public func run() async {
        for await request in socket.incoming {
            // [routing id, empty delimiter, version, request id, domain, address, identity, mechanism, credentials…]
            guard request.count >= 8, request[1].isEmpty else { continue }
            let requestID = request[3]
            let reply = { (status: String, text: String, user: String) in
                try? self.socket.send([
                    request[0], [], Array("1.0".utf8), requestID, Array(status.utf8), Array(text.utf8),
                    Array(user.utf8), [],
                ])
            }
            guard String(decoding: request[2], as: UTF8.self) == "1.0" else {
                reply("400", "unsupported ZAP version", "")
                continue
            }
            let domain = String(decoding: request[4], as: UTF8.self)
            let address = String(decoding: request[5], as: UTF8.self)
            let mechanism = String(decoding: request[7], as: UTF8.self)
            guard mechanism == "CURVE", request.count >= 9, request[8].count == 32, let key = Self.z85(request[8])
            else {
                reply("400", "only CURVE clients", "")
                continue
            }
            if policy(key, address, domain) {
                reply("200", "OK", key)
            } else {
                logger.notice(
                    "refused a CURVE client from \(address) with key \(key)\(domain.isEmpty ? "" : " (\(domain))")")
                reply("400", "key not allowed", "")
            }
        }
    }

    /// Stops answering and closes the handler socket.
    public func close() async {
        await socket.close()
    }

    /// A 32-byte key in Z85 text.
    static func z85(_ key: Frame) -> String? {
        var text = [CChar](repeating: 0, count: 41)
        let encoded = key.withUnsafeBufferPointer { zmq_z85_encode(&text, $0.baseAddress, 32) }
        guard encoded != nil else { return nil }
        return String(decoding: text.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
