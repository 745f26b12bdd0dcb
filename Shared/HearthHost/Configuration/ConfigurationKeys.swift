import HearthBus
import HearthCore

/// One setting of `hearth.toml`: its name, the environment variable that overrides it, what it
/// takes and its default.
///
/// `HearthConfiguration.keys` is the one list of them: the file reader refuses any key not in it,
/// `hearth config keys` prints it, and `hearth.toml(5)` is generated from it
/// (`ConfigurationManual`). `ConfigurationKeysTests` proves every default written here is the
/// reader's (a file setting each key to its listed default loads the same configuration as no
/// file) and every variable named here is read (a bad value in it is refused naming the key).
public struct ConfigurationKey: Sendable, Equatable, Encodable {
    /// `section.key`, such as `bus.heartbeat_ms`.
    public let name: String
    /// The variable that overrides the file, such as `HEARTH_BUS_HEARTBEAT_MS`; nil when none does.
    public let environment: String?
    /// What the value may be, such as "a whole number, 50 to 3600000 (milliseconds)".
    public let takes: String
    /// The default as a TOML value (`2000`, `"tcp://*:*"`); nil when it is worked out at start
    /// (`defaultText` says how).
    public let defaultValue: String?
    /// The default in words when it has no fixed value ("the system's time zone").
    public let defaultText: String?
    /// What it does, in a sentence or two.
    public let summary: String

    init(
        _ name: String, environment: String? = nil, takes: String, default value: String? = nil,
        defaultText: String? = nil, _ summary: String
    ) {
        self.name = name
        self.environment = environment
        self.takes = takes
        self.defaultValue = value
        self.defaultText = defaultText
        self.summary = summary
    }

    enum CodingKeys: String, CodingKey {
        case name, environment, takes, summary
        case defaultValue = "default"
        case defaultText = "default_text"
    }

    /// The table it sits in (`bus` for `bus.heartbeat_ms`).
    public var section: String { String(name.prefix { $0 != "." }) }
    /// Its name within the table (`heartbeat_ms`).
    public var key: String { String(name.drop { $0 != "." }.dropFirst()) }
}

