import Foundation

/// This stack's device id: a UUID created on first use and kept in `$HEARTH_HOME/device-id`.
public enum DeviceIdentity {
    /// Reads the device id, creating it (mode 0600) when absent.
    ///
    /// Two processes starting at once agree: the id is written to a private temporary file and
    /// hard-linked into place, which fails if another process got there first; then the file
    /// is read back.
    /// - Throws: `ConfigurationError` when the file cannot be read or written.
    public static func load(home: String) throws(ConfigurationError) -> String {
        let path = (home as NSString).appendingPathComponent("device-id")
        if let existing = read(path) { return existing }
        let temporary = path + ".\(getpid()).tmp"
        let id = UUID().uuidString.lowercased()
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data((id + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw ConfigurationError(origin: "file system", key: temporary, rule: "cannot write the device id")
        }
        _ = link(temporary, path)
        unlink(temporary)
        guard let stored = read(path) else {
            throw ConfigurationError(origin: "file system", key: path, rule: "is not a readable device id")
        }
        return stored
    }

    private static func read(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
    }
}

extension DeviceIdentity {
    /// This device's CURVE key pair for encrypted links between devices, created on first use and
    /// kept in `$HEARTH_HOME/curve-secret-key` (mode 0600; the public key is derived from it).
    /// - Throws: `ConfigurationError` when the file cannot be read or written or holds no valid key.
    public static func keyPair(home: String) throws(ConfigurationError) -> CurveKeyPair {
        let path = (home as NSString).appendingPathComponent("curve-secret-key")
        if read(path) == nil {
            let temporary = path + ".\(getpid()).tmp"
            guard let fresh = try? CurveKeyPair.generate(),
                FileManager.default.createFile(
                    atPath: temporary, contents: Data((fresh.secretKey + "\n").utf8),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw ConfigurationError(origin: "file system", key: path, rule: "cannot write a new CURVE key")
            }
            _ = link(temporary, path)  // the first process to get there wins, as for the device id
            unlink(temporary)
        }
        guard let secret = read(path), secret.utf8.count == 40,
            let publicKey = try? CurveKeyPair.publicKey(forSecretKey: secret)
        else {
            throw ConfigurationError(
                origin: "file system", key: path, rule: "is not a Z85 CURVE secret key (40 characters)")
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secret)
    }
}
