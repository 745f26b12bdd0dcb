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
            let queued = try frame.withUnsafeBytes { bytes in
                try sendPart(bytes, first: index == 0, more: index < frames.count - 1, dontWait: dontWait)
            }
            if !queued { return false }
        }
        return true
    }

    /// Sends a two-frame message (a topic and an event) from borrowed bytes, with no arrays made
    /// for it; otherwise as `send(_:dontWait:)`.
    @discardableResult
    public func send(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, dontWait: Bool = false
    )
        throws -> Bool
    {
        guard try sendPart(first, first: true, more: true, dontWait: dontWait) else { return false }
        return try sendPart(second, first: false, more: false, dontWait: dontWait)
    }

    /// libzmq copies the bytes; returns `false` when the message's first part met a full queue.
    private func sendPart(_ bytes: UnsafeRawBufferPointer, first: Bool, more: Bool, dontWait: Bool) throws -> Bool {
        var flags: Int32 = dontWait ? ZMQ_DONTWAIT : 0
        if more { flags |= ZMQ_SNDMORE }
        guard zmq_send(handle, bytes.baseAddress, bytes.count, flags) < 0 else { return true }
        let code = zmq_errno()
        // libzmq queues the parts of a message atomically: only the first part can hit EAGAIN.
        if code == EAGAIN && first { return false }
        throw ZMQError(code: code, operation: "zmq_send(\(kind))")
    }

    /// Receives one whole multipart message, or `nil` when `dontWait` is set and none is waiting.
    /// - Parameter userID: put the connection's ZAP user id (`User-Id` metadata: for a CURVE
    ///   peer vouched for by a `CurveAuthenticator`, its public key) in front as an extra first
    ///   frame, empty when there is none.
    public func receive(dontWait: Bool = false, userID: Bool = false) throws -> [Frame]? {
        var held = ReceivedMessages()
        guard try held.receive(from: self, dontWait: dontWait) else { return nil }
        return held.read(0) { $0.frames(userID: userID) }
    }

    /// Starts socket-event monitoring onto an `inproc://` PAIR endpoint (zmq_socket_monitor(3)).
    public func monitor(endpoint: String, events: Int32) throws {
        guard zmq_socket_monitor(handle, endpoint, events) == 0 else {
            throw ZMQError.last("zmq_socket_monitor \(endpoint)")
        }
    }
}

/// Messages received from a socket and still held in libzmq's buffers, so they can be read (and
/// decoded) in place after the socket's lock is released, with no copy into Swift arrays: a
/// `SocketThread` receives a batch under its lock and reads it outside. Its storage is kept and
/// reused from batch to batch; `removeAll()` (or the end of its life) gives the messages back.
///
/// `@unchecked Sendable`, safe because: the value is `~Copyable` and owns its storage alone, so
/// sending it moves that ownership and every change needs exclusive (`mutating`) access, which
/// the compiler enforces; the only shared access, `read`, just reads the held messages
/// (`zmq_msg_data`, `zmq_msg_size`, `zmq_msg_gets`). A received `zmq_msg_t` no longer refers to
/// its socket, and libzmq counts references to shared message bodies atomically, so messages
/// may be read and closed on any thread. (Being `Sendable` also keeps a `SocketThread`'s pass,
/// which receives into it under the socket's lock, from tying the lock's state to the loop.)
public struct ReceivedMessages: ~Copyable, @unchecked Sendable {
    private var parts: UnsafeMutablePointer<zmq_msg_t>
    private var capacity: Int
    private var partCount = 0
    /// Where each message's parts begin in `parts`.
    private var starts: [Int] = []

    public init() {
        capacity = 8
        parts = .allocate(capacity: capacity)
    }

    deinit {
        for index in 0..<partCount { zmq_msg_close(parts + index) }
        parts.deallocate()
    }

    /// How many whole messages are held.
    public var count: Int { starts.count }

    /// Receives one whole multipart message from `socket` and holds it.
    /// - Returns: `false` when `dontWait` is set and none is waiting.
    /// - Throws: `ZMQError`; a message cut short is not held.
    public mutating func receive(from socket: ZMQSocket, dontWait: Bool) throws -> Bool {
        let first = partCount
        repeat {
            if partCount == capacity { grow() }
            zmq_msg_init(parts + partCount)
            if zmq_msg_recv(parts + partCount, socket.handle, dontWait ? ZMQ_DONTWAIT : 0) < 0 {
                // Checked before an error is made: every drained socket ends its batch here.
                let code = zmq_errno()
                let nothingYet = partCount == first
                for index in first...partCount { zmq_msg_close(parts + index) }
                partCount = first
                if code == EAGAIN && nothingYet { return false }
                throw ZMQError(code: code, operation: "zmq_msg_recv(\(socket.kind))")
            }
            partCount += 1
        } while zmq_msg_more(parts + partCount - 1) != 0
        starts.append(first)
        return true
    }

    /// Lends message `index` to `body`.
    public func read<Result>(_ index: Int, _ body: (borrowing ReceivedMessage) throws -> Result) rethrows -> Result {
        let end = index + 1 < starts.count ? starts[index + 1] : partCount
        return try body(ReceivedMessage(parts: parts + starts[index], count: end - starts[index]))
    }

    /// Gives every held message back to libzmq, keeping the storage.
    public mutating func removeAll() {
        for index in 0..<partCount { zmq_msg_close(parts + index) }
        partCount = 0
        starts.removeAll(keepingCapacity: true)
    }

    private mutating func grow() {
        let grown = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: capacity * 2)
        // libzmq messages may be moved bytewise (zmq_msg_move copies the struct).
        grown.moveInitialize(from: parts, count: partCount)
        parts.deallocate()
        parts = grown
        capacity *= 2
    }
}

/// One received multipart message whose frames are still libzmq's, lent to a closure.
public struct ReceivedMessage: ~Copyable {
    fileprivate let parts: UnsafeMutablePointer<zmq_msg_t>
    /// How many frames the message has (at least one).
    public let count: Int

    /// The bytes of frame `index`, valid while the message is lent.
    public subscript(index: Int) -> UnsafeRawBufferPointer {
        precondition(index >= 0 && index < count, "frame \(index) of \(count)")
        let size = zmq_msg_size(parts + index)
        guard size > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: zmq_msg_data(parts + index), count: size)
    }

    /// The connection's ZAP user id (`User-Id` metadata: for a CURVE peer vouched for by a
    /// `CurveAuthenticator`, its public key), or `nil` when there is none. A ROUTER's routing-id
    /// frame is made locally and carries no metadata; the peer's frames do.
    public var userID: Frame? {
        for index in 0..<count {
            if let property = zmq_msg_gets(parts + index, "User-Id") { return Array(String(cString: property).utf8) }
        }
        return nil
    }

    /// The address of the connection's other end (`Peer-Address` metadata: the IP address of a
    /// tcp peer), or `nil` when there is none (ipc, inproc).
    public var peerAddress: Frame? {
        for index in 0..<count {
            if let property = zmq_msg_gets(parts + index, "Peer-Address") {
                return Array(String(cString: property).utf8)
            }
        }
        return nil
    }

    /// The frames copied out; with `userID`, the user id goes in front as an extra first frame,
    /// and with `peerAddress` the peer's address after it (each empty when there is none).
    public func frames(userID: Bool = false, peerAddress: Bool = false) -> [Frame] {
        var frames: [Frame] = []
        frames.reserveCapacity(count + 2)
        if userID { frames.append(self.userID ?? []) }
        if peerAddress { frames.append(self.peerAddress ?? []) }
        for index in 0..<count { frames.append(Array(self[index])) }
        return frames
    }
}
