import Foundation
import HearthBus

/// How fast this machine runs Hearth's own code while a benchmark runs: the envelope decode of
/// `hearth-bench codec` (the same 177-byte envelope, one thread, nothing else of the benchmark's
/// running), timed just before and just after it, and in `bus` at each round's middle.
///
/// The machines Hearth is measured on are virtual, with two cores whose speed moves with the host
/// in stretches of seconds to hours, and nothing inside the guest shows it (no steal time, no
/// hardware counters). The same binary decoded that envelope in 386–429 ns on 2026-11-25 and in
/// 825–2,194 ns over about a hundred runs on 2026-11-27, flipping between about 900 and 1,600 ns
/// from one run of a few seconds to the next on either core; a CPU-bound path (Hearth's envelopes, a turn's code)
/// slows with it, where raw libzmq's path, which waits on wake-ups more than it computes, moves
/// less. Every `bus` and `turn` report carries the figure, so a reader can tell which stretch a
/// result came from; it is a yardstick, never a correction applied to the results.
enum MachineSpeed {
    /// The envelope the yardstick decodes, `hearth-bench codec`'s; the bus benchmark's (c)
    /// publishes the same with a source of its own.
    static func sampleEnvelope(source: String = "bench") -> Envelope {
        Envelope(source: source, device: "bench", seq: 1, type: "bench.envelope", data: ["player": "Ann", "turn": 12])
    }

    /// Nanoseconds per envelope decode, the median of `samples` timings of `iterations` decodes each.
    static func envelopeDecodeNanoseconds(iterations: Int = 50_000, samples: Int = 5) throws -> Double {
        let codec = EnvelopeCodec()
        let frame = try codec.encode(sampleEnvelope())
        let clock = ContinuousClock()
        var sink: UInt64 = 0
        var timings: [Double] = []
        for _ in 0..<samples {
            let start = clock.now
            for _ in 0..<iterations { sink &+= try codec.decode(frame).seq }
            timings.append((clock.now - start).seconds * 1e9 / Double(iterations))
        }
        if sink == 42 { print("") }
        return median(timings)
    }

    /// The report's entry: the decode's cost before and after, in ns.
    static func report(before: Double, after: Double) -> [String: JSONValue] {
        ["envelope_decode_ns": ["before": json(before), "after": json(after)]]
    }

    /// One figure as reported: ns to a tenth.
    static func json(_ nanoseconds: Double) -> JSONValue { .double((nanoseconds * 10).rounded() / 10) }
}
