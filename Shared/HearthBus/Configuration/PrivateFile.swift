import Foundation

/// Files only the household's own user may read: the database, the device key, the logs.
public enum PrivateFile {
    /// Makes `path` readable and writable by its owner only (0600) if others could read it
    /// (a copied home, a restored backup, a file made under a loose umask).
    public static func tighten(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        chmod(path, 0o600)
    }
}
