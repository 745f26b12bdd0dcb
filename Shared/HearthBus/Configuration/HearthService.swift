/// The Hearth processes that answer commands; each has a `<name>.cmd` endpoint.
///
/// Only services that exist are listed: each later service adds its case here, its line to the
/// `Procfile`, and `hearth status` starts pinging it.
public enum HearthService: String, Sendable, CaseIterable, Codable {
    case bus
    case store
    case notifier

    /// The configuration key of the service's command endpoint, such as `bus.cmd`.
    public var commandKey: String { "\(rawValue).cmd" }
}
