import Foundation
import HearthBus
import HearthCore
import TOMLKit

/// Where a Hearth stack keeps its files and how its processes reach each other.
///
/// Resolution order for every value: an environment variable (`HEARTH_BUS_PUB`, …), then
/// `$HEARTH_HOME/hearth.toml`, then the default `ipc://` socket under `$HEARTH_HOME/run`.
public struct HearthConfiguration: Sendable, Equatable {
    /// The default largest message, in bytes.
    public static let defaultMaximumMessageBytes = BusLimits.defaultMaximumMessageBytes
    /// The default interval between `health.bus` heartbeats.
    public static let defaultHeartbeatMilliseconds = 2_000
    /// The default time a socket's thread keeps looking for input after it last worked
    /// (`ZMQContext.idleSpin`).
    public static let defaultIdleSpinMicroseconds = BusLimits.defaultIdleSpinMicroseconds

    /// The household data directory (`HEARTH_HOME`).
    public let home: String
    /// `$HEARTH_HOME/run`, mode 0700: the `ipc://` sockets live here.
    public let runDirectory: String
    /// `$HEARTH_HOME/hearth.toml` (it may not exist).
    public let configFile: String
    /// Every endpoint by key: `bus.pub` (publishers connect), `bus.sub` (subscribers connect),
    /// and one `<service>.cmd` per service.
    public let endpoints: [String: String]
    /// The largest message any socket accepts.
    public let maximumMessageBytes: Int
    /// How often `hearth-bus` publishes `health.bus`.
    public let heartbeatMilliseconds: Int
    /// How long, in microseconds, a socket's thread keeps looking for input after it last
    /// worked before it sleeps (`bus.idle_spin_us`; 0 sleeps at once): see `ZMQContext.idleSpin`.
    public let idleSpinMicroseconds: Int
    /// What the notifier shows: the `[notify]` table.
    public let notify: NotifySettings
    /// Where `hearth-turn` takes other devices' links: the `[turn]` table and `HEARTH_TURN_PEER`.
    public let turn: TurnSettings
    /// How this device finds the others (turns and sync): `[discovery]` and `HEARTH_DISCOVERY_*`.
    public let discovery: DiscoverySettings
    /// The household's time zone, week start and snooze: `[household]`, `[reminders]`.
    public let household: HouseholdSettings
    /// How `hearth-sync` replicates: the `[sync]` table and `HEARTH_SYNC_*`.
    public let sync: SyncSettings
    /// Where `hearth-web` serves the household page: the `[web]` table and `HEARTH_WEB_LISTEN`.
    public let web: WebSettings

    /// The endpoint publishers connect to (the bus's XSUB side).
    public var busPublishEndpoint: String { endpoints["bus.pub"]! }
    /// The endpoint subscribers connect to (the bus's XPUB side).
    public var busSubscribeEndpoint: String { endpoints["bus.sub"]! }

    /// The command endpoint of `service`.
    public func commandEndpoint(_ service: HearthService) -> String { endpoints[service.commandKey]! }

    /// Every endpoint key Hearth knows, in display order.
    public static var endpointKeys: [String] { ["bus.pub", "bus.sub"] + HearthService.allCases.map(\.commandKey) }

    // MARK: - Loading

