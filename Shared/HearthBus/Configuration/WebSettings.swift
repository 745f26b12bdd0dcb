import TOMLKit

/// Where `hearth-web` serves the household page: the `[web]` table of `hearth.toml`, overridden
/// by `HEARTH_WEB_LISTEN`.
///
///     [web]
///     listen = "127.0.0.1:8470"   # host:port; beyond loopback every request needs the token
public struct WebSettings: Sendable, Equatable {
    /// The default: loopback only, no token asked.
    public static let defaultListen = "127.0.0.1:8470"

    /// The address to bind: a host name or IP address.
    public var host = "127.0.0.1"
    /// The TCP port (0: any free port, for tests).
    public var port = 8470

    public init() {}

    /// Whether only this machine can reach the page (`127.0.0.0/8`, `::1`, `localhost`): then no
    /// token is asked. Anything else is reachable from the network and needs the household token.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The page's address on `host` (this setting's by default) and `port` (an IPv6 address in
    /// brackets), such as `http://127.0.0.1:8470`.
    public func url(host: String? = nil, port: Int? = nil) -> String {
        let host = host ?? self.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port ?? self.port)"
    }

    static func read(_ table: TOMLTable) throws(ConfigurationError) -> WebSettings {
        var settings = WebSettings()
        for key in table.keys where key != "cmd" {
            switch key {
            case "listen":
                guard let text = table[key]?.string else {
                    throw ConfigurationError(origin: "hearth.toml", key: "web.listen", rule: "must be a string")
                }
                settings = try parse(text, origin: "hearth.toml")
            default:
                throw ConfigurationError(origin: "hearth.toml", key: "web.\(key)", rule: "is not a Hearth setting")
            }
        }
        return settings
    }

    func overridden(by environment: [String: String]) throws(ConfigurationError) -> WebSettings {
        guard let text = environment["HEARTH_WEB_LISTEN"] else { return self }
        return try Self.parse(text, origin: "environment variable HEARTH_WEB_LISTEN")
    }

    /// Reads `host:port` (`[::1]:8470` for an IPv6 address).
    static func parse(_ text: String, origin: String) throws(ConfigurationError) -> WebSettings {
        let rule = "'\(text)' must be host:port, such as 127.0.0.1:8470 or 0.0.0.0:8470, with a port 0–65535"
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { throw ConfigurationError(origin: origin, key: "web.listen", rule: rule) }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".:-".contains($0) }) else {
            throw ConfigurationError(origin: origin, key: "web.listen", rule: rule)
        }
        var settings = WebSettings()
        settings.host = host
        settings.port = port
        return settings
    }
}
