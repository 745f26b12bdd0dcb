import Foundation
import HearthBus

/// Files only the household's own user may read: the database, the device key, the logs.
public enum PrivateFile {
    /// Makes `path` readable and writable by its owner only (0600) if others could read it
    /// (a copied home, a restored backup, a file made under a loose umask).
    public static func tighten(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        chmod(path, 0o600)
    }

    /// The one-line value in `path` (trimmed), or `nil` if it is missing, unreadable or empty.
    public static func line(at path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// The one-line value in `path`, written first (mode 0600) from `make` when absent.
    ///
    /// Two processes starting at once agree: the value is written to a private temporary file and
    /// hard-linked into place, which fails if another process got there first; then the file is
    /// read back.
    /// - Parameter what: what the value is, for the error.
    /// - Throws: `ConfigurationError` when the value cannot be written.
    public static func line(
        at path: String, what: String, orCreate make: () -> String?
    ) throws(ConfigurationError) -> String? {
        if let existing = line(at: path) {
            // Found readable by others (copied, or restored from a backup): private again.
            tighten(path)
            return existing
        }
        let temporary = path + ".\(getpid()).tmp"
        guard let value = make(),
            FileManager.default.createFile(
                atPath: temporary, contents: Data((value + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw ConfigurationError(origin: "file system", key: temporary, rule: "cannot write the \(what)")
        }
        _ = link(temporary, path)
        unlink(temporary)
        return line(at: path)
    }

    /// Puts `value` in `path` in place of what it held (mode 0600), whole: written to a temporary
    /// file and renamed, so a reader sees the old value or the new one, never half of one.
    /// - Throws: `ConfigurationError` when it cannot be written.
    public static func replaceLine(at path: String, with value: String, what: String) throws(ConfigurationError) {
        let temporary = path + ".\(getpid()).tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data((value + "\n").utf8), attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            throw ConfigurationError(origin: "file system", key: path, rule: "cannot write the \(what)")
        }
    }
}