    /// Resolves the configuration and makes sure the home and run directories exist.
    /// - Parameters:
    ///   - home: an explicit home (the `--home` option); otherwise `HEARTH_HOME`, then the XDG default.
    ///   - environment: the variables to read (the process environment by default).
    /// - Throws: `ConfigurationError` naming the bad key and the rule it breaks, with every other
    ///   bad key of the file and the environment as its `others`.
    public static func load(
        home explicitHome: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> HearthConfiguration {
        let home = resolveHome(explicitHome, environment: environment)
        let runDirectory = (home as NSString).appendingPathComponent("run")
        try makeDirectory(home, mode: 0o700)
        try makeDirectory(runDirectory, mode: 0o700)
        let configFile = (home as NSString).appendingPathComponent("hearth.toml")
        // Each part is read on its own, falling back to its default when bad, so one run names
        // every bad value (the file's, then the environment's) rather than the first.
        var problems = ConfigurationProblems()
        let file = problems.take(FileSettings()) { () throws(ConfigurationError) in try FileSettings.read(configFile) }

        var endpoints: [String: String] = [:]
        let defaults: [String: String] = [
            "bus.pub": "bus-pub.sock", "bus.sub": "bus-sub.sock",
        ]
        for key in endpointKeys {
            let socketName = defaults[key] ?? "\(key.replacingOccurrences(of: ".", with: "-")).sock"
            let variable = environmentName(key)
            if let value = environment[variable],
                problems.take(
                    false,
                    { () throws(ConfigurationError) in
                        try checkEndpoint(value, key: key, origin: "environment variable \(variable)")
                        return true
                    })
            {
                endpoints[key] = value
            } else if let value = file.endpoints[key] {
                endpoints[key] = value
            } else {
                endpoints[key] = "ipc://" + (runDirectory as NSString).appendingPathComponent(socketName)
            }
        }
        let maximumMessageBytes = problems.take(defaultMaximumMessageBytes) { () throws(ConfigurationError) in
            try integer(
                "limits.max_message_bytes", environment: environment, file: file.maximumMessageBytes,
                default: defaultMaximumMessageBytes, range: 1_024...(64 * 1024 * 1024))
        }
        let heartbeat = problems.take(defaultHeartbeatMilliseconds) { () throws(ConfigurationError) in
            try integer(
                "bus.heartbeat_ms", environment: environment, file: file.heartbeatMilliseconds,
                default: defaultHeartbeatMilliseconds, range: 50...3_600_000)
        }
        let idleSpin = problems.take(defaultIdleSpinMicroseconds) { () throws(ConfigurationError) in
            try integer(
                "bus.idle_spin_us", environment: environment, file: file.idleSpinMicroseconds,
                default: defaultIdleSpinMicroseconds, range: 0...10_000)
        }
        let turn = problems.take(file.turn) { () throws(ConfigurationError) in try file.turn.overridden(by: environment)
        }
        let discovery = problems.take(file.discovery) { () throws(ConfigurationError) in
            try file.discovery.overridden(by: environment)
        }
        let household = problems.take(file.household) { () throws(ConfigurationError) in
            try file.household.overridden(by: environment)
        }
        let sync = problems.take(file.sync) { () throws(ConfigurationError) in try file.sync.overridden(by: environment)
        }
        let web = problems.take(file.web) { () throws(ConfigurationError) in try file.web.overridden(by: environment) }
        try problems.check()
        return HearthConfiguration(
            home: home,
            runDirectory: runDirectory,
            configFile: configFile,
            endpoints: endpoints,
            maximumMessageBytes: maximumMessageBytes,
            heartbeatMilliseconds: heartbeat,
            idleSpinMicroseconds: idleSpin,
            notify: file.notify, turn: turn, discovery: discovery, household: household, sync: sync, web: web
        )
    }

    /// The environment variable that overrides `key`: `bus.pub` → `HEARTH_BUS_PUB`.
    public static func environmentName(_ key: String) -> String {
        let suffix = key.hasPrefix("limits.") ? String(key.dropFirst("limits.".count)) : key
        return "HEARTH_" + suffix.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    static func resolveHome(_ explicitHome: String?, environment: [String: String]) -> String {
        if let explicitHome, !explicitHome.isEmpty { return absolute(explicitHome) }
        if let home = environment["HEARTH_HOME"], !home.isEmpty { return absolute(home) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return (absolute(xdg) as NSString).appendingPathComponent("hearth")
        }
        let userHome = environment["HOME"] ?? NSHomeDirectory()
        return (userHome as NSString).appendingPathComponent(".local/share/hearth")
    }

    private static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        let cwd = FileManager.default.currentDirectoryPath
        return ((cwd as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }

    static func checkEndpoint(_ value: String, key: String, origin: String) throws(ConfigurationError) {
        let schemes = ["ipc://", "tcp://", "inproc://"]
        guard schemes.contains(where: { value.hasPrefix($0) && value.count > $0.count }) else {
            throw ConfigurationError(
                origin: origin,
                key: key,
                rule: "'\(value)' must be an endpoint starting with ipc://, tcp:// or inproc://"
            )
        }
        // The kernel limits Unix socket paths to 107 bytes; say so before libzmq fails obscurely.
        if value.hasPrefix("ipc://"), value.utf8.count - "ipc://".count > 107 {
            throw ConfigurationError(
                origin: origin,
                key: key,
                rule: "ipc path is longer than the 107 bytes a Unix socket path may have"
            )
        }
    }

    private static func integer(
        _ key: String,
        environment: [String: String],
        file: Int?,
        default fallback: Int,
        range: ClosedRange<Int>
    ) throws(ConfigurationError) -> Int {
        let variable = environmentName(key)
        let (value, origin): (Int, String)
        if let text = environment[variable] {
            guard let parsed = Int(text) else {
                throw ConfigurationError(
                    origin: "environment variable \(variable)", key: key, rule: "'\(text)' is not a whole number")
            }
            (value, origin) = (parsed, "environment variable \(variable)")
        } else if let file {
            (value, origin) = (file, "hearth.toml")
        } else {
            return fallback
        }
        guard range.contains(value) else {
            throw ConfigurationError(
                origin: origin, key: key, rule: "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    private static func makeDirectory(_ path: String, mode: Int) throws(ConfigurationError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
            // An existing directory keeps its mode; the run directory must not be reachable by others.
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        } catch {
            throw ConfigurationError(origin: "file system", key: path, rule: "cannot create directory: \(error)")
        }
    }
}

/// The values `hearth.toml` may set, read strictly: an unknown table or key is an error.
struct FileSettings: Equatable {
    var endpoints: [String: String] = [:]
    var maximumMessageBytes: Int?
    var heartbeatMilliseconds: Int?
    var idleSpinMicroseconds: Int?
    var notify = NotifySettings()
    var turn = TurnSettings()
    var discovery = DiscoverySettings()
    var household = HouseholdSettings()
    var sync = SyncSettings()
    var web = WebSettings()

    static func read(_ path: String) throws(ConfigurationError) -> FileSettings {
        guard FileManager.default.fileExists(atPath: path) else { return FileSettings() }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(origin: "hearth.toml", key: path, rule: "cannot read: \(error)")
        }
        return try parse(text)
    }

    /// Reads the text of a `hearth.toml`, reporting every bad key: each one found is taken out
    /// and the rest read again (at most once per key), so the error names them all.
    static func parse(_ text: String) throws(ConfigurationError) -> FileSettings {
        let origin = "hearth.toml"
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(origin: origin, key: "line \(error.source.begin.line)", rule: error.description)
        } catch {
            throw ConfigurationError(origin: origin, key: "file", rule: "\(error)")
        }
        var errors: [ConfigurationError] = []
        let keys = table.keys.reduce(0) { $0 + 1 + (table[$1]?.table?.count ?? 0) }
        for _ in 0...keys {
            let settings: FileSettings
            do throws(ConfigurationError) {
                settings = try parse(table)
            } catch {
                guard errors.count < keys, remove(error.key, from: table) else {
                    throw ConfigurationError.combined(errors + [error]) ?? error
                }
                errors.append(error)
                continue
            }
            if let error = ConfigurationError.combined(errors) { throw error }
            return settings
        }
        throw ConfigurationError.combined(errors) ?? ConfigurationError(origin: origin, key: "file", rule: "unreadable")
    }

    /// Takes the value a key names (`section.key`, or a whole `section`) out of `table`.
    /// - Returns: whether there was one to take.
    private static func remove(_ key: String, from table: TOMLTable) -> Bool {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        if parts.count == 2, let section = table[parts[0]]?.table {
            let name = parts[1].split(separator: ".").first.map(String.init) ?? parts[1]
            if section.contains(key: parts[1]) { return section.remove(at: parts[1]) != nil }
            if section.contains(key: name) { return section.remove(at: name) != nil }
        }
        guard table.contains(key: parts[0]) else { return false }
        return table.remove(at: parts[0]) != nil
    }

    /// Reads a parsed `hearth.toml`, stopping at its first bad key.
    private static func parse(_ table: TOMLTable) throws(ConfigurationError) -> FileSettings {
        let origin = "hearth.toml"
        var settings = FileSettings()
        let serviceNames = Set(HearthService.allCases.map(\.rawValue))
        for section in table.keys {
            guard let values = table[section]?.table else {
                throw ConfigurationError(origin: origin, key: section, rule: "must be a table such as [\(section)]")
            }
            for key in values.keys { try HearthConfiguration.checkKnown("\(section).\(key)") }
            if section == "notify" {
                settings.notify = try NotifySettings.read(values)
                continue
            }
            if section == "turn" {
                settings.turn = try TurnSettings.read(values)
            }
            if section == "discovery" {
                settings.discovery = try DiscoverySettings.read(values)
                continue
            }
            if section == "sync" {
                settings.sync = try SyncSettings.read(values)
            }
            if section == "web" {
                settings.web = try WebSettings.read(values)
            }
            if section == "household" {
                try HouseholdSettings.read(values, into: &settings.household)
                continue
            }
            if section == "reminders" {
                try HouseholdSettings.readReminders(values, into: &settings.household)
                continue
            }
            for key in values.keys {
                let fullKey = "\(section).\(key)"
                let value = values[key]!
                switch (section, key) {
                case ("limits", "max_message_bytes"):
                    settings.maximumMessageBytes = try int(value, key: fullKey)
                case ("bus", "heartbeat_ms"):
                    settings.heartbeatMilliseconds = try int(value, key: fullKey)
                case ("bus", "idle_spin_us"):
                    settings.idleSpinMicroseconds = try int(value, key: fullKey)
                case ("bus", "pub"), ("bus", "sub"):
                    settings.endpoints[fullKey] = try endpoint(value, key: fullKey)
                case (_, "cmd") where serviceNames.contains(section):
                    settings.endpoints[fullKey] = try endpoint(value, key: fullKey)
                case ("turn", _), ("sync", _), ("web", _):
                    continue  // read above
                default:
                    throw ConfigurationError(origin: origin, key: fullKey, rule: "is not a Hearth setting")
                }
            }
        }
        return settings
    }

    private static func int(_ value: any TOMLValueConvertible, key: String) throws(ConfigurationError) -> Int {
        guard let number = value.int else {
            throw ConfigurationError(origin: "hearth.toml", key: key, rule: "must be a whole number")
        }
        return number
    }

    private static func endpoint(_ value: any TOMLValueConvertible, key: String) throws(ConfigurationError) -> String {
        guard let text = value.string else {
            throw ConfigurationError(origin: "hearth.toml", key: key, rule: "must be a string")
        }
        try HearthConfiguration.checkEndpoint(text, key: key, origin: "hearth.toml")
        return text
    }
}
