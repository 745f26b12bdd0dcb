import Foundation
import Logging
import Synchronization

/// Sends commands to one service and waits for replies, retrying safely (Lazy Pirate).
///
/// Each attempt waits `timeout`; on silence the socket is thrown away (its queue may be stuck on
/// a dead peer), a fresh one connects, and the same request id is sent again, so the server runs
/// it at most once. Concurrent requests share one socket and are matched to replies by id.
public final class CommandClient: Sendable {
    /// The service's command endpoint.
    public let endpoint: String
    /// How long one attempt waits for its reply.
    public let timeout: Duration
    /// How many attempts a request gets.
    public let attempts: Int

    private let context: ZMQContext
    private let logger: Logger
    private let maximumMessageBytes: Int
    /// This device's keys and the server's public key, for a CURVE-encrypted link to another device.
    private let curve: (keyPair: CurveKeyPair, serverKey: String)?
    /// The DEALER socket in use; replaced after a timeout.
    private let connection = Mutex<SocketThread<[Frame]>?>(nil)
    private let pending = PendingReplies()
    private let isClosed = Atomic<Bool>(false)
    /// Request ids: unique, not secret (replies are cached per CURVE peer), so a fast generator
    /// rather than a `getrandom(2)` per request (under perf, 1.2% of the cooperative threads'
    /// samples in `hearth-bench bus` (d)).
    private let ids = Mutex(EventIDGenerator())
    private let counter = ByteCounter()
    /// Whether requests go deflated (`deflateRequests()`).
    private let deflating = Atomic<Bool>(false)

    /// Bytes of every request sent and every reply received so far (payloads as they crossed:
    /// JSON, or deflated JSON on a deflating link): what a sync reports as moved.
    public var bytesExchanged: Int { counter.total.load(ordering: .relaxed) }

    private final class ByteCounter: Sendable {
        let total = Atomic<Int>(0)
    }

    /// Requests waiting for their reply, by id, with their deadlines. Tasks register; the socket
    /// thread resumes them with the reply, or with `nil` once the deadline passes.
    private final class PendingReplies: Sendable {
        private struct Waiter {
            let continuation: CheckedContinuation<CommandReply?, Never>
            let deadline: ContinuousClock.Instant
        }

        private let waiting = Mutex<[String: Waiter]>([:])

        /// Registers a waiter unless the current task is already cancelled.
        func register(
            _ id: String, deadline: ContinuousClock.Instant, _ continuation: CheckedContinuation<CommandReply?, Never>
        ) -> Bool {
            waiting.withLock { waiting in
                if Task.isCancelled { return false }
                waiting[id] = Waiter(continuation: continuation, deadline: deadline)
                return true
            }
        }

        func resume(_ id: String, with reply: CommandReply?) {
            waiting.withLock { $0.removeValue(forKey: id) }?.continuation.resume(returning: reply)
        }

        /// Times out overdue waiters; returns milliseconds until the next deadline, if any.
        func expire() -> Int? {
            let now = ContinuousClock.now
            let (overdue, next) = waiting.withLock { waiting -> ([Waiter], ContinuousClock.Instant?) in
                let overdue = waiting.filter { $0.value.deadline <= now }
                for id in overdue.keys { waiting.removeValue(forKey: id) }
                return (Array(overdue.values), waiting.values.map(\.deadline).min())
            }
            for waiter in overdue { waiter.continuation.resume(returning: nil) }
            return next.map { Int(max(1, ($0 - now).milliseconds + 1)) }
        }
    }

    /// Creates a client; the socket connects on first use.
    public init(
        context: ZMQContext,
        endpoint: String,
        timeout: Duration = .seconds(2),
        attempts: Int = 3,
        maximumMessageBytes: Int = BusLimits.defaultMaximumMessageBytes,
        curve: (keyPair: CurveKeyPair, serverKey: String)? = nil,
        logger: Logger = Logger(label: "hearth.command-client")
    ) {
        self.curve = curve
        precondition(attempts >= 1, "a request needs at least one attempt")
        self.context = context
        self.endpoint = endpoint
        self.timeout = timeout
        self.attempts = attempts
        self.maximumMessageBytes = maximumMessageBytes
        self.logger = logger
    }

