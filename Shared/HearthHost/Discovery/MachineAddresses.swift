import Foundation

/// This machine's own addresses, and whether a host names this machine: what hearth-web allows in
/// a `Host`, and what a subscribed calendar may not redirect to.
public enum MachineAddresses {
    /// This machine's IPv4 and IPv6 addresses (`getifaddrs`), numeric and lower-case, a link-local
    /// address without its zone (`fe80::1`, not `fe80::1%eth0`).
    public static func interfaces() -> Set<String> {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: Set<String> = []
        var next = first
        while let entry = next {
            defer { next = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr,
                address.pointee.sa_family == UInt16(AF_INET) || address.pointee.sa_family == UInt16(AF_INET6),
                let text = numeric(address)
            else { continue }
            addresses.insert(text)
        }
        return addresses
    }

    /// Whether `host` (a name or an address) resolves to this machine: a loopback address, or one
    /// of its interfaces' addresses. Resolves names (`getaddrinfo`, which blocks: call it off the
    /// cooperative pool); a name that does not resolve is not this machine.
    public static func isThisMachine(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(bare, nil, &hints, &list) == 0 else { return false }
        defer { freeaddrinfo(list) }
        let own = interfaces()
        var next = list
        while let entry = next {
            defer { next = entry.pointee.ai_next }
            guard let address = entry.pointee.ai_addr, let text = numeric(address) else { continue }
            if own.contains(text) || isLoopback(text) { return true }
        }
        return false
    }

    /// Whether a numeric address is a loopback one (127.0.0.0/8, `::1`, or `::ffff:127.x.x.x`).
    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.hasPrefix("::ffff:127.")
    }

    /// A socket address as numeric text, without an IPv6 zone.
    private static func numeric(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        let family = address.pointee.sa_family
        guard family == UInt16(AF_INET) || family == UInt16(AF_INET6) else { return nil }
        let length =
            family == UInt16(AF_INET6)
            ? socklen_t(MemoryLayout<sockaddr_in6>.size) : socklen_t(MemoryLayout<sockaddr_in>.size)
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(text.prefix { $0 != "%" }).lowercased()
    }
}
