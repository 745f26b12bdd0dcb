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
            names.formUnion(Self.interfaceAddresses())
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

    /// This machine's IPv4 and IPv6 addresses (`getifaddrs`).
    private static func interfaceAddresses() -> Set<String> {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: Set<String> = []
        var next = first
        while let entry = next {
            defer { next = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length =
                address.pointee.sa_family == UInt16(AF_INET6)
                ? socklen_t(MemoryLayout<sockaddr_in6>.size) : socklen_t(MemoryLayout<sockaddr_in>.size)
            guard address.pointee.sa_family == UInt16(AF_INET) || address.pointee.sa_family == UInt16(AF_INET6),
                getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
            else { continue }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // A link-local IPv6 address comes with its zone (`fe80::1%eth0`); a Host never has it.
            addresses.insert(String(text.prefix { $0 != "%" }).lowercased())
        }
        return addresses
    }
}
