/// The rules a bus topic follows, so subscribers can rely on dot-separated prefixes.
///
/// A topic is 1–255 bytes of dot-separated segments; each segment is non-empty and made of
/// ASCII letters, digits, `-` and `_` (for example `turn.J7X-3.changed`).
public enum Topic {
    /// The longest topic in bytes.
    public static let maximumLength = 255

    /// Checks `topic` against the rules.
    /// - Throws: `EnvelopeError.invalidTopic` naming the rule it breaks.
    public static func validate(_ topic: String) throws(EnvelopeError) {
        try validate(bytes: Array(topic.utf8))
    }

    /// Checks a topic frame as it arrives off the wire.
    public static func validate(bytes: [UInt8]) throws(EnvelopeError) {
        // `withUnsafeBytes` rethrows untyped errors: the outcome comes out as a typed Result.
        let outcome = bytes.withUnsafeBytes { buffer in
            Result { () throws(EnvelopeError) in try validate(buffer: buffer) }
        }
        try outcome.get()
    }

    /// Checks a topic frame where it lies (the bus proxy reads it inside libzmq's message).
    public static func validate(buffer bytes: UnsafeRawBufferPointer) throws(EnvelopeError) {
        guard !bytes.isEmpty else { throw .invalidTopic("", rule: "a topic must not be empty") }
        // Made only for an error: every event on the bus passes here (the proxy, each subscriber).
        var shown: String { String(decoding: bytes.prefix(64), as: UTF8.self) }
        guard bytes.count <= maximumLength else {
            throw .invalidTopic(shown, rule: "a topic is at most \(maximumLength) bytes; this one is \(bytes.count)")
        }
        var segmentLength = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard segmentLength > 0 else {
                    throw .invalidTopic(shown, rule: "segments between dots must not be empty")
                }
                segmentLength = 0
            } else if isSegmentByte(byte) {
                segmentLength += 1
            } else {
                throw .invalidTopic(
                    shown,
                    rule: "segments may hold only letters, digits, '-' and '_'"
                )
            }
        }
        guard segmentLength > 0 else {
            throw .invalidTopic(shown, rule: "segments between dots must not be empty")
        }
    }

    /// Whether `topic` follows the rules.
    public static func isValid(bytes: [UInt8]) -> Bool {
        (try? validate(bytes: bytes)) != nil
    }

    /// Whether the topic frame at `buffer` follows the rules.
    public static func isValid(buffer: UnsafeRawBufferPointer) -> Bool {
        (try? validate(buffer: buffer)) != nil
    }

    private static func isSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
