import Foundation
import TOMLKit

/// How `hearth-turn` reaches other devices: the `[turn]` table of `hearth.toml`, overridden by
/// `HEARTH_TURN_PEER`, `HEARTH_TURN_BEACON_PORT`, `HEARTH_TURN_BEACON_ADDRESS`, `HEARTH_TURN_PEERS`.
///
///     [turn]
///     peer = "tcp://*:*"                  # where other devices connect (CURVE); any free port
///     beacon_port = 5670                  # UDP discovery
///     beacon_address = "255.255.255.255"  # where beacons are broadcast
///     peers = ["192.168.1.20:5670"]       # beacons also sent here, for networks without broadcast
public struct TurnSettings: Sendable, Equatable {
    public var peerEndpoint = "tcp://*:*"
    public var beaconPort = 5670
    public var beaconAddress = "255.255.255.255"
    /// `host:port` UDP addresses that get this device's beacon directly, and answer with theirs.
    public var staticPeers: [String] = []

    public init() {}

    static func read(_ table: TOMLTable) throws(ConfigurationError) -> TurnSettings {
        var settings = TurnSettings()
        for key in table.keys where key != "cmd" {
            let value = table[key]!
            let fullKey = "turn.\(key)"
            switch key {
            case "peer":
                guard let text = value.string else {
                    throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: "must be a string")
                }
                settings.peerEndpoint = try checkPeer(text, key: fullKey, origin: "hearth.toml")
            case "beacon_port":
                guard let port = value.int, (1...65_535).contains(port) else {
                    throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: "must be a port 1...65535")
                }
                settings.beaconPort = port
            case "beacon_address":
                guard let text = value.string, IPv4.parse(text) != nil else {
                    throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: "must be an IPv4 address")
                }
                settings.beaconAddress = text
            case "peers":
                guard let array = value.array else {
                    throw ConfigurationError(
                        origin: "hearth.toml", key: fullKey, rule: "must be a list of \"host:port\"")
                }
                settings.staticPeers = try array.map { (item: any TOMLValueConvertible) throws(ConfigurationError) in
                    guard let text = item.string else {
                        throw ConfigurationError(
                            origin: "hearth.toml", key: fullKey, rule: "must be a list of \"host:port\"")
                    }
                    return try checkStaticPeer(text, key: fullKey, origin: "hearth.toml")
                }
            default:
                throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: "is not a Hearth setting")
            }
        }
        return settings
    }

    /// The file's settings with environment variables applied on top.
    func overridden(by environment: [String: String]) throws(ConfigurationError) -> TurnSettings {
        var settings = self
        if let text = environment["HEARTH_TURN_PEER"] {
            settings.peerEndpoint = try Self.checkPeer(
                text, key: "turn.peer", origin: "environment variable HEARTH_TURN_PEER")
        }
        if let text = environment["HEARTH_TURN_BEACON_PORT"] {
            guard let port = Int(text), (1...65_535).contains(port) else {
                throw ConfigurationError(
                    origin: "environment variable HEARTH_TURN_BEACON_PORT", key: "turn.beacon_port",
                    rule: "'\(text)' must be a port 1...65535")
            }
            settings.beaconPort = port
        }
        if let text = environment["HEARTH_TURN_BEACON_ADDRESS"] {
            guard IPv4.parse(text) != nil else {
                throw ConfigurationError(
                    origin: "environment variable HEARTH_TURN_BEACON_ADDRESS", key: "turn.beacon_address",
                    rule: "'\(text)' must be an IPv4 address")
            }
            settings.beaconAddress = text
        }
        if let text = environment["HEARTH_TURN_PEERS"] {
            settings.staticPeers = try text.split(separator: ",").map { (item: Substring) throws(ConfigurationError) in
                try Self.checkStaticPeer(
                    String(item), key: "turn.peers", origin: "environment variable HEARTH_TURN_PEERS")
            }
        }
        return settings
    }

    private static func checkPeer(_ text: String, key: String, origin: String) throws(ConfigurationError) -> String {
        guard text.hasPrefix("tcp://"), text.count > 6 else {
            throw ConfigurationError(
                origin: origin, key: key, rule: "'\(text)' must be a tcp:// endpoint such as tcp://*:*")
        }
        return text
    }

    private static func checkStaticPeer(
        _ text: String, key: String, origin: String
    ) throws(ConfigurationError) -> String {
        guard IPv4.parseHostPort(text) != nil else {
            throw ConfigurationError(
                origin: origin, key: key, rule: "'\(text)' must be an IPv4 host:port such as 192.168.1.20:5670")
        }
        return text
    }
}
