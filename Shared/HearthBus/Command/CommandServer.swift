import Foundation
import HearthCore
import Logging
import ServiceLifecycle
import Synchronization

/// Answers commands on a ROUTER socket: one JSON request in, one JSON reply out.
///
/// Requests run concurrently, each started on the socket's thread (`CommandIntake`), and
/// continued on the cooperative pool unless `handlersOnSocketThread`. A repeated
/// request id is answered from a bounded cache of recent replies, so a client may retry safely.
/// Every server answers `ping` itself, with the service's name, process id, uptime, and whatever
/// `pingInfo` adds. On graceful shutdown it stops taking requests, finishes those in flight, then
/// closes.
public final class CommandServer: Service {
    /// Runs one command and returns its result data; throw `CommandError` to refuse it.
    public typealias Handler = @Sendable (CommandRequest) async throws -> JSONValue

    /// The service name reported by `ping` and in errors.
    public let service: String
    /// The endpoint as bound (a `tcp://…:*` wildcard resolved to its port).
    public let endpoint: String

    private let socket: SocketThread<[Frame]>
    private let intake = CommandIntake()
    private let handler: Handler
    private let pingInfo: @Sendable () async -> [String: JSONValue]
    private let cache: ReplyCache
    /// Replies over the message limit, held for their client to fetch in parts.
    private let parts: ReplyParts
    private let maximumMessageBytes: Int
    private let logger: Logger
    /// Whether peers are CURVE-authenticated (each message comes with its peer's key).
    private let authenticated: Bool
    /// Whether deflated requests are read (and answered deflated).
    private let readsDeflated: Bool
    private let started = ContinuousClock.now
    private let counters = Counters()

    private final class Counters: Sendable {
        let handled = Atomic<Int>(0)
        let malformed = Atomic<Int>(0)
        let duplicates = Atomic<Int>(0)
        /// Requests refused because `CommandIntake.limit` were running.
        let busy = Atomic<Int>(0)
    }

    /// Binds the command endpoint. Do start-up work (migrations) before creating the server.
    /// With `curveSecretKey` it is a CURVE server whose handshakes a `CurveAuthenticator` of the
    /// context judges, in the ZAP domain `curveDomain`.
    /// - Parameter handlersOnSocketThread: run each request's task on the socket's thread after
    ///   its first suspension too (the actor it awaits included), not on the cooperative pool:
    ///   one wake-up less per request, for a service whose handlers all go through one actor
    ///   anyway and never block (`hearth-turn`). Requests then no longer run in parallel.
    /// - Parameter readsDeflated: a request may come deflated (`Deflate`, told apart by its first
    ///   byte; `CommandClient.deflateRequests()`), inflated within the message limit; its reply
    ///   then goes deflated when that makes it smaller. For links where bytes count: a sync
    ///   between devices.
    /// - Throws: `ZMQError` when the endpoint cannot be bound (for example, already in use).
    public init(
        context: ZMQContext,
        endpoint: String,
        service: String,
        maximumMessageBytes: Int = BusLimits.defaultMaximumMessageBytes,
        cacheCapacity: Int = 4_096,
        curveSecretKey: String? = nil,
        curveDomain: String = "",
        handlersOnSocketThread: Bool = false,
        readsDeflated: Bool = false,
        logger: Logger,
        pingInfo: @escaping @Sendable () async -> [String: JSONValue] = { [:] },
        handler: @escaping Handler
    ) throws {
        self.service = service
        self.handler = handler
        self.pingInfo = pingInfo
        self.cache = ReplyCache(capacity: cacheCapacity)
        self.parts = ReplyParts(maximumMessageBytes: maximumMessageBytes)
        self.maximumMessageBytes = maximumMessageBytes
        self.logger = logger
        var bound = endpoint
        authenticated = curveSecretKey != nil
        self.readsDeflated = readsDeflated
        let intake = self.intake
        socket = try SocketThread(
            context: context,
            kind: .router,
            name: "\(service).cmd",
            logger: logger,
            intercept: { intake.admit($0) },
            receiveUserID: curveSecretKey != nil,
            receivePeerAddress: curveSecretKey != nil,
            setUp: { socket in
                // A CURVE server: every peer proves its key at the handshake (a `CurveAuthenticator`
                // in this context decides which keys may connect), and each request carries it.
                if let curveSecretKey {
                    try socket.makeCurveServer(secretKey: curveSecretKey)
                    if !curveDomain.isEmpty { try socket.setZAPDomain(curveDomain) }
                }
                try socket.setLinger(milliseconds: 500)
                // Per peer: at most this many replies wait for a client that does not read them
                // (then the ROUTER drops them): with replies under the message limit, 64 MiB.
                try socket.setHighWaterMarks(send: Self.repliesQueuedPerPeer, receive: 10_000)
                // Frames a little over the limit are still read so the sender gets a clear error;
                // anything far larger makes libzmq drop that peer's connection.
                try socket.setMaximumMessageSize(Int64(maximumMessageBytes) * 4)
                try socket.bind(endpoint)
                bound = socket.lastEndpoint
            }
        )
        self.endpoint = bound
        intake.open(
            on: handlersOnSocketThread ? socket : nil, refuse: { [weak self] message in self?.refuseBusy(message) }
        ) { [weak self] message in await self?.answer(message) }
    }

