import Foundation
import HearthBus
import TOMLKit

/// Where and how `hearth-web` serves the household page: the `[web]` table of `hearth.toml`,
/// `listen` overridden by `HEARTH_WEB_LISTEN` and `host_names` by `HEARTH_WEB_HOST_NAMES`.
///
///     [web]
///     listen = "127.0.0.1:8470"   # host:port; beyond loopback every request needs the token
///     host_names = ["kitchen.local"]   # names the page is also opened by (besides its address)
///     header_timeout = "10s"      # a request's headers must arrive within this
///     idle_timeout = "60s"        # an idle kept-alive connection is closed after this
///     max_connections = 256       # connections served at once; more wait to be accepted
public struct WebSettings: Sendable, Equatable {
    /// The default: loopback only, no token asked.
    public static let defaultListen = "127.0.0.1:8470"

    /// The address to bind: a host name or IP address.
    public var host = "127.0.0.1"
    /// The TCP port (0: any free port, for tests).
    public var port = 8470
    /// Other names a request's `Host` may give (a name on the LAN, a reverse proxy's), besides
    /// the loopback names, the listen address and, when listening on every address, this
    /// machine's names and addresses.
    public var hostNames: [String] = []
    /// How long a connection may take to send a request's headers.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a kept-alive connection may stay idle between requests.
    public var idleTimeout: Duration = .seconds(60)
    /// How many connections are served at once.
    public var maximumConnections = 256

    public init() {}

    /// Whether only this machine can reach the page (an address in `127.0.0.0/8`, `::1`, or
    /// `localhost`): then no token is asked. Anything else is reachable from the network and needs
    /// the household token. (A name such as `127.example.com` is not loopback.)
    public var isLoopback: Bool { Self.isLoopback(host) }

    /// Whether `host` names this machine's loopback: `localhost`, `::1` or an IPv4 address in
    /// 127.0.0.0/8 (the address itself, not a name that starts like one).
    public static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "[::1]" { return true }
        guard let address = IPv4.parse(host) else { return false }
        return UInt32(bigEndian: address) >> 24 == 127
    }

    /// The page's address on `host` (this setting's by default) and `port` (an IPv6 address in
    /// brackets), such as `http://127.0.0.1:8470`.
    public func url(host: String? = nil, port: Int? = nil) -> String {
        let host = host ?? self.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port ?? self.port)"
    }

    static func read(_ table: TOMLTable) throws(ConfigurationError) -> WebSettings {
        var settings = WebSettings()
        // `listen` first: it sets the address, the others add to it.
        if let value = table["listen"] {
            guard let text = value.string else {
                throw ConfigurationError(origin: "hearth.toml", key: "web.listen", rule: "must be a string")
            }
            settings = try parse(text, origin: "hearth.toml")
        }
        for key in table.keys where key != "cmd" && key != "listen" {
            let value = table[key]!
            switch key {
            case "host_names":
                guard let names = value.array?.map({ $0.string }), let texts = names as? [String] else {
                    throw ConfigurationError(
                        origin: "hearth.toml", key: "web.host_names", rule: "must be a list of host names")
                }
                settings.hostNames = try hostNames(texts, origin: "hearth.toml")
            case "header_timeout", "idle_timeout":
                guard let text = value.string else {
                    throw ConfigurationError(
                        origin: "hearth.toml", key: "web.\(key)", rule: "must be a string such as \"10s\"")
                }
                let duration = try HouseholdSettings.duration(text, key: "web.\(key)", origin: "hearth.toml")
                if key == "header_timeout" {
                    settings.headerTimeout = duration
                } else {
                    settings.idleTimeout = duration
                }
            case "max_connections":
                guard let count = value.int, (1...65_536).contains(count) else {
                    throw ConfigurationError(origin: "hearth.toml", key: "web.max_connections", rule: "must be 1–65536")
                }
                settings.maximumConnections = count
            default:
                throw ConfigurationError(origin: "hearth.toml", key: "web.\(key)", rule: "is not a Hearth setting")
            }
        }
        return settings
    }

    func overridden(by environment: [String: String]) throws(ConfigurationError) -> WebSettings {
        var settings = self
        if let text = environment["HEARTH_WEB_LISTEN"] {
            let listen = try Self.parse(text, origin: "environment variable HEARTH_WEB_LISTEN")
            (settings.host, settings.port) = (listen.host, listen.port)
        }
        if let text = environment["HEARTH_WEB_HOST_NAMES"] {
            settings.hostNames = try Self.hostNames(
                text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                origin: "environment variable HEARTH_WEB_HOST_NAMES")
        }
        return settings
    }

    /// Host names as given: letters, digits, `.`, `-` and `:` (an IPv6 address) only.
    static func hostNames(_ names: [String], origin: String) throws(ConfigurationError) -> [String] {
        for name in names
        where name.isEmpty || !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".:-".contains($0)) }) {
            throw ConfigurationError(
                origin: origin, key: "web.host_names", rule: "'\(name)' is not a host name (letters, digits, '.', '-')")
        }
        return names.map { $0.lowercased() }
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
