/// What every service answers, whatever else it does (`ping` answers a `PingReply`).
public enum ServiceCommands {
    /// Who answers, its build, its uptime and its command counts, with the service's own figures.
    public struct Ping: HearthCommand {
        public typealias Reply = PingReply
        public static let name = "ping"
        public init() {}
    }
}

/// hearth-web's command (`web.cmd`).
public enum WebCommands {
    /// Reads the household token again (after `hearth web token --revoke`): pages holding the
    /// old one are refused from their next request.
    public struct ReloadToken: HearthCommand {
        public typealias Reply = TokenReloaded
        public static let name = "token.reload"
        public init() {}
    }
}

/// `token.reload`: `reloaded`, or why no token is used.
public struct TokenReloaded: Codable, Sendable, Equatable {
    public let token: String

    public init(token: String) { self.token = token }
}

extension ServiceCommands {
    /// How far the long command started with `token` (its `progress` argument) has come: the
    /// store's and hearth-sync's, asked by the command line while it waits.
    public struct Progress: HearthCommand {
        public typealias Reply = ProgressReport
        public static let name = "progress"
        public var token: String
        public init(token: String) { self.token = token }
    }
}

/// The bus's commands (`bus.cmd`): what a subscriber asks to learn its subscription is live, and
/// the counters.
public enum BusCommands {
    /// Publishes an empty message on `topic` (which must start with `_probe.`): a subscriber
    /// that sees it knows its subscription reaches the bus.
    public struct Probe: HearthCommand {
        public typealias Reply = BusProbed
        public static let name = "probe"
        public var topic: String
        public init(topic: String) { self.topic = topic }
    }

    /// What the bus has done since it started.
    public struct Stats: HearthCommand {
        public typealias Reply = BusStats
        public static let name = "stats"
        public init() {}
    }
}

/// `probe`: the topic published.
public struct BusProbed: Codable, Sendable, Equatable {
    public let topic: String

    public init(topic: String) { self.topic = topic }
}

/// `stats` (and `ping`'s `counters`, and `health.bus`): what the bus has done since it started.
public struct BusStats: Codable, Sendable, Equatable {
    /// Events passed from publishers to subscribers.
    public let forwarded: Int
    /// Everything refused: malformed, oversized and protocol errors together.
    public let dropped: Int
    /// Messages refused for their shape.
    public let malformed: Int
    /// Messages over the maximum size.
    public let oversized: Int
    /// Connections dropped for speaking something other than ZMTP.
    public let protocolErrors: Int
    /// Subscription changes passed upstream.
    public let subscriptions: Int
    /// Subscribers dropped for not reading while the bus held more than its budget for them.
    public let droppedSubscribers: Int

    public init(
        forwarded: Int, dropped: Int, malformed: Int, oversized: Int, protocolErrors: Int, subscriptions: Int,
        droppedSubscribers: Int
    ) {
        (self.forwarded, self.dropped, self.malformed, self.oversized) = (forwarded, dropped, malformed, oversized)
        (self.protocolErrors, self.subscriptions, self.droppedSubscribers) =
            (protocolErrors, subscriptions, droppedSubscribers)
    }

    enum CodingKeys: String, CodingKey {
        case forwarded, dropped, malformed, oversized, subscriptions
        case protocolErrors = "protocol_errors"
        case droppedSubscribers = "dropped_subscribers"
    }
}

/// The notifier's commands (`notifier.cmd`).
public enum NotifierCommands {
    /// The desktop's notification server as the notifier last found it.
    public struct Server: HearthCommand {
        public typealias Reply = NotificationServerReply
        public static let name = "server"
        public init() {}
    }

    /// The notification settings in force.
    public struct Settings: HearthCommand {
        public typealias Reply = NotifySettingsView
        public static let name = "settings"
        public init() {}
    }

    /// Reads `[notify]` from hearth.toml again (after `hearth notify settings` wrote it); a file
    /// that does not read leaves the settings in force as they were.
    public struct ReloadSettings: HearthCommand {
        public typealias Reply = NotifySettingsView
        public static let name = "settings.reload"
        public init() {}
    }
}

/// `settings` and `settings.reload`: each category on or off, quiet hours (`22:00-07:00`, or
/// none), whether a critical popup breaks them, and sounds.
public struct NotifySettingsView: Codable, Sendable, Equatable {
    public let categories: [String: Bool]
    public let quietHours: String?
    public let criticalBreaksQuietHours: Bool
    public let sounds: Bool

    public init(categories: [String: Bool], quietHours: String?, criticalBreaksQuietHours: Bool, sounds: Bool) {
        (self.categories, self.quietHours) = (categories, quietHours)
        (self.criticalBreaksQuietHours, self.sounds) = (criticalBreaksQuietHours, sounds)
    }

    enum CodingKeys: String, CodingKey {
        case categories, sounds
        case quietHours = "quiet_hours"
        case criticalBreaksQuietHours = "critical_breaks_quiet_hours"
    }
}