    /// From now on, each request goes deflated, and its reply comes back deflated when that makes
    /// it smaller: for a server that reads deflated requests (`CommandServer`'s
    /// `readsDeflated`; hearth-sync's peers say so in their `sync.vector` reply). A reply is read
    /// either way, by its first byte (`Deflate.streamMarker`).
    public func deflateRequests() {
        deflating.store(true, ordering: .relaxed)
    }

    /// Sends `command` and returns its result data.
    /// - Parameter id: the request id (a fresh one when `nil`); pass the same id to repeat a
    ///   request safely.
    /// - Throws: `CommandClientError.refused` with the service's error, or `.unreachable`.
    public func request(
        _ command: String,
        args: [String: JSONValue] = [:],
        id: String? = nil
    ) async throws -> JSONValue {
        let request = CommandRequest(id: id ?? ids.withLock { $0.makeID() }, command: command, arguments: args)
        var reply = try await send(request)
        // A service answering as many requests as it runs at once said `busy` without running
        // this one: the same request again after a growing pause (10 ms, then 20, … about 5 s).
        var pause = Duration.milliseconds(10)
        while case .failure(let error) = reply.result, error.code == "busy", pause <= .milliseconds(2_560) {
            try await Task.sleep(for: pause)
            pause *= 2
            reply = try await send(request)
        }
        if let parts = reply.parts { reply = try await assemble(parts) }
        switch reply.result {
        case .success(let data): return data
        case .failure(let error): throw CommandClientError.refused(error)
        }
    }

    /// Sends a prepared request and returns the whole reply.
    /// - Throws: `CommandClientError.tooLarge` without sending when the request is over the
    ///   maximum message size (a service would refuse it, and a reply without its id is no answer).
    public func send(_ request: CommandRequest) async throws -> CommandReply {
        let bytes = request.jsonBytes
        guard bytes.count <= maximumMessageBytes else {
            throw CommandClientError.tooLarge(bytes: bytes.count, limit: maximumMessageBytes)
        }
        // Deflated even when that saves nothing (a few bytes on a small request): that is how the
        // server knows to deflate the reply, where the bytes are.
        let deflated = deflating.load(ordering: .relaxed) ? await Deflate.offPoolWhenLarge(bytes, Deflate.message) : []
        let payload = deflated.isEmpty ? bytes : deflated
        let frames: [Frame] = [[], payload]
        counter.total.add(payload.count, ordering: .relaxed)
        for attempt in 1...attempts {
            guard !isClosed.load(ordering: .relaxed) else { throw CommandClientError.closed }
            let connection: SocketThread<[Frame]>
            do {
                connection = try currentConnection()
            } catch {
                throw CommandClientError.socket(endpoint: endpoint, reason: "\(error)")
            }
            if let reply = await exchange(frames, id: request.id, over: connection) {
                return reply
            }
            logger.debug("no reply from \(endpoint) (attempt \(attempt) of \(attempts))")
            await discard(connection)
        }
        throw CommandClientError.unreachable(endpoint: endpoint, attempts: attempts, timeout: timeout)
    }

