import Foundation
import HearthBus
import HearthCore
import HearthHost
import Logging
import ServiceLifecycle
import Synchronization

/// `hearth-bus`: forwards events between every publisher and subscriber of the stack, publishes a
/// `health.bus` heartbeat, and answers `ping` (with its counters) and `probe` on its command
/// endpoint.
public final class BusService: Service {
    /// Counters the proxy keeps; `ping` and the heartbeat report them.
    public let counters = BusCounters()
    /// The endpoints as bound.
    public let publishEndpoint: String
    public let subscribeEndpoint: String
    public let commandEndpoint: String

    private let proxy: BusProxy
    private let commands: CommandServer
    private let device: String
    private let heartbeat: Duration
    private let codec: EnvelopeCodec
    private let logger: Logger
    private let seq = SequenceNumber()
    /// This run of the bus (its heartbeats' numbering starts again at 1 each run).
    private let epoch = Envelope.newEpoch()

    /// Binds the bus's three endpoints and starts forwarding.
    /// - Throws: `ZMQError` when an endpoint cannot be bound (for example, a tcp port in use). A second
    ///   bus on one home is stopped earlier, by `HearthProcess`'s `ServiceLock`.
    public init(configuration: HearthConfiguration, context: ZMQContext, device: String, logger: Logger) throws {
        self.device = device
        self.heartbeat = .milliseconds(configuration.heartbeatMilliseconds)
        self.codec = EnvelopeCodec(maximumBytes: configuration.maximumMessageBytes)
        self.logger = logger
        let counters = self.counters
        proxy = try BusProxy(
            context: context,
            publishEndpoint: configuration.busPublishEndpoint,
            subscribeEndpoint: configuration.busSubscribeEndpoint,
            maximumMessageBytes: configuration.maximumMessageBytes,
            counters: counters,
            logger: logger
        )
        publishEndpoint = proxy.publishEndpoint
        subscribeEndpoint = proxy.subscribeEndpoint
        let proxy = self.proxy
        commands = try CommandServer(
            context: context,
            endpoint: configuration.commandEndpoint(.bus),
            service: "bus",
            maximumMessageBytes: configuration.maximumMessageBytes,
            logger: logger,
            pingInfo: { ["counters": counters.json] },
            handler: { request in
                switch request.command {
                case BusCommands.Probe.name:
                    let topic = try request.decode(BusCommands.Probe.self).topic
                    guard topic.hasPrefix(BusProbe.prefix), Topic.isValid(bytes: Array(topic.utf8)) else {
                        throw CommandError.invalidArgument(
                            "topic", "must be a valid topic starting with '\(BusProbe.prefix)'")
                    }
                    proxy.inject([Array(topic.utf8)])
                    return try JSONValue(reply: BusProbed(topic: topic))
                case BusCommands.Stats.name:
                    return counters.json
                default:
                    throw CommandError.unknownCommand(request.command, service: "bus")
                }
            }
        )
        commandEndpoint = commands.endpoint
    }

    public func run() async throws {
        logger.info(
            "hearth-bus up",
            metadata: ["pub": "\(publishEndpoint)", "sub": "\(subscribeEndpoint)", "cmd": "\(commandEndpoint)"]
        )
        try await ServiceGroup.parts(
            [proxy, ServiceLoop("health.bus heartbeat", beat), commands], logger: logger
        ).run()
        logger.info("hearth-bus stopped", metadata: ["forwarded": "\(counters.forwarded.load(ordering: .relaxed))"])
    }

    /// Publishes `health.bus` every heartbeat interval until cancelled.
    private func beat() async {
        let started = ContinuousClock.now
        while !Task.isCancelled {
            var data = counters.json.objectValue ?? [:]
            data["uptime_s"] = .double((ContinuousClock.now - started).seconds)
            let envelope = Envelope(
                source: "bus", device: device, seq: seq.next(), epoch: epoch, type: "health.bus", data: .object(data))
            if let payload = try? codec.encode(envelope) {
                proxy.inject([Array("health.bus".utf8), payload])
            }
            try? await Task.sleep(for: heartbeat)
        }
    }
}

/// The bus's own event numbering (memory only: a restarted bus starts again at 1).
private final class SequenceNumber: Sendable {
    private let value = Atomic<UInt64>(0)

    func next() -> UInt64 { value.add(1, ordering: .relaxed).newValue }
}
