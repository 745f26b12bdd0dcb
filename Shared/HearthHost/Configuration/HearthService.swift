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

    /// What the service does, in a line (`hearth-bus --help` and its manual page say it).
    public var summary: String {
        switch self {
        case .bus: "carries events from every Hearth process to every subscriber (ZeroMQ pub/sub), with replay"
        case .store: "keeps the household's data and its signed operation log in SQLite"
        case .sync: "finds the household's paired devices on the network and syncs the operation log with them"
        case .turn: "runs board-game sessions between devices and says whose turn it is"
        case .scheduler: "fires reminders, habits' and check-ins' alerts and the next class on time"
        case .notifier: "shows desktop notifications (freedesktop, over D-Bus) and acts on their buttons"
        case .web: "serves the household page and its calendar feeds"
        }
    }
}