    /// Serves until graceful shutdown (or cancellation), then stops taking requests, lets those
    /// in flight finish and send their replies, and closes the socket.
    public func run() async throws {
        socket.start()
        try? await gracefulShutdown()
        await intake.close()
        await socket.close()
    }

    /// Closes every live connection at once, keeping the endpoint: each peer reconnects and
    /// handshakes afresh, so a CURVE server's authenticator judges its key again. (ZAP runs only
    /// at a handshake: a key the authenticator stops admitting keeps a live connection until
    /// then.) Requests in flight on the old connections go unanswered; clients retry them.
    public func dropConnections() async throws {
        try await socket.perform { [endpoint] socket in
            try socket.unbind(endpoint)
            // libzmq closes the listener on its I/O thread: the port can stay busy a moment.
            var attempt = 0
            while true {
                do {
                    return try socket.bind(endpoint)
                } catch let error as ZMQError where error.code == EADDRINUSE && attempt < 100 {
                    attempt += 1
                    usleep(10_000)
                }
            }
        }
    }

    /// Replies queued for one client before more are dropped (see `init`).
    static let repliesQueuedPerPeer: Int32 = 256

    // MARK: - Answering

    /// Answers `busy` to a request that came while `CommandIntake.limit` were running, on the
    /// socket's thread: it is not run, and the client may try again.
    private func refuseBusy(_ received: [Frame]) {
        var frames = received
        if authenticated { frames.removeFirst(min(2, frames.count)) }
        guard frames.count == 2 || (frames.count == 3 && frames[1].isEmpty),
            let (bytes, deflated) = try? requestBytes(frames[frames.count - 1]),
            let request = try? CommandRequest.decode(bytes)
        else {
            counters.malformed.add(1, ordering: .relaxed)
            return
        }
        counters.busy.add(1, ordering: .relaxed)
        let error = CommandError(
            code: "busy", message: "\(service) is answering \(intake.limit) requests already; try again in a moment")
        // A refusal is small: deflated (for a deflated request) here on the socket's thread.
        let reply = CommandReply(id: request.id, result: .failure(error)).jsonBytes
        send(deflated ? Deflate.smaller(reply) : reply, to: frames[0], delimited: frames.count == 3)
    }

    /// A request's JSON: the payload itself, or inflated when it came deflated to a server that
    /// reads that (within the message limit).
    private func requestBytes(_ payload: [UInt8]) throws(CommandError) -> (bytes: [UInt8], deflated: Bool) {
        guard readsDeflated, payload.first == Deflate.streamMarker else { return (payload, false) }
        do throws(Deflate.Failure) {
            return (try Deflate.inflate(payload, maximumBytes: maximumMessageBytes), true)
        } catch .tooLarge {
            throw CommandError(
                code: "oversized", message: "request inflates beyond the limit of \(maximumMessageBytes) bytes")
        } catch {
            throw .malformedRequest("request: \(error)")
        }
    }

    /// A reply as it is sent: deflated (when smaller) for a deflated request.
    private func wire(_ reply: [UInt8], deflated: Bool) async -> [UInt8] {
        deflated ? await Deflate.offPoolWhenLarge(reply, Deflate.smaller) : reply
    }

