import CSodium
import HearthCore
import HearthTrust

/// Pairing two devices by numeric comparison, as Bluetooth LE Secure Connections does: both
/// devices show the same six-digit code, derived from both public keys and a fresh nonce from
/// each side, and a person confirms on both that the codes match.
///
/// The nonces are exchanged commit-then-reveal: the responder first sends a commitment to its
/// nonce, then the initiator reveals its own, then the responder reveals its nonce, which the
/// initiator checks against the commitment. A device in the middle must pick its keys and nonce
/// before it learns the other side's nonce, so it gets one guess at a matching code (1 in a
/// million), not the chance to grind keys until the codes match — which a code from the static
/// keys alone would allow (this machine makes about 36,000 CURVE key pairs a second).
///
/// Hashes are libsodium's BLAKE2b (`crypto_generichash`) over length-prefixed inputs with a
/// purpose tag, so a commitment can never be replayed as a code or the other way round.
public enum Pairing {
    /// The bytes of a nonce.
    public static let nonceBytes = 16

    /// A fresh random nonce (libsodium's `randombytes_buf`).
    public static func nonce() -> [UInt8] {
        Sodium.ready()
        var bytes = [UInt8](repeating: 0, count: nonceBytes)
        randombytes_buf(&bytes, nonceBytes)
        return bytes
    }

    /// The responder's commitment to its nonce.
    public static func commitment(initiatorKey: String, responderKey: String, responderNonce: [UInt8]) -> [UInt8] {
        Sodium.hash("hearth/pair/commit/1", [Array(initiatorKey.utf8), Array(responderKey.utf8), responderNonce])
    }

    /// Whether a revealed nonce is the one committed to (compared in constant time).
    public static func verify(
        commitment: [UInt8], initiatorKey: String, responderKey: String, responderNonce: [UInt8]
    ) -> Bool {
        let expected = self.commitment(
            initiatorKey: initiatorKey, responderKey: responderKey, responderNonce: responderNonce)
        guard commitment.count == expected.count, responderNonce.count == nonceBytes else { return false }
        return sodium_memcmp(commitment, expected, expected.count) == 0
    }

    /// The six-digit code both devices show.
    public static func code(
        initiatorKey: String, responderKey: String, initiatorNonce: [UInt8], responderNonce: [UInt8]
    ) -> PairingCode {
        let digest = Sodium.hash(
            "hearth/pair/code/1",
            [Array(initiatorKey.utf8), Array(responderKey.utf8), initiatorNonce, responderNonce])
        let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return PairingCode(value: UInt32(number % 1_000_000))
    }

    /// A device key's fingerprint as people read it: twelve hex digits in three groups
    /// (`3F2A 9C1E 7B04`), from BLAKE2b of the key, for lists and logs (not for pairing: the
    /// code does that).
    public static func fingerprint(_ key: String) -> String {
        Sodium.fingerprint("hearth/fingerprint/1", Array(key.utf8))
    }
}

/// A pairing code: six digits, shown as `123 456`.
public struct PairingCode: Sendable, Hashable, CustomStringConvertible {
    /// 0–999,999.
    public let value: UInt32

    init(value: UInt32) { self.value = value }

    /// A code as a person types it: six digits, spaces anywhere (`123 456`, `123456`).
    /// - Throws: `RuleError` for `field`.
    public init(parsing text: String, field: String = "code") throws(RuleError) {
        let digits = text.filter { $0 != " " }
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt32(digits) else {
            throw RuleError(field: field, rule: "must be the six digits shown, such as 123 456, got '\(text)'")
        }
        self.value = value
    }

    public var description: String {
        let text = String(value)
        let padded = String(repeating: "0", count: 6 - text.count) + text
        return "\(padded.prefix(3)) \(padded.suffix(3))"
    }
}
