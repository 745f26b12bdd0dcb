import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost
import HearthTrust
import Logging
import ServiceLifecycle

/// `hearth-store`: owns every durable byte of household data. It answers commands on
/// `store.cmd`, and after each commit publishes `store.<entity>.changed` numbered with its
/// durable change sequence; `changes {since}` replays the feed to any subscriber that restarted
/// or saw a gap.
public final class StoreService: Service {
    /// The command endpoint as bound.
    public let commandEndpoint: String

    let database: StoreDatabase
    private let commands: CommandServer
    private let handlers: StoreCommands
    private let publisher: Publisher
    private let publishing: DispatchQueue
    private let logger: Logger

    /// Opens and migrates the database, then binds the command endpoint (in that order, so no
    /// command ever meets an unmigrated database).
    /// - Parameter faults: for tests only (`StoreFaults`): none in real use.
    public init(
        configuration: HearthConfiguration, context: ZMQContext, device: String, logger: Logger,
        faults: StoreFaults = StoreFaults()
    ) throws {
        let path = (configuration.home as NSString).appendingPathComponent("hearth.sqlite")
        let signer = SigningKey.derived(fromCurveSecret: try DeviceIdentity.keyPair(home: configuration.home).secretKey)
        let database = try StoreDatabase(path: path, localDevice: device, signer: signer)
        self.database = database
        self.logger = logger
        let lastSeq = try database.pool.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM change") ?? 0 }
        let publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "store", device: device,
            firstSeq: UInt64(lastSeq) + 1, maximumMessageBytes: configuration.maximumMessageBytes, logger: logger)
        self.publisher = publisher
        // Change events leave from their own serial queue, in commit order, so a reply does not
        // wait while its events are encoded and handed to the bus: an import of 849 operations
        // waited 14–54 ms for its 849 events (`hearth-bench sync`, 2 cores).
        let publishing = DispatchQueue(label: "store change events")
        self.publishing = publishing
        // The search index written once a batch, after its commands' savepoints (`SearchIndex`).
        let writes = GroupCommit(pool: database.pool, finish: SearchIndex.flush) { events in
            publishing.async {
                for event in events {
                    _ = try? publisher.publish(
                        topic: event.topic, type: "store.changed", data: event.data, seq: event.seq)
                }
            }
        }
        handlers = StoreCommands(
            database: database, writes: writes, faults: faults,
            maximumReplyBytes: configuration.maximumMessageBytes - 4_096, timeZone: configuration.household.timeZone)
        commands = try CommandServer(
            context: context,
            endpoint: configuration.commandEndpoint(.store),
            service: "store",
            maximumMessageBytes: configuration.maximumMessageBytes,
            logger: logger,
            pingInfo: {
                let (operations, changes) =
                    (try? await database.pool.read { db in
                        (
                            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation") ?? 0,
                            try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM change") ?? 0
                        )
                    }) ?? (0, 0)
                return ["operations": .int(Int64(operations)), "last_seq": .int(Int64(changes))]
            },
            handler: { [handlers] request in try await handlers.handle(request) }
        )
        commandEndpoint = commands.endpoint
    }

    public func run() async throws {
        // The name this device shows (its host's) travels to the others as an operation, once,
        // so they never see it as "Device 3f2a9c1e": written before any command is answered, so
        // on a new home it is always the first change.
        do {
            try await handlers.nameThisDeviceOnce()
        } catch {
            logger.error("hearth-store: cannot record this device's name: \(error)")
        }
        logger.info("hearth-store up", metadata: ["cmd": "\(commandEndpoint)"])
        let (publisher, publishing, logger) = (publisher, publishing, logger)
        try await ServiceGroup.parts(
            [
                ServiceResources("store publisher") {
                    // The events of every commit so far leave first.
                    await withCheckedContinuation { done in publishing.async { done.resume() } }
                    await publisher.close()
                },
                // Commands are served at once; without a bus, changes are still committed and can
                // be replayed with `changes` once subscribers are back.
                ServiceLoop("bus connection") {
                    if await !publisher.waitUntilConnected(timeout: .seconds(2)) {
                        logger.warning("hearth-store: no bus answering yet; changes stay replayable")
                    }
                    try? await gracefulShutdown()
                },
                commands,
            ], logger: logger
        ).run()
    }
}
