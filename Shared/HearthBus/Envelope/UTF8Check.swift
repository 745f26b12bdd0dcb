/// Whether bytes are valid UTF-8, the one check every JSON reader here makes before parsing.
enum UTF8Check {
    /// Whether `bytes` are valid UTF-8. Envelopes, commands and replies are nearly always ASCII,
    /// and ASCII is valid UTF-8: that is checked eight bytes at a time, and only text with other
    /// bytes goes to `String(validating:)`, which allocates the `String` it checks.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isASCII(UnsafeRawBufferPointer(bytes)) || String(validating: bytes, as: UTF8.self) != nil
    }

    /// Whether every byte is below 0x80, read a word at a time.
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var seen: UInt64 = 0
        while index + 8 <= bytes.count {
            seen |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            seen |= UInt64(bytes[index])
            index += 1
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }
}
