/// A configuration value that cannot be used, named by its key and where it came from.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the value came from: `hearth.toml`, an environment variable, or the file system.
    public let origin: String
    /// The key, such as `bus.pub`.
    public let key: String
    /// The rule it breaks.
    public let rule: String

    public init(origin: String, key: String, rule: String) {
        self.origin = origin
        self.key = key
        self.rule = rule
    }

    public var description: String { "\(origin): \(key): \(rule)" }
}
