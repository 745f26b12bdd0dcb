import Foundation

/// A small deterministic random generator (SplitMix64), so a test that draws random inputs or
/// timings can print its seed and a failing run can be replayed exactly.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A seed from the `HEARTH_TEST_SEED` environment variable when set (to replay a failure),
    /// else a fresh one; either way the test should print it.
    public static func seed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["HEARTH_TEST_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0...UInt64.max)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
