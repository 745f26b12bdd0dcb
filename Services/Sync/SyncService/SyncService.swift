import Foundation
import HearthBus
import HearthCore
import HearthHost
import Logging
import ServiceLifecycle

/// `hearth-sync`: pairing with the household's other devices and replicating the operation log
/// with the paired ones (SPEC part 1, DESIGN "Between devices").
///
/// Four sockets: commands from this device on `sync.cmd` (`hearth device …`, `hearth sync …`,
/// the pairing popup's buttons); the replication socket (`[sync] endpoint`, CURVE, ZAP domain
/// `sync`: only paired keys get through the handshake, and every request is checked again); the
/// pairing socket (CURVE, ZAP domain `pairing`: any key, but only `pair.*` messages); and a UDP
/// beacon on `[discovery] beacon_port` + 1. Durable state is `sync.sqlite` (`SyncDatabase`);
/// household data moves only through the store's `ops.*` commands.
public final class SyncService: Service {
    private let configuration: HearthConfiguration
    private let database: SyncDatabase
    private let paired: PairedKeys
    private let authenticator: CurveAuthenticator
    private let refusals: AsyncStream<(key: String, address: String)>
    private let commands: CommandServer
    private let replication: CommandServer
    private let pairing: CommandServer
    private let publisher: Publisher
    private let store: CommandClient
    private let beacon: Beacon?
    let engine: SyncEngine
    private let ports: (replication: Int, pairing: Int)
    private let logger: Logger

    /// Where paired devices reach this one (the bound replication endpoint).
    public let endpoint: String

    /// Opens `sync.sqlite`, binds the sockets and the beacon port; serving starts in `run()`.
    /// - Throws: when the database cannot be opened or an endpoint bound.
    public init(
        configuration: HearthConfiguration, context: ZMQContext, device: String, keyPair: CurveKeyPair, logger: Logger,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) throws {
        self.configuration = configuration
        self.logger = logger
        let database = try SyncDatabase(path: (configuration.home as NSString).appendingPathComponent("sync.sqlite"))
        self.database = database
        let paired = PairedKeys()
        self.paired = paired
        let (refusals, refusalSink) = AsyncStream.makeStream(
            of: (key: String, address: String).self, bufferingPolicy: .bufferingNewest(256))
        self.refusals = refusals
        authenticator = try CurveAuthenticator(context: context, logger: logger) { key, address, domain in
            if domain == SyncService.pairingDomain { return true }
            guard domain == SyncService.replicationDomain, paired.peer(forKey: key) != nil else {
                refusalSink.yield((key, address))
                return false
            }
            return true
        }
        publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "sync", device: device,
            maximumMessageBytes: configuration.maximumMessageBytes)
        store = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.store), timeout: .seconds(30), attempts: 2,
            maximumMessageBytes: configuration.maximumMessageBytes, logger: logger)
        let replicator = SyncReplicator(
            store: store, context: context, keyPair: keyPair, maximumMessageBytes: configuration.maximumMessageBytes,
            logger: logger)
        let engine = SyncEngine(
            device: device, name: DeviceIdentity.hostName(), keyPair: keyPair, database: database, paired: paired,
            replicator: replicator, store: store, publisher: publisher, context: context,
            interval: configuration.sync.interval, logger: logger, now: now)
        self.engine = engine
        replication = try CommandServer(
            context: context, endpoint: configuration.sync.endpoint, service: "sync-peer",
            maximumMessageBytes: configuration.maximumMessageBytes, curveSecretKey: keyPair.secretKey,
            curveDomain: Self.replicationDomain, readsDeflated: replicator.readsDeflated, logger: logger,
            handler: { request in try await engine.fromPeer(request) })
        pairing = try CommandServer(
            context: context, endpoint: Self.port(configuration.sync.pairingPort, of: configuration.sync.endpoint),
            service: "sync-pairing",
            maximumMessageBytes: 64 * 1024, curveSecretKey: keyPair.secretKey, curveDomain: Self.pairingDomain,
            logger: logger, handler: { request in try await engine.fromPairing(request) })
        guard let replicationPort = Self.port(of: replication.endpoint),
            let pairingPort = Self.port(of: pairing.endpoint)
        else {
            throw ConfigurationError(
                origin: "hearth.toml", key: "sync.endpoint", rule: "bound to \(replication.endpoint), which has no port"
            )
        }
        ports = (replicationPort, pairingPort)
        endpoint = replication.endpoint
        do {
            beacon = try Beacon(
                port: configuration.discovery.port(for: .sync), broadcastAddress: configuration.discovery.beaconAddress,
                staticPeers: configuration.discovery.staticPeers(for: .sync))
        } catch {
            logger.error(
                "hearth-sync: discovery is off, the beacon cannot start: \(error) (set [discovery] beacon_port to a free port; sync uses the next one)"
            )
            beacon = nil
        }
        commands = try CommandServer(
            context: context, endpoint: configuration.commandEndpoint(.sync), service: "sync",
            maximumMessageBytes: configuration.maximumMessageBytes, logger: logger,
            pingInfo: { [endpoint, pairingEndpoint = pairing.endpoint] in
                [
                    "endpoint": .string(endpoint), "pairing_endpoint": .string(pairingEndpoint),
                    "device": .string(device),
                ]
            },
            handler: { request in try await engine.command(request) })
    }

    static let replicationDomain = "sync"
    static let pairingDomain = "pairing"

    public func run() async throws {
        paired.replace(with: try await database.peers())
        let replication = replication
        await engine.start(beacon: beacon, ports: ports) { try await replication.dropConnections() }
        logger.info("hearth-sync up; paired devices connect to \(endpoint), \(paired.all.count) paired")
        _ = await publisher.waitUntilConnected(timeout: .seconds(5))
        let (engine, beacon, authenticator, publisher, store, refusals) = (
            engine, beacon, authenticator, publisher, store, refusals
        )
        try await ServiceGroup.parts(
            [
                ServiceResources("sync sockets") {
                    await engine.cancelAll()
                    beacon?.stop()
                    await authenticator.close()
                    await store.close()
                    await publisher.close()
                },
                ServiceLoop("ZAP handler") { await authenticator.run() },
                ServiceLoop("refusals") {
                    for await refusal in refusals {
                        await engine.refused(
                            key: refusal.key, address: refusal.address, reason: "not paired with this device")
                    }
                },
                ServiceLoop("beacons heard") {
                    guard let beacon else { return }
                    for await sighting in beacon.sightings { await engine.sighted(sighting) }
                },
                ServiceLoop("beacon") {
                    // The beacon is a clock: a periodic timer, not synchronisation.
                    var ticks = 0
                    while !Task.isCancelled {
                        await engine.tick(refreshName: ticks % 3 == 0)
                        ticks += 1
                        try? await Task.sleep(for: .seconds(1))
                    }
                },
                replication, pairing, commands,
            ], logger: logger
        ).run()
    }

    /// The port of a bound `tcp://host:port` endpoint.
    static func port(of endpoint: String) -> Int? {
        endpoint.split(separator: ":").last.flatMap { Int($0) }
    }

    /// `endpoint` with `port` (0: any free port): the pairing socket listens where replication
    /// does, on `[sync] pairing_port`.
    static func port(_ port: Int, of endpoint: String) -> String {
        guard let colon = endpoint.lastIndex(of: ":"), endpoint[..<colon].count > "tcp://".count else {
            return endpoint
        }
        return String(endpoint[..<colon]) + ":" + (port == 0 ? "*" : String(port))
    }
}
