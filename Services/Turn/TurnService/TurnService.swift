import Foundation
import HearthBus
import HearthCore
import HearthHost
import Logging
import ServiceLifecycle

/// `hearth-turn`: live board-game turn sessions across the players' devices, in memory only.
///
/// Commands on `turn.cmd` (`create`, `sessions`, `join`, `start`, `done`, `order`, `leave`,
/// `status`, `end`, `timer`, `pause`, `resume`, `skip`, `back`, `reverse`; arguments in
/// `TurnCommandArguments`); events `turn.<code>.changed` and `turn.<code>.your-turn` on this device's
/// bus; a CURVE-encrypted peer socket (`[turn] peer`) other devices link to; and a UDP beacon
/// announcing this device and the sessions it leads.
public final class TurnService: Service {
    private let configuration: HearthConfiguration
    private let commands: CommandServer
    private let peerSocket: SocketThread<[Frame]>
    private let authenticator: CurveAuthenticator
    private let publisher: Publisher
    private let beacon: Beacon?
    /// The protocol state (internal for tests, which drive its clock).
    let engine: TurnEngine
    private let newLinks: AsyncStream<PeerLink>
    private let logger: Logger

    /// The endpoint other devices reach this device's peer socket at (the bound port).
    public let peerEndpoint: String

    /// Binds the peer socket and the beacon port and connects to the bus; serving starts in `run()`.
    /// - Parameters:
    ///   - timing: the protocol's intervals (tests shorten them).
    ///   - now: the clock (tests may move it).
    /// - Throws: when an endpoint or port cannot be bound.
    public init(
        configuration: HearthConfiguration, context: ZMQContext, device: String, keyPair: CurveKeyPair, logger: Logger,
        timing: TurnTiming = .standard, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) throws {
        self.configuration = configuration
        self.logger = logger
        var bound = configuration.turn.peerEndpoint
        // Every device may connect (the session code is the join secret), but each is known by its key.
        authenticator = try CurveAuthenticator(context: context, logger: logger)
        peerSocket = try SocketThread(
            context: context, kind: .router, name: "turn peer ROUTER", receiveUserID: true
        ) { socket in
            try socket.makeCurveServer(secretKey: keyPair.secretKey)
            // Half a second for the hand-over sent as it stops (`handOverBeforeStopping`) to leave.
            try socket.setLinger(milliseconds: 500)
            try socket.setMaximumMessageSize(256 * 1024)
            try socket.bind(configuration.turn.peerEndpoint)
            bound = socket.lastEndpoint
        }
        guard let port = bound.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw ConfigurationError(
                origin: "hearth.toml", key: "turn.peer", rule: "bound to \(bound), which has no port")
        }
        peerEndpoint = bound
        publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "turn", device: device,
            maximumMessageBytes: configuration.maximumMessageBytes)
        do {
            beacon = try Beacon(
                port: configuration.discovery.port(for: .turn),
                broadcastAddress: configuration.discovery.beaconAddress,
                staticPeers: configuration.discovery.staticPeers(for: .turn))
        } catch {
            // Games at this device still work; other devices just cannot find them.
            logger.error(
                "hearth-turn: discovery is off, the beacon cannot start: \(error) (set [discovery] beacon_port to a free port)"
            )
            beacon = nil
        }
        let (links, linkSink) = AsyncStream.makeStream(of: PeerLink.self)
        newLinks = links
        let engine = TurnEngine(
            device: device, keyPair: keyPair, peerPort: port, publisher: publisher, peerSocket: peerSocket,
            beacon: beacon, context: context, logger: logger, linkSink: linkSink, timing: timing, now: now)
        self.engine = engine
        commands = try CommandServer(
            context: context, endpoint: configuration.commandEndpoint(.turn), service: "turn",
            maximumMessageBytes: configuration.maximumMessageBytes, handlersOnSocketThread: true, logger: logger,
            pingInfo: { [bound] in ["peer": .string(bound), "device": .string(device)] },
            handler: { request in try await engine.command(request) })
    }

    public func run() async throws {
        logger.info("hearth-turn up; peers connect to \(peerEndpoint)")
        _ = await publisher.waitUntilConnected(timeout: .seconds(5))
        let (engine, beacon, peerSocket, authenticator, publisher) = (
            engine, beacon, peerSocket, authenticator, publisher
        )
        try await ServiceGroup.parts(
            [
                ServiceResources("turn sockets") {
                    await engine.closeLinks()
                    beacon?.stop()
                    await peerSocket.close()
                    await authenticator.close()
                    await publisher.close()
                },
                // Stopping is not leaving: the games led here go on led by the next device, their
                // players here away until it is back (issue 63: a SIGTERM showed "Ann left").
                ServiceFarewell("hand games on") { await engine.handOverBeforeStopping() },
                ServiceLoop("ZAP handler") { await authenticator.run() },
                // Each socket's messages are handled on its own thread, the engine's code too
                // (see `SocketThread`): no wake-up of the cooperative pool on a turn's path.
                ServiceLoop("member devices") {
                    await withTaskExecutorPreference(peerSocket) {
                        for await message in peerSocket.incoming { await engine.fromMember(message) }
                    }
                },
                ServiceLoop("leader links", followLinks),
                ServiceLoop("beacons heard") {
                    guard let beacon else {
                        try? await gracefulShutdown()
                        return
                    }
                    for await sighting in beacon.sightings { await engine.sighted(sighting) }
                },
                ServiceLoop("heartbeat") {
                    // Heartbeats are a clock: a periodic timer, not synchronisation.
                    // It runs sooner when a turn timer is due (`tick` says when).
                    while !Task.isCancelled {
                        let next = await engine.tick()
                        try? await Task.sleep(for: next)
                    }
                },
                commands,
            ], logger: logger
        ).run()
    }

    /// Reads each leading device's link as it opens.
    private func followLinks() async {
        await withDiscardingTaskGroup { links in
            for await link in newLinks {
                links.addTask(executorPreference: link.socket) { [engine] in
                    for await message in link.socket.incoming { await engine.fromLeader(link.device, message) }
                    await link.socket.close()
                }
            }
        }
    }
}
