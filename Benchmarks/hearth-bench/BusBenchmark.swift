import ArgumentParser
import BusService
import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Logging
import ServiceLifecycle
import Synchronization

/// `hearth-bench bus`: the bus against raw libzmq, measured in one run on this machine.
struct BusBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bus",
        abstract: "Bus throughput and command round trips, side by side with raw libzmq.",
        discussion: """
            (a) raw libzmq: PUB → zmq_proxy(XSUB/XPUB) → SUB, C API only; (b) the same traffic \
            through a hearth-bus process with HearthBus raw frames; (c) the same with envelopes \
            encoded and decoded; (d) command round trips, raw DEALER/ROUTER versus HearthBus's \
            CommandClient and CommandServer. Messages are two frames totalling 100 bytes; every \
            transport is ipc://. Targets (issue 14): b/a ≥ 0.85, c/a ≥ 0.4, d p99 ≤ 1.5 × raw.
            """
    )

    @Option(help: "Messages per throughput run (a million: each run lasts over a second even raw).")
    var messages = 1_000_000

    @Option(help: "Round trips per latency run (after 1,000 warm-up).")
    var roundTrips = 10_000

    @Flag(help: "Print only the JSON report.")
    var json = false

    static let highWaterMark: Int32 = 100_000

    @Option(help: "Rounds; each runs every measurement once, raw and Hearth back to back.")
    var rounds = 5

    /// One round's measurements.
    struct Round {
        let raw: Throughput
        let frames: Throughput
        let envelopes: Throughput
        let rawRTT: Percentiles
        let hearthRTT: Percentiles
        /// `MachineSpeed`'s yardstick at the round's middle, between its two envelope runs.
        let decodeNanoseconds: Double

        var framesRatio: Double { frames.perSecond / raw.perSecond }
        var envelopeRatio: Double { envelopes.perSecond / raw.perSecond }
        var rttRatio: Double { hearthRTT.p99 / rawRTT.p99 }

        var json: JSONValue {
            [
                "frames_ratio": .double(round3(framesRatio)), "envelope_ratio": .double(round3(envelopeRatio)),
                "rtt_p99_ratio": .double(round3(rttRatio)), "raw_proxy": raw.json, "hearth_bus_frames": frames.json,
                "hearth_bus_envelopes": envelopes.json, "rtt_us": ["raw": rawRTT.json, "hearth": hearthRTT.json],
                "envelope_decode_ns": MachineSpeed.json(decodeNanoseconds),
            ]
        }
    }

    func run() async throws {
        let speedBefore = try MachineSpeed.envelopeDecodeNanoseconds()
        let home = try TemporaryHome()
        let topic = Array("bench.frames".utf8)
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 100 - topic.count)
        let context = try ZMQContext()
        let bus = try await TestStack([.bus], home: home, environment: ServiceProcesses.quiet, context: context)
        let payload = String(repeating: "x", count: 80)
        var results: [Round] = []
        var envelopeBytes = 0
        func runRaw() -> Throughput {
            RawZeroMQ.proxyThroughput(
                count: messages, topic: topic, body: body, directory: home.path, highWaterMark: Self.highWaterMark)
        }
        func runFrames() async throws -> Throughput {
            try await framesThroughput(context: context, configuration: bus.configuration, topic: topic, body: body)
        }
        func runEnvelopes() async throws -> Throughput {
            let (throughput, bytes) = try await envelopeThroughput(context: context, configuration: bus.configuration)
            envelopeBytes = bytes
            return throughput
        }
        for round in 1...rounds {
            // Raw, frames, envelopes, envelopes, frames, raw: each kind's two runs sit at the same
            // distance from the round's middle, so a machine that speeds up or slows down through
            // the round moves all three kinds alike (a ratio of runs seconds apart otherwise
            // carries the drift between them).
            let raw1 = runRaw()
            let frames1 = try await runFrames()
            let envelopes1 = try await runEnvelopes()
            let speed = try MachineSpeed.envelopeDecodeNanoseconds()
            let envelopes2 = try await runEnvelopes()
            let frames2 = try await runFrames()
            let raw2 = runRaw()
            let rawRTT = RawZeroMQ.roundTrips(
                count: roundTrips, warmup: 1_000, payload: Array(#"{"p":"\#(payload)"}"#.utf8), directory: home.path)
            let hearthRTT = try await commandRoundTrips(context: context, directory: home.path, payload: payload)
            let result = Round(
                raw: raw1 + raw2, frames: frames1 + frames2, envelopes: envelopes1 + envelopes2,
                rawRTT: Percentiles(rawRTT),
                hearthRTT: Percentiles(hearthRTT), decodeNanoseconds: speed)
            results.append(result)
            log(
                String(
                    format:
                        "round %d: raw %.0f msg/s, frames %.2f×, envelopes %.2f×; rtt p99 raw %.0f µs, hearth %.0f µs (%.2f×); decode %.0f ns",
                    round, result.raw.perSecond, result.framesRatio, result.envelopeRatio, result.rawRTT.p99,
                    result.hearthRTT.p99, result.rttRatio, speed))
        }
        _ = await bus.stop()
        await context.terminate()

        let speedAfter = try MachineSpeed.envelopeDecodeNanoseconds()
        let framesRatio = median(results.map(\.framesRatio))
        let envelopeRatio = median(results.map(\.envelopeRatio))
        let rttRatio = median(results.map(\.rttRatio))
        let report: JSONValue = [
            "frames_ratio": .double(round3(framesRatio)),
            "envelope_ratio": .double(round3(envelopeRatio)),
            "rtt_p99_ratio": .double(round3(rttRatio)),
            "rtt_p50_ratio": .double(round3(median(results.map { $0.hearthRTT.p50 / $0.rawRTT.p50 }))),
            "targets": ["frames_ratio": 0.85, "envelope_ratio": 0.4, "rtt_p99_ratio": 1.5],
            "method": .string(
                "median over \(rounds) rounds of per-round ratios; each round runs raw, frames, envelopes, "
                    + "envelopes, frames, raw back to back (each kind's two runs pooled), then the round trips; "
                    + "\(messages) messages of 100 bytes per throughput run with at most \(flowWindow) in flight "
                    + "(no run loses messages); \(roundTrips) round trips after 1,000 warm-up; ipc:// throughout"),
            "envelope_bytes": .int(Int64(envelopeBytes)),
            "rounds": .array(results.map(\.json)),
            "machine": .object(
                MachineSpeed.report(before: speedBefore, after: speedAfter).merging([
                    "cores": .int(Int64(ProcessInfo.processInfo.activeProcessorCount)),
                    "libzmq": .string(ZMQContext.libraryVersion),
                ]) { $1 }),
        ]
        log(
            String(
                format:
                    "median: frames %.2f× raw (target ≥ 0.85), envelopes %.2f× raw (target ≥ 0.4), rtt p99 %.2f× raw (target ≤ 1.5)",
                framesRatio, envelopeRatio, rttRatio))
        print(report.jsonText)
    }

    // MARK: - (b) and (c)

    private func framesThroughput(
        context: ZMQContext, configuration: HearthConfiguration, topic: [UInt8], body: [UInt8]
    )
        async throws -> Throughput
    {
        let subscriber = try SocketThread(
            context: context, kind: .sub, name: "bench sub", receiveBuffer: Int(Self.highWaterMark)
        ) { socket in
            try socket.setLinger(milliseconds: 0)
            try socket.setHighWaterMarks(send: Self.highWaterMark, receive: Self.highWaterMark)
            try socket.subscribe("bench.")
            try socket.connect(configuration.busSubscribeEndpoint)
        }
        let publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "bench", device: "bench",
            sendHighWaterMark: Self.highWaterMark)
        guard await publisher.waitUntilConnected(timeout: .seconds(5)) else { throw BenchError.busUnreachable }
        var iterator = subscriber.incoming.makeAsyncIterator()
        // Warm up until a message makes it through end to end.
        try publisher.publishFrames([Array("bench.warm".utf8), body])
        while let frames = await iterator.next(), frames.first != Array("bench.warm".utf8) {}

        let progress = Progress(target: messages)
        let started = Date()
        async let receiving: Void = {
            while let frames = await iterator.next() {
                if frames.first == topic, progress.tick() { break }
            }
        }()
        for index in 0..<messages {
            if index % 256 == 0 { await progress.waitForWindow(sent: index) }
            try publisher.publishFrames([topic, body])
        }
        await progress.waitUntilDoneOrIdle()
        await subscriber.close()
        await receiving
        await publisher.close()
        let (received, last) = progress.result
        return Throughput(sent: messages, received: received, seconds: last.timeIntervalSince(started))
    }

    private func envelopeThroughput(
        context: ZMQContext, configuration: HearthConfiguration
    ) async throws
        -> (Throughput, Int)
    {
        let subscriber = try Subscriber(
            context: context, endpoint: configuration.busSubscribeEndpoint, prefixes: ["bench."],
            receiveHighWaterMark: Self.highWaterMark, receiveBuffer: Int(Self.highWaterMark))
        let publisher = try Publisher(
            context: context, endpoint: configuration.busPublishEndpoint, source: "bench-envelopes", device: "bench",
            sendHighWaterMark: Self.highWaterMark)
        guard await publisher.waitUntilConnected(timeout: .seconds(5)) else { throw BenchError.busUnreachable }
        let commands = CommandClient(context: context, endpoint: configuration.commandEndpoint(.bus))
        guard await subscriber.waitUntilSubscribed(bus: commands, timeout: .seconds(5)) else {
            throw BenchError.busUnreachable
        }
        await commands.close()
        let envelope = MachineSpeed.sampleEnvelope(source: "bench-envelopes")
        let (data, sample) = (envelope.data, try EnvelopeCodec().encode(envelope))

        var iterator = subscriber.makeAsyncIterator()
        let progress = Progress(target: messages)
        let started = Date()
        async let receiving: Void = {
            while let message = await iterator.next() {
                if case .event(let topic, _) = message, topic == "bench.envelope", progress.tick() { break }
            }
        }()
        for index in 0..<messages {
            if index % 256 == 0 { await progress.waitForWindow(sent: index) }
            try publisher.publish(topic: "bench.envelope", type: "bench.envelope", data: data)
        }
        await progress.waitUntilDoneOrIdle()
        await subscriber.close()
        await receiving
        await publisher.close()
        let (received, last) = progress.result
        return (Throughput(sent: messages, received: received, seconds: last.timeIntervalSince(started)), sample.count)
    }

    // MARK: - (d)

    private func commandRoundTrips(context: ZMQContext, directory: String, payload: String) async throws -> [Double] {
        let endpoint = "ipc://\(directory)/hearth-rtt.sock"
        let server = try CommandServer(
            context: context, endpoint: endpoint, service: "bench", logger: Logger(label: "bench"),
            handler: { request in .object(request.arguments) })
        let group = ServiceGroup(services: [server], logger: Logger(label: "bench"))
        async let running: Void = group.run()
        let client = CommandClient(context: context, endpoint: endpoint)
        var samples: [Double] = []
        samples.reserveCapacity(roundTrips)
        let clock = ContinuousClock()
        for index in 0..<(1_000 + roundTrips) {
            let start = clock.now
            _ = try await client.request("echo", args: ["p": .string(payload)])
            if index >= 1_000 { samples.append((clock.now - start).seconds * 1_000_000) }
        }
        await client.close()
        await group.triggerGracefulShutdown()
        try await running
        return samples
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}

