import ArgumentParser
import Foundation
import HearthBus
import HearthCore

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
        let envelope = MachineSpeed.sampleEnvelope()
        let frame = try codec.encode(envelope)
        var ids = EventIDGenerator()
        var sink = 0
        func measure(_ body: () throws -> Int) rethrows -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<iterations { sink &+= try body() }
            return ((clock.now - start).seconds * 1e9 / Double(iterations) * 10).rounded() / 10
        }
        // A game of four at two devices, as the turn service pushes it to the other device on
        // every turn: `Codable` through `JSONValueEncoder` and `JSONValueDecoder`.
        var session = try TurnSession(
            id: "5f0c2a8e-2d4b-4a8f-9a51-0c6d1e2f3a4b", code: "KQ7-D",
            leader: .init(id: "p1", name: "Ann", device: "device-one"))
        for (id, name, device) in [
            ("p2", "Bob", "device-two"), ("p3", "Cai", "device-one"), ("p4", "Dee", "device-two"),
        ] {
            _ = try session.join(.init(id: id, name: name, device: device))
        }
        _ = try session.start(by: "p1")
        let sessionValue = try JSONValue(encoding: session)
        let sessionBytes = sessionValue.jsonBytes
        // What a turn passed pushes instead (`TurnSession.Step`): the fields that moved.
        var next = session
        let done = try next.done(by: "p1", seq: next.seq)
        guard let step = TurnSession.Step(from: session, to: next, change: done) else {
            throw ValidationError("a turn passed made no step")
        }
        let stepBytes = try JSONValue(encoding: step).jsonBytes
        let report: JSONValue = [
            "envelope_bytes": .int(Int64(frame.count)),
            "ns_per_op": [
                "event_id": .double(measure { ids.makeID().utf8.count }),
                "timestamp_format": .double(measure { Timestamp.format(envelope.timestamp).utf8.count }),
                "encode": .double(try measure { try codec.encode(envelope).count }),
                "decode": .double(try measure { Int(try codec.decode(frame).seq) }),
                "json_parse": .double(try measure { try JSONValue.parse(frame).objectValue?.count ?? 0 }),
                "utf8_validate": .double(measure { String(validating: frame, as: UTF8.self)?.utf8.count ?? 0 }),
                "codable_encode": .double(try measure { try JSONValue(encoding: session).objectValue?.count ?? 0 }),
                "codable_decode": .double(try measure { Int(try sessionValue.decode(TurnSession.self).seq) }),
                // The session to the bytes of a frame, as a turn service writes its state push.
                "codable_bytes": .double(try measure { try JSONValue(encoding: session).jsonBytes.count }),
                // And the bytes back to a session, as the other device's turn service reads it.
                "codable_read": .double(
                    try measure { Int(try JSONValue.parse(sessionBytes).decode(TurnSession.self).seq) }),
                // The same two for the step a turn passed is pushed as now.
                "step_bytes": .double(try measure { try JSONValue(encoding: step).jsonBytes.count }),
                "step_read": .double(
                    try measure { Int(try JSONValue.parse(stepBytes).decode(TurnSession.Step.self).seq) }),
            ],
        ]
        print(report.jsonText)
        if sink == 42 { print("") }
    }
}
