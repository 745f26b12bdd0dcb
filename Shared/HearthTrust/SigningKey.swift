import CSodium
import HearthCore

/// A device's Ed25519 signing key (libsodium's `crypto_sign`): every operation the device writes
/// carries its signature, so a device that relays it cannot have changed it, and no device can
/// write in another's name.
///
/// It is derived from the device's one secret, its CURVE secret key
/// (`$HEARTH_HOME/curve-secret-key`), as the seed BLAKE2b("hearth/sign/1" ‖ secret): one file to
/// keep private and back up, and a copied home signs as the device it copied (which the beacon's
/// clone check already reports), while a signature never reveals anything of the CURVE key.
public struct SigningKey: Sendable {
    /// What others verify this key's signatures with.
    public let publicKey: SigningPublicKey
    /// libsodium's 64-byte secret key (the seed, then the public key).
    private let secret: [UInt8]

    /// The key pair made from a 32-byte seed (the same seed always makes the same pair).
    public init(seed: [UInt8]) {
        precondition(seed.count == Int(crypto_sign_SEEDBYTES), "an Ed25519 seed is 32 bytes")
        Sodium.ready()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var secret = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        crypto_sign_seed_keypair(&publicKey, &secret, seed)
        self.publicKey = SigningPublicKey(unchecked: publicKey)
        self.secret = secret
    }

    /// This device's signing key, from its CURVE secret key (Z85 text, as stored).
    public static func derived(fromCurveSecret curveSecret: String) -> SigningKey {
        SigningKey(seed: Sodium.hash("hearth/sign/1", [Array(curveSecret.utf8)]))
    }

    /// A fresh random key (for tests and benchmarks that play other devices).
    public static func generate() -> SigningKey {
        Sodium.ready()
        var seed = [UInt8](repeating: 0, count: Int(crypto_sign_SEEDBYTES))
        randombytes_buf(&seed, seed.count)
        return SigningKey(seed: seed)
    }

    /// The detached signature of `bytes`.
    public func sign(_ bytes: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        crypto_sign_detached(&signature, nil, bytes, UInt64(bytes.count), secret)
        return signature
    }

    /// The signature of `operation`'s canonical bytes (`Operation.signedBytes`).
    public func sign(_ operation: Operation) -> OperationSignature {
        OperationSignature(unchecked: sign(operation.signedBytes))
    }
}

/// A device's signing public key: 32 bytes, written as base64 (44 characters) in operations'
/// trust records, pairing messages and export files.
public struct SigningPublicKey: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Reads a key as written (`text`): exactly 32 bytes in canonical base64, nothing else.
    public init?(text: String) {
        guard let bytes = Base64.decode(text, count: Int(crypto_sign_PUBLICKEYBYTES)) else { return nil }
        self.bytes = bytes
    }

    /// The key in base64.
    public var text: String { Base64.encode(bytes) }

    public var description: String { text }

    /// The key as people compare it: twelve hex digits in three groups (`3F2A 9C1E 7B04`), from
    /// BLAKE2b of the key.
    public var fingerprint: String { Sodium.fingerprint("hearth/fingerprint/sign/1", bytes) }

    /// Whether `signature` is this key's signature of `bytes`.
    public func verifies(_ signature: [UInt8], of bytes: [UInt8]) -> Bool {
        guard signature.count == Int(crypto_sign_BYTES) else { return false }
        Sodium.ready()
        return crypto_sign_verify_detached(signature, bytes, UInt64(bytes.count), self.bytes) == 0
    }

    /// Whether `signature` is this key's signature of `operation`.
    public func verifies(_ signature: OperationSignature, of operation: Operation) -> Bool {
        verifies(signature.bytes, of: operation.signedBytes)
    }
}

/// One signature to check: `signature` of `operation` by the holder of `key`.
public struct SignatureCheck: Sendable {
    public let operation: Operation
    public let signature: OperationSignature
    public let key: SigningPublicKey

    public init(operation: Operation, signature: OperationSignature, key: SigningPublicKey) {
        self.operation = operation
        self.signature = signature
        self.key = key
    }

    /// Whether the signature verifies.
    public var verifies: Bool { key.verifies(signature, of: operation) }
}

/// An operation's signature by its author: 64 bytes, written as base64 (88 characters) in the
/// operation's `sig`.
public struct OperationSignature: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Reads a signature as written: exactly 64 bytes in canonical base64.
    public init?(text: String) {
        guard let bytes = Base64.decode(text, count: Int(crypto_sign_BYTES)) else { return nil }
        self.bytes = bytes
    }

    public var text: String { Base64.encode(bytes) }

    public var description: String { text }
}

/// libsodium's set-up and the project's purpose-tagged hash (shared with pairing).
package enum Sodium {
    /// `sodium_init` (safe to call again and from any thread).
    package static func ready() { _ = sodium_init() }

    /// BLAKE2b-256 over length-prefixed parts behind a purpose tag, so an input of one purpose can
    /// never be taken for another's.
    package static func hash(_ purpose: String, _ parts: [[UInt8]]) -> [UInt8] {
        ready()
        var input: [UInt8] = []
        for part in [Array(purpose.utf8)] + parts {
            let length = UInt32(part.count)
            input += [
                UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
            ]
            input += part
        }
        var digest = [UInt8](repeating: 0, count: 32)
        crypto_generichash(&digest, 32, input, UInt64(input.count), nil, 0)
        return digest
    }

    /// Twelve hex digits in three groups (`3F2A 9C1E 7B04`): the first six bytes of `hash`, for
    /// people to compare keys by eye.
    package static func fingerprint(_ purpose: String, _ key: [UInt8]) -> String {
        let hex = hash(purpose, [key]).prefix(6).map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        return stride(from: 0, to: 12, by: 4).map { String(hex.dropFirst($0).prefix(4)) }.joined(separator: " ")
    }
}
