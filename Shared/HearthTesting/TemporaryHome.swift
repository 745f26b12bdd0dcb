import Foundation
import HearthBus
import HearthHost

/// A fresh, empty `HEARTH_HOME` under `/tmp` (short, so `ipc://` socket paths fit).
public final class TemporaryHome: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates the directory.
    public init() throws {
        var template = Array("/tmp/hearth-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw SystemCallError.last("mkdtemp")
        }
        path = String(cString: created)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The configuration a stack on this home resolves, with optional environment overrides.
    public func configuration(_ environment: [String: String] = [:]) throws -> HearthConfiguration {
        try HearthConfiguration.load(home: path, environment: environment)
    }

    /// A path inside the home.
    public func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }
}
