import Foundation
import HearthBus
import HearthHost

/// The names this page may be asked for by (`Host`) and posted to from (`Origin`): a defence
/// against DNS rebinding, where a web page on evil.example makes its own name resolve to
/// 127.0.0.1 and then reads the household's data from what the browser takes for its own site.
///
/// Allowed: the loopback names (`localhost`, `127.0.0.1`, `::1`), the listen address, the names
/// in `[web] host_names`, and, when the page listens on every address (`0.0.0.0`, `::`), this
/// machine's host name (and `NAME.local`) and its interfaces' addresses. Ports are not compared:
/// a rebinding page must reach this port to be a threat at all.
struct HostAllowlist: Sendable {
    let names: Set<String>

    init(settings: WebSettings) {
        var names: Set<String> = ["localhost", "127.0.0.1", "::1"]
        names.formUnion(settings.hostNames)
        if settings.host == "0.0.0.0" || settings.host == "::" {
            let host = DeviceIdentity.hostName().lowercased()
            names.formUnion([host, host + ".local"])
            names.formUnion(MachineAddresses.interfaces())
        } else {
            names.insert(settings.host.lowercased())
        }
        self.names = names
    }

    init(names: Set<String>) { self.names = names }

    /// Whether `authority` (`host`, `host:port`, `[v6]:port`) names this page.
    func allows(_ authority: String) -> Bool {
        names.contains(Self.host(of: authority))
    }

    /// The host of an authority, lower-cased, without its port, brackets or final dot.
    static func host(of authority: String) -> String {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon,
            host[host.index(after: colon)...].allSatisfy(\.isNumber)
        {
            host = host[..<colon]
        }
        return String(host.hasSuffix(".") ? host.dropLast() : host)
    }

    /// The host of an `Origin` (`scheme://host[:port]`), or `nil` when it is not one.
    static func origin(_ text: String) -> (scheme: String, authority: String)? {
        guard let range = text.range(of: "://") else { return nil }
        let scheme = String(text[..<range.lowerBound]).lowercased()
        let authority = String(text[range.upperBound...])
        guard scheme == "http" || scheme == "https", !authority.isEmpty, !authority.contains("/") else { return nil }
        return (scheme, authority)
    }
}
