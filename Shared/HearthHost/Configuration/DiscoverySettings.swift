import Foundation
import HearthBus
import TOMLKit

/// How this device finds the household's other devices: the `[discovery]` table of
/// `hearth.toml`, read by both services that talk to other devices (`hearth-turn` and
/// `hearth-sync`), overridden by `HEARTH_DISCOVERY_BEACON_PORT`, `HEARTH_DISCOVERY_BEACON_ADDRESS`
/// and `HEARTH_DISCOVERY_PEERS`.
///
///     [discovery]
///     beacon_port = 5670                  # UDP: turns on this port, sync on the next one
///     beacon_address = "255.255.255.255"  # where beacons are broadcast
///     peers = ["192.168.1.20:5670"]       # beacons also sent here, for networks without broadcast
///
/// Each service binds a port of its own (`port(for:)`): with two UDP sockets bound to one port
/// with `SO_REUSEADDR`, a broadcast reaches both but a unicast datagram (a static peer's beacon,
/// the answer to one) reaches only the socket bound last, so one of them would go deaf to static
/// peers (`DiscoveryTests` shows both ways). Both use the one `Beacon` and these settings.
public struct DiscoverySettings: Sendable, Equatable {
    public var beaconPort = 5670
    public var beaconAddress = "255.255.255.255"
    /// `host:port` UDP addresses (their `beacon_port`) that get this device's beacons directly,
    /// and answer with theirs.
    public var staticPeers: [String] = []

    public init() {}

    /// The UDP port `service`'s beacon binds: `beacon_port` for turns, the next one for sync.
    public func port(for service: HearthService) -> Int {
        service == .sync ? beaconPort + 1 : beaconPort
    }

    /// The static peers as `service`'s beacon reaches them (their port for that service).
    public func staticPeers(for service: HearthService) -> [String] {
        guard service == .sync else { return staticPeers }
        return staticPeers.compactMap { text in
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
                return nil
            }
            return "\(text[..<colon]):\(port + 1)"
        }
    }

    static func read(_ table: TOMLTable) throws(ConfigurationError) -> DiscoverySettings {
        var settings = DiscoverySettings()
        for key in table.keys {
            let value = table[key]!
            let fullKey = "discovery.\(key)"
            switch key {
            case "beacon_port":
                guard let port = value.int, (1...65_534).contains(port) else {
                    throw ConfigurationError(
                        origin: "hearth.toml", key: fullKey, rule: "must be a port 1...65534 (sync uses the next one)")
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
    func overridden(by environment: [String: String]) throws(ConfigurationError) -> DiscoverySettings {
        var settings = self
        if let text = environment["HEARTH_DISCOVERY_BEACON_PORT"] {
            guard let port = Int(text), (1...65_534).contains(port) else {
                throw ConfigurationError(
                    origin: "environment variable HEARTH_DISCOVERY_BEACON_PORT", key: "discovery.beacon_port",
                    rule: "'\(text)' must be a port 1...65534 (sync uses the next one)")
            }
            settings.beaconPort = port
        }
        if let text = environment["HEARTH_DISCOVERY_BEACON_ADDRESS"] {
            guard IPv4.parse(text) != nil else {
                throw ConfigurationError(
                    origin: "environment variable HEARTH_DISCOVERY_BEACON_ADDRESS", key: "discovery.beacon_address",
                    rule: "'\(text)' must be an IPv4 address")
            }
            settings.beaconAddress = text
        }
        if let text = environment["HEARTH_DISCOVERY_PEERS"] {
            settings.staticPeers = try text.split(separator: ",").map { (item: Substring) throws(ConfigurationError) in
                try Self.checkStaticPeer(
                    String(item), key: "discovery.peers", origin: "environment variable HEARTH_DISCOVERY_PEERS")
            }
        }
        return settings
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
