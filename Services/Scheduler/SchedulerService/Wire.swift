import HearthBus

/// Events and replies from their `Codable` types in `HearthCore`.
enum Wire {
    /// `value` as event or reply data. The scheduler's wire types hold strings, booleans and
    /// whole numbers only, which always encode; should one ever fail, the data is `null`, which
    /// every reader refuses by name rather than misreading.
    static func data<T: Encodable>(_ value: T) -> JSONValue {
        (try? JSONValue(encoding: value)) ?? .null
    }
}
