/// The Hearth processes that answer commands; each has a `<name>.cmd` endpoint.
///
/// Every service of the architecture is listed, so a notification button can name the service
/// that owns what it shows before that service is built. Only the `launched` ones run from the
/// `Procfile` and are pinged by `hearth status`: each new service adds itself there.
public enum HearthService: String, Sendable, CaseIterable, Codable {
    case bus
    case store
    case sync
    case turn
    case scheduler
    case notifier
    case web

    /// The services this build runs (the `Procfile`'s lines).
    public static let launched: [HearthService] = [.bus, .store, .sync, .turn, .scheduler, .notifier, .web]

    /// The configuration key of the service's command endpoint, such as `bus.cmd`.
    public var commandKey: String { "\(rawValue).cmd" }
}