extension HearthConfiguration {
    /// Every key `hearth.toml` may set, table by table, in the order `hearth.toml(5)` lists them.
    public static let keys: [ConfigurationKey] = {
        let household = HouseholdSettings()
        let discovery = DiscoverySettings()
        let web = WebSettings()
        let sync = SyncSettings()
        let notify = NotifySettings()
        var keys: [ConfigurationKey] = [
            ConfigurationKey(
                "household.time_zone", environment: "HEARTH_TIME_ZONE", takes: "an IANA time zone name",
                defaultText: "the system's time zone",
                "The household's wall clock: reminders, habits' days, the timetable and the year planner read times in it. Every device of a household should name the same zone."
            ),
            ConfigurationKey(
                "household.week_start", takes: "\"monday\" or \"sunday\"",
                default: household.weekStart == 7 ? "\"sunday\"" : "\"monday\"",
                "The day the calendar's and the statistics' weeks start on."),
            ConfigurationKey(
                "reminders.snooze", environment: "HEARTH_REMINDERS_SNOOZE",
                takes: "a duration: seconds (s), minutes (m) or hours (h), at most 24h",
                default: "\"\(household.snooze.components.seconds / 60)m\"",
                "How long a reminder's Snooze button puts it off."),
        ]
        for category in NotifySettings.Category.allCases {
            keys.append(
                ConfigurationKey(
                    "notify.\(category.rawValue)", takes: "true or false",
                    default: "\(notify.enabled.contains(category))",
                    "Whether \(category.rawValue) notifications pop up (hearth notify settings changes it)."))
        }
        keys += [
            ConfigurationKey(
                "notify.quiet_hours", takes: "\"HH:MM-HH:MM\", or \"\" for none",
                default: "\"\(notify.quietHours?.description ?? "")\"",
                "When nothing pops up but, if allowed, critical notices; it may run past midnight."),
            ConfigurationKey(
                "notify.critical_breaks_quiet_hours", takes: "true or false",
                default: "\(notify.criticalBreaksQuietHours)",
                "Whether a critical notice (\"Your turn\") may pop up during quiet hours."),
            ConfigurationKey(
                "notify.sounds", takes: "true or false", default: "\(notify.sounds)",
                "Whether popups carry their freedesktop sound (bell for \"Your turn\", dialog-warning when a turn's time runs out, message-new-instant for reminders); never during quiet hours."
            ),
            ConfigurationKey(
                "discovery.beacon_port", environment: "HEARTH_DISCOVERY_BEACON_PORT", takes: "a UDP port, 1 to 65534",
                default: "\(discovery.beaconPort)",
                "Where devices of the household announce themselves: turns on this port, sync on the next one."),
            ConfigurationKey(
                "discovery.beacon_address", environment: "HEARTH_DISCOVERY_BEACON_ADDRESS", takes: "an IPv4 address",
                default: "\"\(discovery.beaconAddress)\"", "Where the beacons are broadcast."),
            ConfigurationKey(
                "discovery.peers", environment: "HEARTH_DISCOVERY_PEERS",
                takes: "a list of \"host:port\" (in the variable, separated by commas)", default: "[]",
                "Devices that also get this device's beacons directly, for networks that do not carry broadcasts."),
            ConfigurationKey(
                "turn.peer", environment: "HEARTH_TURN_PEER", takes: "a tcp:// endpoint",
                default: "\"\(TurnSettings().peerEndpoint)\"",
                "Where other devices connect for games (CURVE-encrypted); * for any address or any free port."),
            ConfigurationKey(
                "sync.endpoint", environment: "HEARTH_SYNC_ENDPOINT", takes: "a tcp:// endpoint",
                default: "\"\(sync.endpoint)\"",
                "Where paired devices connect to sync (CURVE-encrypted); * for any address or any free port."),
            ConfigurationKey(
                "sync.interval", environment: "HEARTH_SYNC_INTERVAL", takes: "a duration of at least 5m",
                default: "\"\(sync.interval.components.seconds / 60)m\"",
                "At most one automatic sync of a pair of devices this often."),
            ConfigurationKey(
                "sync.pairing_port", takes: "a TCP port, 0 to 65535", default: "\(sync.pairingPort)",
                "Where other devices ask this one to pair, at [sync] endpoint's address; 0: any free port."),
            ConfigurationKey(
                "web.listen", environment: "HEARTH_WEB_LISTEN", takes: "\"host:port\"",
                default: "\"\(WebSettings.defaultListen)\"",
                "Where hearth-web serves the household page. Beyond loopback every request needs the household token."
            ),
            ConfigurationKey(
                "web.host_names", environment: "HEARTH_WEB_HOST_NAMES",
                takes: "a list of host names (in the variable, separated by commas)", default: "[]",
                "Other names the page is opened by (a name on the LAN, a reverse proxy's), besides its address."),
            ConfigurationKey(
                "web.header_timeout", takes: "a duration", default: "\"\(web.headerTimeout.components.seconds)s\"",
                "A request's headers must arrive within this."),
            ConfigurationKey(
                "web.idle_timeout", takes: "a duration", default: "\"\(web.idleTimeout.components.seconds)s\"",
                "An idle kept-alive connection is closed after this."),
            ConfigurationKey(
                "web.max_connections", takes: "a whole number, 1 to 65536", default: "\(web.maximumConnections)",
                "Connections served at once; more wait to be accepted."),
            ConfigurationKey(
                "limits.max_message_bytes", environment: environmentName("limits.max_message_bytes"),
                takes: "a whole number, 1024 to 67108864", default: "\(defaultMaximumMessageBytes)",
                "The largest message any of the stack's sockets accepts."),
            ConfigurationKey(
                "bus.heartbeat_ms", environment: environmentName("bus.heartbeat_ms"),
                takes: "a whole number of milliseconds, 50 to 3600000", default: "\(defaultHeartbeatMilliseconds)",
                "How often hearth-bus publishes its health.bus heartbeat."),
            ConfigurationKey(
                "bus.idle_spin_us", environment: environmentName("bus.idle_spin_us"),
                takes: "a whole number of microseconds, 0 to 10000", default: "\(defaultIdleSpinMicroseconds)",
                "How long a socket's thread keeps looking for input after it last worked before it sleeps (0: at once)."
            ),
        ]
        let sockets = ["bus.pub": "bus-pub.sock", "bus.sub": "bus-sub.sock"]
        for name in endpointKeys {
            let socket = sockets[name] ?? "\(name.replacingOccurrences(of: ".", with: "-")).sock"
            let role =
                switch name {
                case "bus.pub": "Where publishers reach the bus (its XSUB side)."
                case "bus.sub": "Where subscribers reach the bus (its XPUB side)."
                default: "Where hearth-\(name.prefix { $0 != "." }) takes commands."
                }
            keys.append(
                ConfigurationKey(
                    name, environment: environmentName(name), takes: "an ipc://, tcp:// or inproc:// endpoint",
                    defaultText: "ipc://$HEARTH_HOME/run/\(socket)", role))
        }
        return keys
    }()

    /// Keys that were once read elsewhere, with where they are now.
    static let movedKeys = [
        "turn.beacon_port": "discovery.beacon_port", "turn.beacon_address": "discovery.beacon_address",
        "turn.peers": "discovery.peers",
    ]

    /// Refuses a `section.key` of `hearth.toml` that `keys` does not list.
    static func checkKnown(_ name: String) throws(ConfigurationError) {
        if let moved = movedKeys[name] {
            throw ConfigurationError(
                origin: "hearth.toml", key: name,
                rule: "has moved to [discovery] (\(moved)), which turns and sync share")
        }
        guard knownKeyNames.contains(name) else {
            throw ConfigurationError(origin: "hearth.toml", key: name, rule: "is not a Hearth setting")
        }
    }

    private static let knownKeyNames = Set(keys.map(\.name))
}
