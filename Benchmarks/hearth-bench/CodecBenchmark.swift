import ArgumentParser
import Foundation
import HearthBus

/// `hearth-bench codec`: what one event costs to build, encode and decode, in nanoseconds.
///
/// This is where the envelope path's time goes beyond moving bytes; it has no raw counterpart.
struct CodecBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codec",
        abstract: "Per-event cost of envelope ids, timestamps, encoding and decoding (ns per operation)."
    )

    @Option(help: "Operations per measurement.")
    var iterations = 200_000

    func run() async throws {
        let codec = EnvelopeCodec()
        let data: JSONValue = ["player": "Ann", "turn": 12]
        let envelope = Envelope(source: "bench", device: "bench", seq: 1, type: "bench.envelope", data: data)
        let frame = try codec.encode(envelope)
        var ids = EventIDGenerator()
        var sink = 0
        func measure(_ body: () throws -> Int) rethrows -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<iterations { sink &+= try body() }
            return ((clock.now - start).seconds * 1e9 / Double(iterations) * 10).rounded() / 10
        }
        let report: JSONValue = [
            "envelope_bytes": .int(Int64(frame.count)),
            "ns_per_op": [
                "event_id": .double(measure { ids.makeID().utf8.count }),
                "timestamp_format": .double(measure { Timestamp.format(envelope.timestamp).utf8.count }),
                "encode": .double(try measure { try codec.encode(envelope).count }),
                "decode": .double(try measure { Int(try codec.decode(frame).seq) }),
                "json_parse": .double(try measure { try JSONValue.parse(frame).objectValue?.count ?? 0 }),
                "utf8_validate": .double(measure { String(validating: frame, as: UTF8.self)?.utf8.count ?? 0 }),
            ],
        ]
        print(report.jsonText)
        if sink == 42 { print("") }
    }
}
