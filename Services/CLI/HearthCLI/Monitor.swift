import ArgumentParser
import Foundation
import HearthBus
import HearthHost
import UnixSignals

/// `hearth monitor`: watch the bus live.
struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Print every event on the bus as it happens (Ctrl-C to stop).",
        discussion: """
            One line per event: time, topic, source and seq, and a short summary of its data; \
            with --json, one JSON object per line. A gap in a publisher's sequence (events lost \
            on the way) is reported where it is seen. Malformed messages are reported too.
            """
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Only show topics starting with these prefixes (default: everything).")
    var prefixes: [String] = []

    func run() async throws {
        let configuration = try options.loadConfiguration()
        let context = try ZMQContext(configuration: configuration)
        // Subscribe to everything and filter here: a prefix subscription would hide part of each
        // publisher's sequence and make every skipped event look like a gap.
        let subscriber = try Subscriber(
            context: context,
            endpoint: configuration.busSubscribeEndpoint,
            maximumMessageBytes: configuration.maximumMessageBytes
        )
        let bus = CommandClient(
            context: context,
            endpoint: configuration.commandEndpoint(.bus),
            timeout: .milliseconds(250),
            attempts: 1
        )
        if await subscriber.waitUntilSubscribed(bus: bus, timeout: options.timeoutDuration) {
            Output.error("hearth monitor: watching \(configuration.busSubscribeEndpoint) (Ctrl-C to stop)")
        } else {
            Output.error(
                "hearth monitor: no bus answering at \(configuration.commandEndpoint(.bus)) yet; waiting for it (Ctrl-C to stop)"
            )
        }
        await bus.close()

        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        await withTaskGroup(of: Void.self) { group in
            let zone = configuration.household.timeZone
            group.addTask { await self.print(subscriber, zone) }
            group.addTask {
                for await _ in signals { break }
            }
            await group.next()
            group.cancelAll()
            await subscriber.close()
        }
        await context.terminate()
    }

    private func print(_ subscriber: Subscriber, _ zone: TimeZone) async {
        for await message in subscriber {
            switch message {
            case .event(let topic, let envelope):
                guard prefixes.isEmpty || prefixes.contains(where: { topic.hasPrefix($0) }) else { continue }
                Output.line(
                    options.json ? Self.json(topic: topic, envelope) : Self.text(topic: topic, envelope, zone: zone))
            case .gap(let gap):
                if options.json {
                    Output.json([
                        "gap": .object([
                            "src": .string(gap.source), "dev": .string(gap.device),
                            "expected": .int(Int64(gap.expected)), "received": .int(Int64(gap.received)),
                            "missing": .int(Int64(gap.missing)),
                        ])
                    ])
                } else {
                    Output.line("!! gap: \(gap)")
                }
            case .rejected(let topic, let error):
                if options.json {
                    Output.json([
                        "rejected": [
                            "topic": .string(topic), "code": .string(error.code), "reason": .string(error.description),
                        ]
                    ])
                } else {
                    Output.line("!! rejected \(topic.isEmpty ? "message" : topic): \(error)")
                }
            }
        }
    }

    static func json(topic: String, _ envelope: Envelope) -> String {
        let body = (try? EnvelopeCodec(maximumBytes: .max).encode(envelope)) ?? []
        return #"{"topic":"# + JSONValue.string(topic).jsonText + #","event":"# + String(decoding: body, as: UTF8.self)
            + "}"
    }

    /// One event as a line, its time of day on the household's wall clock.
    static func text(topic: String, _ envelope: Envelope, zone: TimeZone) -> String {
        let time = Dates.timeOfDay(envelope.timestamp, zone, milliseconds: true)
        var summary = envelope.data.jsonText
        if summary.count > 100 { summary = String(summary.prefix(99)) + "…" }
        return "\(time)  \(topic)  \(envelope.source)#\(envelope.seq)  \(summary)"
    }
}
