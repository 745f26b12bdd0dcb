import CZeroMQ

/// One frame of a multipart message.
public typealias Frame = [UInt8]

/// A libzmq socket. Not thread safe: exactly one thread uses it at a time (see `SocketThread`).
public final class ZMQSocket {
    let handle: UnsafeMutableRawPointer
    /// The socket pattern.
    public let kind: ZMQSocketKind
    private var isClosed = false
    /// `inproc://` endpoints bound, unbound before closing (see `close`).
    private var inprocEndpoints: [String] = []

    /// Opens a socket of `kind` on `context`.
    /// - Throws: `ZMQError` when libzmq refuses (for example after the context was shut down).
    public init(context: ZMQContext, kind: ZMQSocketKind) throws {
        guard let handle = zmq_socket(context.handle, kind.rawValue) else {
            throw ZMQError.last("zmq_socket(\(kind))")
        }
        self.handle = handle
        self.kind = kind
    }

    deinit {
        close()
    }

    /// Closes the socket; pending outgoing messages get at most the configured linger to leave.
    ///
    /// An `inproc://` endpoint is unbound first: `zmq_unbind` frees its name in the context at
    /// once, while `zmq_close` leaves that to libzmq's reaper thread, so a service restarted in
    /// the same process (a test's device, the ZAP handler's fixed name) could find the name still
    /// taken.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        for endpoint in inprocEndpoints { zmq_unbind(handle, endpoint) }
        zmq_close(handle)
    }

    // MARK: - Endpoints

    /// Binds to `endpoint` (`ipc://`, `tcp://` or `inproc://`).
    public func bind(_ endpoint: String) throws {
        guard zmq_bind(handle, endpoint) == 0 else { throw ZMQError.last("bind \(endpoint)") }
        if endpoint.hasPrefix("inproc://") { inprocEndpoints.append(endpoint) }
    }

    /// Stops listening on `endpoint` (as bound: a resolved port, not `*`); libzmq also closes
    /// every connection it accepted there and drops what they had queued.
    public func unbind(_ endpoint: String) throws {
        guard zmq_unbind(handle, endpoint) == 0 else { throw ZMQError.last("unbind \(endpoint)") }
    }

    /// Connects to `endpoint`; libzmq reconnects by itself whenever the peer goes away.
    public func connect(_ endpoint: String) throws {
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQError.last("connect \(endpoint)") }
    }

    /// The endpoint last bound, with a wildcard port resolved (`tcp://127.0.0.1:*` becomes a real port).
    public var lastEndpoint: String {
        (try? stringOption(ZMQ_LAST_ENDPOINT)) ?? ""
    }

    // MARK: - Options

    /// Sets an integer option.
    public func setOption(_ option: Int32, _ value: Int32) throws {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int32>.size) == 0 else {
            throw ZMQError.last("zmq_setsockopt(\(option))")
        }
    }

    /// Sets a 64-bit integer option.
    public func setOption(_ option: Int32, _ value: Int64) throws {
        var value = value
        guard zmq_setsockopt(handle, option, &value, MemoryLayout<Int64>.size) == 0 else {
            throw ZMQError.last("zmq_setsockopt(\(option))")
        }
    }

    /// Sets a binary or string option.
    public func setOption(_ option: Int32, bytes: [UInt8]) throws {
        let rc = bytes.withUnsafeBytes { zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }
        guard rc == 0 else { throw ZMQError.last("zmq_setsockopt(\(option))") }
    }

    /// Reads an integer option.
    public func intOption(_ option: Int32) throws -> Int32 {
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        guard zmq_getsockopt(handle, option, &value, &size) == 0 else {
            throw ZMQError.last("zmq_getsockopt(\(option))")
        }
        return value
    }

    /// The descriptor libzmq signals when this socket's `events` may have changed
    /// (`ZMQ_FD`): edge-triggered, so read `events` until it shows nothing more to do before
    /// waiting on it again.
    public var signalDescriptor: Int32 {
        get throws { try intOption(ZMQ_FD) }
    }

    /// Whether a message waits to be received (`ZMQ_POLLIN`) and whether one can be sent
    /// without blocking (`ZMQ_POLLOUT`), from `ZMQ_EVENTS`; `(false, false)` on an error.
    public var events: (input: Bool, output: Bool) {
        let value = (try? intOption(ZMQ_EVENTS)) ?? 0
        return (value & Int32(ZMQ_POLLIN) != 0, value & Int32(ZMQ_POLLOUT) != 0)
    }

    func stringOption(_ option: Int32) throws -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        var size = buffer.count
        guard zmq_getsockopt(handle, option, &buffer, &size) == 0 else {
            throw ZMQError.last("zmq_getsockopt(\(option))")
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Milliseconds pending messages may keep the socket alive after `close` (0 drops them at once).
    public func setLinger(milliseconds: Int32) throws { try setOption(ZMQ_LINGER, milliseconds) }

    /// Queue limits in messages for each direction (0 means no limit).
    public func setHighWaterMarks(send: Int32, receive: Int32) throws {
        try setOption(ZMQ_SNDHWM, send)
        try setOption(ZMQ_RCVHWM, receive)
    }

    /// The largest inbound frame libzmq accepts; a peer that sends a bigger one is disconnected.
    public func setMaximumMessageSize(_ bytes: Int64) throws { try setOption(ZMQ_MAXMSGSIZE, bytes) }

    /// Blocking-call timeouts in milliseconds (-1 waits forever).
    public func setTimeouts(send: Int32, receive: Int32) throws {
        try setOption(ZMQ_SNDTIMEO, send)
        try setOption(ZMQ_RCVTIMEO, receive)
    }

    /// Subscribes a SUB socket to topics starting with `prefix` (empty means everything).
    public func subscribe(_ prefix: String) throws { try setOption(ZMQ_SUBSCRIBE, bytes: Array(prefix.utf8)) }

    /// Drops a subscription made with `subscribe`.
    public func unsubscribe(_ prefix: String) throws { try setOption(ZMQ_UNSUBSCRIBE, bytes: Array(prefix.utf8)) }

    /// Makes this socket a CURVE server with the given secret key (Z85, 40 characters).
    public func makeCurveServer(secretKey: String) throws {
        try setOption(ZMQ_CURVE_SERVER, Int32(1))
        try setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(secretKey.utf8))
    }

    /// The ZAP domain a CURVE server's handshakes are authenticated in: the handler sees it, so one
    /// handler can admit different keys to different sockets of its context.
    public func setZAPDomain(_ domain: String) throws { try setOption(ZMQ_ZAP_DOMAIN, bytes: Array(domain.utf8)) }

    /// Makes this socket a CURVE client of the server whose public key is `serverKey`.
    public func makeCurveClient(keyPair: CurveKeyPair, serverKey: String) throws {
        try setOption(ZMQ_CURVE_SERVERKEY, bytes: Array(serverKey.utf8))
        try setOption(ZMQ_CURVE_PUBLICKEY, bytes: Array(keyPair.publicKey.utf8))
        try setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(keyPair.secretKey.utf8))
    }

    // MARK: - Messages

    /// Sends one multipart message.
    /// - Parameter dontWait: return `false` instead of blocking when the queue is full.
    /// - Returns: `false` only when `dontWait` is set and the message could not be queued.
    @discardableResult
    public func send(_ frames: [Frame], dontWait: Bool = false) throws -> Bool {
        precondition(!frames.isEmpty, "a message has at least one frame")
        for (index, frame) in frames.enumerated() {
            var flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
            if index < frames.count - 1 { flags |= ZMQ_SNDMORE }
            let rc = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
            if rc < 0 {
                let code = zmq_errno()
                // libzmq queues the parts of a message atomically: only the first part can hit EAGAIN.
                if code == EAGAIN && index == 0 { return false }
                throw ZMQError(code: code, operation: "zmq_send(\(kind))")
            }
        }
        return true
    }

    /// Receives one whole multipart message, or `nil` when `dontWait` is set and none is waiting.
    /// - Parameter userID: put the connection's ZAP user id (`User-Id` metadata: for a CURVE
    ///   peer vouched for by a `CurveAuthenticator`, its public key) in front as an extra first
    ///   frame, empty when there is none.
    public func receive(dontWait: Bool = false, userID: Bool = false) throws -> [Frame]? {
        // Room for an event's two frames (topic, envelope), so the second does not regrow it.
        var frames: [Frame] = []
        frames.reserveCapacity(2)
        var user: Frame?
        var message = zmq_msg_t()
        zmq_msg_init(&message)
        defer { zmq_msg_close(&message) }
        repeat {
            let rc = zmq_msg_recv(&message, handle, dontWait ? ZMQ_DONTWAIT : 0)
            if rc < 0 {
                // Checked before an error is made: every drained socket ends its batch here.
                let code = zmq_errno()
                if code == EAGAIN && frames.isEmpty { return nil }
                throw ZMQError(code: code, operation: "zmq_msg_recv(\(kind))")
            }
            // A ROUTER's routing-id frame is made locally and carries no metadata; the peer's frames do.
            if userID && user == nil, let property = zmq_msg_gets(&message, "User-Id") {
                user = Array(String(cString: property).utf8)
            }
            let size = zmq_msg_size(&message)
            if size == 0 {
                frames.append([])
            } else {
                let base = zmq_msg_data(&message)!.assumingMemoryBound(to: UInt8.self)
                frames.append(Array(UnsafeBufferPointer(start: base, count: size)))
            }
        } while zmq_msg_more(&message) != 0
        return userID ? [user ?? []] + frames : frames
    }

    /// Starts socket-event monitoring onto an `inproc://` PAIR endpoint (zmq_socket_monitor(3)).
    public func monitor(endpoint: String, events: Int32) throws {
        guard zmq_socket_monitor(handle, endpoint, events) == 0 else {
            throw ZMQError.last("zmq_socket_monitor \(endpoint)")
        }
    }
}