func round3(_ value: Double) -> Double { (value * 1_000).rounded() / 1_000 }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// p50, p99 and mean of a set of samples, in the samples' unit.
struct Percentiles {
    let p50: Double
    let p99: Double
    let mean: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
        }
        p50 = at(0.50)
        p99 = at(0.99)
        mean = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
    }

    var json: JSONValue {
        ["p50": .double(round3(p50)), "p99": .double(round3(p99)), "mean": .double(round3(mean))]
    }
}

/// Received-message bookkeeping shared by a receiving task and the task that waits for it.
final class Progress: Sendable {
    private let target: Int
    private let state = Mutex<(received: Int, last: Date)>((0, Date()))

    init(target: Int) { self.target = target }

    /// Counts one message; returns `true` once the target is reached.
    func tick() -> Bool {
        state.withLock { state in
            state.received += 1
            state.last = Date()
            return state.received >= target
        }
    }

    var result: (Int, Date) { state.withLock { ($0.received, $0.last) } }

    /// Waits while more than `flowWindow` messages are in flight.
    func waitForWindow(sent: Int) async {
        while sent - result.0 > flowWindow { try? await Task.sleep(for: .microseconds(50)) }
    }

    /// Returns when every message arrived, or when none arrived for a second (the rest were lost).
    func waitUntilDoneOrIdle() async {
        while true {
            let (received, last) = result
            if received >= target || Date().timeIntervalSince(last) > 1 { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

enum BenchError: Error {
    case busUnreachable
    case sqlite(String)
}