    private func answer(_ received: [Frame]) async {
        var frames = received
        var peerKey: String?
        var peerAddress: String?
        if authenticated {
            guard frames.count >= 2, !frames[0].isEmpty else {
                counters.malformed.add(1, ordering: .relaxed)
                return
            }
            peerKey = String(decoding: frames.removeFirst(), as: UTF8.self)
            let address = frames.removeFirst()
            peerAddress = address.isEmpty ? nil : String(decoding: address, as: UTF8.self)
        }
        // A DEALER or REQ peer sends [empty, request]; the ROUTER puts the routing id in front.
        guard frames.count == 2 || (frames.count == 3 && frames[1].isEmpty) else {
            counters.malformed.add(1, ordering: .relaxed)
            logger.warning("\(service).cmd: dropped a message of \(frames.count) frames")
            if frames.count > 1 {
                let reply = CommandReply(
                    id: nil,
                    result: .failure(.malformedRequest("a command is one frame of JSON, got \(frames.count - 1)"))
                )
                send(reply.jsonBytes, to: frames[0], delimited: false)
            }
            return
        }
        let route = frames[0]
        let delimited = frames.count == 3
        let payload = frames[frames.count - 1]
        guard payload.count <= maximumMessageBytes else {
            counters.malformed.add(1, ordering: .relaxed)
            let error = CommandError(
                code: "oversized",
                message: "request is \(payload.count) bytes; the limit is \(maximumMessageBytes) bytes"
            )
            send(CommandReply(id: nil, result: .failure(error)).jsonBytes, to: route, delimited: delimited)
            return
        }
        var request: CommandRequest
        let deflated: Bool
        do {
            let bytes: [UInt8]
            (bytes, deflated) = try requestBytes(payload)
            request = try CommandRequest.decode(bytes)
            request.peerKey = peerKey
            request.peerAddress = peerAddress
        } catch {
            counters.malformed.add(1, ordering: .relaxed)
            send(CommandReply(id: nil, result: .failure(error)).jsonBytes, to: route, delimited: delimited)
            return
        }
        // Replies are cached per peer: one peer can never be sent another's reply by reusing its id.
        let cacheID = peerKey.map { "\($0)/\(request.id)" } ?? request.id
        switch cache.admit(id: cacheID, route: route) {
        case .answered(let reply):
            counters.duplicates.add(1, ordering: .relaxed)
            send(reply, to: route, delimited: delimited)
        case .joined:
            counters.duplicates.add(1, ordering: .relaxed)
        case .run:
            let reply = await wire(
                fitted(CommandReply(id: request.id, result: await run(request)).jsonBytes, id: request.id),
                deflated: deflated)
            counters.handled.add(1, ordering: .relaxed)
            let joined = cache.finish(id: cacheID, reply: reply)
            for peer in [route] + joined { send(reply, to: peer, delimited: delimited) }
        }
    }

    /// `reply` as it may be sent: whole when it fits one message, else held in parts (its header
    /// sent instead), else refused naming its size.
    private func fitted(_ reply: [UInt8], id: String) -> [UInt8] {
        guard reply.count > maximumMessageBytes else { return reply }
        if let header = parts.hold(reply) { return CommandReply(id: id, parts: header).jsonBytes }
        logger.warning(
            "\(service).cmd: a reply of \(reply.count) bytes was refused (over \(ReplyParts.maximumReplyBytes))")
        let error = CommandError(
            code: "reply_too_large",
            message:
                "the reply is \(reply.count / 1_048_576) MiB, over the \(ReplyParts.maximumReplyBytes / 1_048_576) MiB a service sends: ask for less (a narrower range or filter)"
        )
        return CommandReply(id: id, result: .failure(error)).jsonBytes
    }

    private func run(_ request: CommandRequest) async -> Result<JSONValue, CommandError> {
        if request.command == ReplyParts.command {
            do {
                return .success(try parts.part(request.arguments))
            } catch {
                return .failure(error)
            }
        }
        if request.command == ServiceCommands.Ping.name {
            let reply = PingReply(
                service: service, pid: Int(getpid()), version: HearthVersion.version, commit: HearthVersion.commit,
                uptimeSeconds: (ContinuousClock.now - started).seconds,
                commands: .init(
                    handled: counters.handled.load(ordering: .relaxed),
                    malformed: counters.malformed.load(ordering: .relaxed),
                    duplicates: counters.duplicates.load(ordering: .relaxed),
                    busy: counters.busy.load(ordering: .relaxed)))
            // The service's own figures beside what every service says.
            var info = await pingInfo()
            do {
                info.merge(try JSONValue(reply: reply).objectValue ?? [:]) { _, common in common }
            } catch {
                return .failure(CommandError(code: "internal", message: "ping: \(error)"))
            }
            return .success(.object(info))
        }
        do {
            return .success(try await handler(request))
        } catch let error as CommandError {
            return .failure(error)
        } catch {
            // The reply names no internals (a database error's text carries its SQL, and replies
            // reach the page): the log has them, under the request's id.
            logger.error("\(service).cmd \(request.command) (request \(request.id)) failed: \(error)")
            return .failure(
                CommandError(
                    code: "internal",
                    message:
                        "\(request.command) failed inside hearth-\(service) (its log has why, request \(request.id))"))
        }
    }

    private func send(_ reply: [UInt8], to route: Frame, delimited: Bool) {
        do {
            try socket.send(delimited ? [route, [], reply] : [route, reply])
        } catch {
            logger.debug("\(service).cmd: reply not sent, socket closing")
        }
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
