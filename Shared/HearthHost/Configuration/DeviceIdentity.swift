import Foundation
import HearthBus

/// This stack's identity: a device id (a UUID in `$HEARTH_HOME/device-id`) and a CURVE key pair
/// (`$HEARTH_HOME/curve-secret-key`), each created on first use with mode 0600.
public enum DeviceIdentity {
    /// Reads the device id, creating it when absent.
    /// - Throws: `ConfigurationError` when the file cannot be read or written.
    public static func load(home: String) throws(ConfigurationError) -> String {
        let path = (home as NSString).appendingPathComponent("device-id")
        guard let id = try PrivateFile.line(at: path, what: "device id", orCreate: { UUID().uuidString.lowercased() })
        else {
            throw ConfigurationError(origin: "file system", key: path, rule: "is not a readable device id")
        }
        return id
    }

    /// This device's CURVE key pair for encrypted links between devices (the public key is
    /// derived from the stored secret key).
    /// - Throws: `ConfigurationError` when the file cannot be read or written or holds no valid key.
    public static func keyPair(home: String) throws(ConfigurationError) -> CurveKeyPair {
        let path = (home as NSString).appendingPathComponent("curve-secret-key")
        guard
            let secret = try PrivateFile.line(
                at: path, what: "CURVE key", orCreate: { try? CurveKeyPair.generate().secretKey }),
            secret.utf8.count == 40, let publicKey = try? CurveKeyPair.publicKey(forSecretKey: secret)
        else {
            throw ConfigurationError(
                origin: "file system", key: path, rule: "is not a Z85 CURVE secret key (40 characters)")
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secret)
    }

    /// This machine's host name (`gethostname`), what a new device is called until it is renamed
    /// (the family sees "dads-laptop", not "This device"); "This device" when there is none or it
    /// is over 60 characters.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "This device" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
        return name.isEmpty || name.count > 60 ? "This device" : name
    }
}
