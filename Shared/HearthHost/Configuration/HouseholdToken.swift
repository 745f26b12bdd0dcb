import Foundation
import HearthBus

/// The household's web token: what a phone or another computer shows to reach `hearth-web` when
/// it listens beyond loopback. 32 random bytes as 64 hex digits in `$HEARTH_HOME/web-token`
/// (mode 0600); `hearth web token` prints it as a URL, `hearth web token --revoke` replaces it
/// (every device holding the old one is refused from then on).
public enum HouseholdToken {
    /// The token file in `home`.
    public static func path(home: String) -> String { (home as NSString).appendingPathComponent("web-token") }

    /// The current token, or `nil` if none was made yet (or the file is not a token).
    public static func read(home: String) -> String? {
        PrivateFile.line(at: path(home: home)).flatMap { isWellFormed($0) ? $0 : nil }
    }

    /// The current token, made and saved first if there is none (two processes doing this at
    /// once agree on one token), or replaced if the file holds something else.
    /// - Throws: `ConfigurationError` if the file cannot be written.
    public static func current(home: String) throws(ConfigurationError) -> String {
        if let token = try PrivateFile.line(at: path(home: home), what: "web token", orCreate: make),
            isWellFormed(token)
        {
            return token
        }
        return try replace(home: home)
    }

    /// Makes a new token and saves it in place of the old one.
    /// - Throws: `ConfigurationError` if the file cannot be written.
    @discardableResult
    public static func replace(home: String) throws(ConfigurationError) -> String {
        let token = make()
        try PrivateFile.replaceLine(at: path(home: home), with: token, what: "web token")
        return token
    }

    /// 32 random bytes as 64 lower-case hex digits.
    private static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
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
