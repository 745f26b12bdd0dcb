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
