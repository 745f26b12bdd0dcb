import Foundation
import HearthBus
import TOMLKit

/// How `hearth-sync` replicates with paired devices: the `[sync]` table of `hearth.toml`,
/// overridden by `HEARTH_SYNC_ENDPOINT` and `HEARTH_SYNC_INTERVAL`.
///
///     [sync]
///     endpoint = "tcp://*:*"   # where paired devices connect (CURVE); any free port
///     interval = "5m"          # at most one automatic sync per pair this often (5m at least)
///     pairing_port = 0         # where devices ask to pair (at the endpoint's address); 0: any free
public struct SyncSettings: Sendable, Equatable {
    /// The shortest interval allowed between two automatic syncs of one pair (SPEC part 1).
    public static let minimumInterval: Duration = .seconds(300)

    public var endpoint = "tcp://*:*"
    public var interval = SyncSettings.minimumInterval
    /// The pairing socket's TCP port, at the endpoint's address; 0: any free port (a firewall
    /// that must let pairing in names a fixed one).
    public var pairingPort = 0

    public init() {}

    static func read(_ table: TOMLTable) throws(ConfigurationError) -> SyncSettings {
        var settings = SyncSettings()
        for key in table.keys where key != "cmd" {
            let value = table[key]!
            switch key {
            case "endpoint":
                settings.endpoint = try endpoint(value.string ?? "", key: "sync.endpoint", origin: "hearth.toml")
            case "interval":
                settings.interval = try interval(value.string ?? "", key: "sync.interval", origin: "hearth.toml")
            case "pairing_port":
                guard let port = value.int, (0...65535).contains(port) else {
                    throw ConfigurationError(
                        origin: "hearth.toml", key: "sync.pairing_port",
                        rule: "must be a TCP port, 0 to 65535 (0: any free)")
                }
                settings.pairingPort = port
            default:
                throw ConfigurationError(origin: "hearth.toml", key: "sync.\(key)", rule: "is not a Hearth setting")
            }
        }
        return settings
    }

    func overridden(by environment: [String: String]) throws(ConfigurationError) -> SyncSettings {
        var settings = self
        if let text = environment["HEARTH_SYNC_ENDPOINT"] {
            settings.endpoint = try Self.endpoint(
                text, key: "sync.endpoint", origin: "environment variable HEARTH_SYNC_ENDPOINT")
        }
        if let text = environment["HEARTH_SYNC_INTERVAL"] {
            settings.interval = try Self.interval(
                text, key: "sync.interval", origin: "environment variable HEARTH_SYNC_INTERVAL")
        }
        return settings
    }

    private static func endpoint(_ text: String, key: String, origin: String) throws(ConfigurationError) -> String {
        guard text.hasPrefix("tcp://"), text.count > 6 else {
            throw ConfigurationError(
                origin: origin, key: key, rule: "'\(text)' must be a tcp:// endpoint such as tcp://*:*")
        }
        return text
    }

    /// A duration of at least five minutes: syncing a pair more often is refused, not shortened.
    private static func interval(_ text: String, key: String, origin: String) throws(ConfigurationError) -> Duration {
        let interval = try HouseholdSettings.duration(text, key: key, origin: origin)
        guard interval >= minimumInterval else {
            throw ConfigurationError(
                origin: origin, key: key,
                rule: "must be at least 5m (two devices sync at most once every 5 minutes), got \"\(text)\"")
        }
        return interval
    }
}
