/// A configuration value that cannot be used, named by its key and where it came from; with
/// `others`, every further value that cannot be used either, so one run reports them all.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the value came from: `hearth.toml`, an environment variable, or the file system.
    public let origin: String
    /// The key, such as `bus.pub`.
    public let key: String
    /// The rule it breaks.
    public let rule: String
    /// The other bad values found in the same reading, in the order found.
    public var others: [ConfigurationError] = []

    public init(origin: String, key: String, rule: String) {
        self.origin = origin
        self.key = key
        self.rule = rule
    }

    /// This error and its others, each alone.
    public var all: [ConfigurationError] {
        [ConfigurationError(origin: origin, key: key, rule: rule)] + others.flatMap(\.all)
    }

    /// One line per bad value.
    public var description: String {
        all.map { "\($0.origin): \($0.key): \($0.rule)" }.joined(separator: "\n")
    }

    /// The errors as one (the first, with the rest as its others), or `nil` for none.
    static func combined(_ errors: [ConfigurationError]) -> ConfigurationError? {
        let flat = errors.flatMap(\.all)
        guard var first = flat.first else { return nil }
        first.others = Array(flat.dropFirst())
        return first
    }
}

/// Collects the errors of independent parts of a configuration, each part given its default when
/// it fails, so every bad value is reported at once.
struct ConfigurationProblems {
    private(set) var errors: [ConfigurationError] = []

    /// `body`'s value, or `fallback` with its error kept.
    mutating func take<T>(_ fallback: T, _ body: () throws(ConfigurationError) -> T) -> T {
        do {
            return try body()
        } catch {
            errors.append(error)
            return fallback
        }
    }

    /// Throws every error kept, as one.
    func check() throws(ConfigurationError) {
        if let error = ConfigurationError.combined(errors) { throw error }
    }
}
