import Foundation
import HearthBus
import TOMLKit

/// Where `hearth-turn` takes other devices' links: the `[turn]` table of `hearth.toml`,
/// overridden by `HEARTH_TURN_PEER`. How devices find each other is `[discovery]`
/// (`DiscoverySettings`), shared with `hearth-sync`.
///
///     [turn]
///     peer = "tcp://*:*"                  # where other devices connect (CURVE); any free port
public struct TurnSettings: Sendable, Equatable {
    public var peerEndpoint = "tcp://*:*"

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
        return settings
    }

    private static func checkPeer(_ text: String, key: String, origin: String) throws(ConfigurationError) -> String {
        guard text.hasPrefix("tcp://"), text.count > 6 else {
            throw ConfigurationError(
                origin: origin, key: key, rule: "'\(text)' must be a tcp:// endpoint such as tcp://*:*")
        }
        return text
    }
}
