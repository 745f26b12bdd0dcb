import Foundation
import HearthCore

/// Lower-case UUID text, the form Hearth uses for every id on the wire.
public enum UUIDText {
    /// A fresh random (version 4) UUID as `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
    ///
    /// Built by hand from the system's CSPRNG: `UUID().uuidString.lowercased()` cost ~4 µs here,
    /// and every event needs an id.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }

    /// The same UUID for the same `name` every time (its bits drawn from a generator seeded with
    /// the name's `FNV1a` hash, in the version-4 form Hearth's ids take): another app's UID
    /// (`040000008200E…@outlook.com`) names the same Hearth entity on every import.
    public static func named(_ name: String) -> String {
        var generator = SplitMix64(seed: FNV1a.hash(name.utf8))
        return make(using: &generator)
    }

    /// A random (version 4) UUID drawn from `generator`.
    public static func make(using generator: inout some RandomNumberGenerator) -> String {
        var words = (generator.next() as UInt64, generator.next() as UInt64)
        withUnsafeMutableBytes(of: &words) { bytes in
            bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
            bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        }
        // Written straight into the string's own storage: building an array first and copying
        // it into the string allocated twice per id.
        return String(unsafeUninitializedCapacity: 36) { text in
            var cursor = 0
            withUnsafeBytes(of: words) { bytes in
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[cursor] = UInt8(ascii: "-")
                        cursor += 1
                    }
                    text[cursor] = hexDigit(byte >> 4)
                    text[cursor + 1] = hexDigit(byte & 0x0F)
                    cursor += 2
                }
            }
            return cursor
        }
    }

    /// The lower-case hex digit of a value below 16.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }
}

/// A fast generator for event ids: xoshiro256** seeded from the system's CSPRNG.
///
/// Publishers need an id per event, and a system call per id cost ~0.9 µs. Ids must be unique,
/// not secret: 256 bits of seed from the kernel and a 2^256 − 1 period make a collision between
/// any two ids as unlikely as between two random UUIDs.
public struct EventIDGenerator: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init() {
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next())
        if state == (0, 0, 0, 0) { state.0 = 1 }
    }

    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A fresh event id in UUID form.
    public mutating func makeID() -> String { UUIDText.make(using: &self) }
}
