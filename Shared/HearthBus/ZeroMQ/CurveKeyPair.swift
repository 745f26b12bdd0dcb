import CZeroMQ

/// A CurveZMQ key pair, both keys in Z85 text (40 characters each).
public struct CurveKeyPair: Sendable, Equatable, Codable {
    public let publicKey: String
    public let secretKey: String

    /// A key pair from its two Z85 keys (which must belong together: `publicKey(forSecretKey:)`).
    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Generates a fresh key pair with libzmq's CSPRNG-backed `zmq_curve_keypair`.
    /// - Throws: `ZMQError` when libzmq was built without CURVE support.
    public static func generate() throws -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else {
            throw ZMQError.last("zmq_curve_keypair")
        }
        return CurveKeyPair(
            publicKey: String(decoding: publicKey.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self),
            secretKey: String(decoding: secretKey.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        )
    }

    /// The public key that belongs to a Z85 secret key.
    public static func publicKey(forSecretKey secretKey: String) throws -> String {
        var publicKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicKey, secretKey) == 0 else {
            throw ZMQError.last("zmq_curve_public")
        }
        return String(decoding: publicKey.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
