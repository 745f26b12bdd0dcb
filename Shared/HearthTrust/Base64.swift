import Foundation

/// Standard base64 (RFC 4648 §4, with padding, Foundation's), strict on the way in: a text is
/// taken only in the one spelling Foundation writes, so a changed character always changes the
/// bytes (decoding alone ignores the unused low bits of the last character).
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// The bytes of `text` if it is the canonical base64 of exactly `count` bytes.
    static func decode(_ text: String, count: Int) -> [UInt8]? {
        guard text.utf8.count == (count + 2) / 3 * 4, let data = Data(base64Encoded: text), data.count == count,
            data.base64EncodedString() == text
        else { return nil }
        return Array(data)
    }
}