    /// The reply a service holds in parts (`ReplyParts`), fetched part by part and put together.
    /// - Throws: `.malformedReply` when the parts do not make the reply their header announced.
    private func assemble(_ header: ReplyParts.Header) async throws -> CommandReply {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.bytes)
        for index in 0..<header.count {
            let part = try await request(
                ReplyParts.command, args: ["token": .string(header.token), "index": .int(Int64(index))])
            guard let text = part["chunk"]?.stringValue, let chunk = Data(base64Encoded: text),
                bytes.count + chunk.count <= header.bytes
            else { throw CommandClientError.malformedReply("part \(index) of a reply in parts is not one") }
            bytes += chunk
        }
        guard bytes.count == header.bytes else {
            throw CommandClientError.malformedReply(
                "a reply in parts came to \(bytes.count) bytes, not \(header.bytes)")
        }
        do {
            return try CommandReply.decode(bytes)
        } catch {
            throw CommandClientError.malformedReply(error.message)
        }
    }

    /// Closes the socket; later requests throw `.closed`.
    public func close() async {
        isClosed.store(true, ordering: .relaxed)
        let current = connection.withLock { connection in
            defer { connection = nil }
            return connection
        }
        if let current { await current.close() }
    }

    // MARK: - Attempts

    private func currentConnection() throws -> SocketThread<[Frame]> {
        try connection.withLock { connection in
            if let connection { return connection }
            let (pending, counter) = (self.pending, self.counter)
            let socket = try SocketThread(
                context: context,
                kind: .dealer,
                name: "client \(endpoint)",
                receiveBuffer: 16,
                logger: logger,
                intercept: { [maximumMessageBytes] frames in
                    counter.total.add(frames.last?.count ?? 0, ordering: .relaxed)
                    // Replies are decoded once and go straight to their waiting request from the
                    // socket's thread; anything unreadable or unasked-for is dropped. One over the
                    // message limit (a service that should have sent it in parts) is said to be
                    // that, never taken for silence.
                    // A deflated reply (to a deflated request) is inflated within the bound
                    // the socket reads to.
                    guard var payload = frames.last else { return true }
                    if payload.first == Deflate.streamMarker {
                        guard let inflated = try? Deflate.inflate(payload, maximumBytes: maximumMessageBytes * 16)
                        else { return true }
                        payload = inflated
                    }
                    if let reply = try? CommandReply.decode(payload), let id = reply.id {
                        guard payload.count <= maximumMessageBytes else {
                            let error = CommandError(
                                code: "reply_too_large",
                                message:
                                    "the reply was \(payload.count) bytes, over the \(maximumMessageBytes)-byte limit of a message"
                            )
                            pending.resume(id, with: CommandReply(id: id, result: .failure(error)))
                            return true
                        }
                        pending.resume(id, with: reply)
                    }
                    return true
                },
                tick: { pending.expire() },
                setUp: { [endpoint, maximumMessageBytes, curve] socket in
                    if let curve { try socket.makeCurveClient(keyPair: curve.keyPair, serverKey: curve.serverKey) }
                    try socket.setLinger(milliseconds: 0)
                    try socket.setHighWaterMarks(send: 10_000, receive: 10_000)
                    // Larger than any reply may be, so that one over the limit arrives to be
                    // reported as such (libzmq would drop the connection, and the client wait).
                    try socket.setMaximumMessageSize(Int64(maximumMessageBytes) * 16)
                    try socket.connect(endpoint)
                }
            )
            connection = socket
            return socket
        }
    }

    private func discard(_ stale: SocketThread<[Frame]>) async {
        let removed = connection.withLock { connection -> Bool in
            guard connection === stale else { return false }
            connection = nil
            return true
        }
        if removed { await stale.close() }
    }

    /// Sends one attempt and waits up to `timeout` for the reply with the same id.
    private func exchange(_ frames: [Frame], id: String, over connection: SocketThread<[Frame]>) async -> CommandReply?
    {
        let deadline = ContinuousClock.now + timeout
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CommandReply?, Never>) in
                guard pending.register(id, deadline: deadline, continuation) else {
                    return continuation.resume(returning: nil)
                }
                do {
                    try connection.send(frames)
                } catch {
                    pending.resume(id, with: nil)
                }
            }
        } onCancel: {
            pending.resume(id, with: nil)
        }
    }
}
