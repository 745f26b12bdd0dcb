import Foundation

/// The household's web token: what a phone or another computer shows to reach `hearth-web` when
/// it listens beyond loopback. 32 random bytes as 64 hex digits in `$HEARTH_HOME/web-token`
/// (mode 0600); `hearth web token` prints it as a URL, `hearth web token --revoke` replaces it
/// (every device holding the old one is refused from then on).
public enum HouseholdToken {
    /// The token file in `home`.
    public static func path(home: String) -> String { (home as NSString).appendingPathComponent("web-token") }

    /// The current token, or `nil` if none was made yet (or the file is not a token).
    public static func read(home: String) -> String? {
        guard let text = try? String(contentsOfFile: path(home: home), encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return isWellFormed(token) ? token : nil
    }

    /// The current token, made and saved first if there is none.
    /// - Throws: `SystemCallError` if the file cannot be written.
    public static func current(home: String) throws -> String {
        if let token = read(home: home) { return token }
        return try replace(home: home)
    }

    /// Makes a new token and saves it in place of the old one (written to a temporary file and
    /// renamed, so a reader sees the old or the new token, never half of one).
    /// - Throws: `SystemCallError` if the file cannot be written.
    @discardableResult
    public static func replace(home: String) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
        let target = path(home: home)
        let temporary = target + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SystemCallError.last("open \(temporary)") }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else { throw SystemCallError.last("write \(temporary)") }
        guard rename(temporary, target) == 0 else { throw SystemCallError.last("rename \(target)") }
        return token
    }

    /// Whether `token` has the token's shape (64 lower-case hex digits).
    public static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Compares in time independent of where the two differ, so that timing does not tell an
    /// attacker how much of a guess was right.
    public static func matches(_ given: String, _ expected: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(expected.utf8))
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
