/// 64-bit FNV-1a: a name for some bytes that is the same in every process and on every machine
/// (Swift's `Hasher` is seeded per process), for the content-derived ids and tags Hearth gives:
/// the UID of a calendar event that has none, the id of a todo another app's UID names, a
/// calendar feed's ETag. It names; it does not protect (no secret rests on it). Ten lines, so
/// written here rather than taken from a library.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    }

    /// The hash of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = FNV1a()
        hash.add(bytes)
        return hash.value
    }
}
