import Foundation
import HearthBus
import HearthHost

extension DoctorChecks {
    /// The beacon ports (turns', and sync's the next one): free, or held by Hearth's own
    /// services, never by another program; and a network interface that carries the broadcast.
    /// - Parameter nearby: how many devices hearth-sync hears now (nil when it is not running).
    static func beacon(_ settings: DiscoverySettings, nearby: Int?) -> DoctorCheck {
        var held: [String] = []
        for service in [HearthService.turn, .sync] {
            let port = settings.port(for: service)
            for holder in UDPPorts.holders(of: port) where holder != "hearth-turn" && holder != "hearth-sync" {
                held.append("UDP port \(port) (\(service.rawValue)'s beacon) is held by \(holder)")
            }
        }
        if !held.isEmpty {
            return .problem(
                "beacon", held.joined(separator: "; "),
                fix:
                    "stop that program, or move Hearth's beacons on every device of the household: [discovery] beacon_port in hearth.toml (turns use it, sync the next port)"
            )
        }
        let interfaces = BroadcastInterfaces.up()
        let peers = settings.staticPeers
        guard !interfaces.isEmpty else {
            let verdict = "no network interface that carries broadcasts is up: other devices cannot hear this one"
            if !peers.isEmpty {
                return .warning(
                    "beacon", verdict + " (only the \(peers.count) static peers are reached)",
                    fix: "connect this device to the household's network")
            }
            return .problem(
                "beacon", verdict,
                fix:
                    "connect this device to the household's network; where it does not carry broadcasts, list the other devices in [discovery] peers"
            )
        }
        if let failure = BroadcastInterfaces.probe(settings.beaconAddress) {
            return .problem(
                "beacon", "a broadcast to \(settings.beaconAddress) cannot be sent: \(failure)",
                fix:
                    "set [discovery] beacon_address to this network's broadcast address (\(interfaces[0].broadcast)), or list the other devices in [discovery] peers"
            )
        }
        // The interface the kernel sends it by (lo for a loopback broadcast, which doctor named
        // eth0: issue 63), else every interface that carries broadcasts.
        let names =
            BroadcastInterfaces.leavingBy(settings.beaconAddress).map { "\($0.name) (\($0.address))" }
            ?? interfaces.map { "\($0.name) (\($0.address), broadcast \($0.broadcast))" }.joined(separator: ", ")
        let heard = nearby.map { "; hearth-sync hears \(Output.count($0, "device")) nearby" } ?? ""
        let ports = "\(settings.port(for: .turn)) and \(settings.port(for: .sync))"
        return .ok(
            "beacon",
            "UDP ports \(ports) free for Hearth; broadcasts to \(settings.beaconAddress) leave by \(names)\(heard)")
    }
}

/// Which processes hold a UDP port, from `/proc/net/udp*` and each process's open sockets.
enum UDPPorts {
    /// The holders' names (`hearth-turn`, `avahi-daemon (pid 812)`); a holder whose process this
    /// user cannot see is named as another user's.
    static func holders(of port: Int) -> [String] {
        var inodes = Set<String>()
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, let colon = fields[1].lastIndex(of: ":"),
                    Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port
                else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        guard !inodes.isEmpty else { return [] }
        var found: [String] = []
        var seen = Set<String>()
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in processes where Int(pid) != nil {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            for descriptor in descriptors {
                guard
                    let link = try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "/proc/\(pid)/fd/\(descriptor)"),
                    link.hasPrefix("socket:["), inodes.contains(String(link.dropFirst(8).dropLast()))
                else { continue }
                seen.insert(String(link.dropFirst(8).dropLast()))
                let name =
                    (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "process \(pid)"
                // The kernel cuts a process's name to 15 bytes: hearth-schedule…
                found.append(name.hasPrefix("hearth-") ? name : "\(name) (pid \(pid))")
            }
        }
        if seen.count < inodes.count { found.append("another user's process") }
        return Array(Set(found)).sorted()
    }
}

/// The IPv4 interfaces up that carry broadcasts (not loopback).
enum BroadcastInterfaces {
    struct Interface: Sendable {
        let name: String
        let address: String
        let broadcast: String
    }

    static func up() -> [Interface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var interfaces: [Interface] = []
        var cursor = list
        while let entry = cursor?.pointee {
            defer { cursor = entry.ifa_next }
            let flags = Int32(entry.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_BROADCAST) != 0,
                flags & Int32(IFF_LOOPBACK) == 0, let address = entry.ifa_addr,
                address.pointee.sa_family == sa_family_t(AF_INET), let broadcast = entry.ifa_ifu.ifu_broadaddr
            else { continue }
            interfaces.append(
                Interface(name: String(cString: entry.ifa_name), address: text(address), broadcast: text(broadcast)))
        }
        return interfaces
    }

    /// The interface a datagram to `address` leaves by, as the kernel routes it: the local
    /// address a UDP socket connected to it takes, and the interface holding that address
    /// (loopback included); nil when there is no route.
    static func leavingBy(_ address: String) -> (name: String, address: String)? {
        guard let target = IPv4.parse(address) else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<Int32>.size))
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_port = in_port_t(9).bigEndian
        destination.sin_addr.s_addr = target  // already in network order
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let routed = withUnsafePointer(to: &destination) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) == 0 }
        }
        guard routed,
            withUnsafeMutablePointer(
                to: &local,
                {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
                })
        else { return nil }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor?.pointee {
            defer { cursor = entry.ifa_next }
            guard let held = entry.ifa_addr, held.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            let same = held.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                $0.pointee.sin_addr.s_addr == local.sin_addr.s_addr
            }
            if same { return (String(cString: entry.ifa_name), text(held)) }
        }
        return nil
    }

    /// Sends one empty datagram to `address` on a port of its own (nobody listens there):
    /// nil when the kernel takes it, else why not (no route, broadcast not allowed).
    static func probe(_ address: String) -> String? {
        guard let target = IPv4.parse(address) else { return "'\(address)' is not an IPv4 address" }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        // Bound to a free port first, so the probe goes to a port this process holds.
        let bound = withUnsafeMutablePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { return String(cString: strerror(errno)) }
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_port = local.sin_port
        destination.sin_addr.s_addr = target  // already in network order
        let sent = withUnsafePointer(to: &destination) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(fd, nil, 0, 0, address, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return sent < 0 ? String(cString: strerror(errno)) : nil
    }

    private static func text(_ address: UnsafeMutablePointer<sockaddr>) -> String {
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var raw = pointer.pointee.sin_addr
            inet_ntop(AF_INET, &raw, &buffer, socklen_t(INET_ADDRSTRLEN))
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
