import Foundation
import HearthBus
import Synchronization

/// One beacon heard: what a device announced and the address it came from.
public struct BeaconSighting: Sendable {
    public let payload: JSONValue
    /// The sender's IPv4 address, dotted.
    public let host: String
    public let port: UInt16

    public init(payload: JSONValue, host: String, port: UInt16) {
        (self.payload, self.host, self.port) = (payload, host, port)
    }
}

/// Local discovery over UDP, like CZMQ's zbeacon: every second this device's announcement goes to
/// the broadcast address and to each static peer; every announcement heard arrives on `sightings`.
///
/// The socket lives on its own thread (blocking `recvfrom` with a short timeout), never on the
/// cooperative pool. Several stacks on one machine can share the port (`SO_REUSEADDR`), and all
/// of them hear a broadcast, but only the socket bound last gets a unicast datagram: so each
/// service that announces itself binds a port of its own (`DiscoverySettings.port(for:)`).
/// Turns and sync share this one implementation and the `[discovery]` settings.
public final class Beacon: Sendable {
    /// Largest announcement, well inside one unfragmented datagram.
    public static let maximumBytes = 1_400

    public let sightings: AsyncStream<BeaconSighting>
    private let continuation: AsyncStream<BeaconSighting>.Continuation
    /// The announcement, as broadcast and as sent to static peers (marked `direct`, asking for an answer).
    private let announcement = Mutex<(broadcast: [UInt8], direct: [UInt8])>(([], []))
    private let stopping = Atomic<Bool>(false)
    private let descriptor: Int32
    private let broadcast: (address: UInt32, port: UInt16)?
    private let staticPeers: [(address: UInt32, port: UInt16)]

    /// Opens and binds the UDP socket.
    /// - Throws: `SystemCallError` naming the failing call (the port may be taken without
    ///   `SO_REUSEADDR`, or broadcast refused).
    public init(port: Int, broadcastAddress: String, staticPeers: [String]) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallError.last("socket(UDP)") }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw SystemCallError(code: code, operation: "bind(UDP port \(port))")
        }
        broadcast = IPv4.parse(broadcastAddress).map { ($0, UInt16(port)) }
        self.staticPeers = staticPeers.compactMap(IPv4.parseHostPort)
        self.descriptor = descriptor
        (sightings, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        Thread { [self] in receiveLoop() }.start()
    }

    /// What to announce from now on.
    public func announce(_ payload: JSONValue) {
        var direct = payload.objectValue ?? [:]
        direct["direct"] = true
        let bytes = (payload.jsonBytes, JSONValue.object(direct).jsonBytes)
        guard bytes.1.count <= Self.maximumBytes else { return }
        announcement.withLock { $0 = bytes }
    }

    /// Sends the announcement to the broadcast address and every static peer. Called once a
    /// second by the service; `sendto` on a datagram socket does not block.
    public func send() {
        let bytes = announcement.withLock { $0 }
        guard !bytes.broadcast.isEmpty else { return }
        if let broadcast { send(bytes.broadcast, to: broadcast.address, port: broadcast.port) }
        for peer in staticPeers { send(bytes.direct, to: peer.address, port: peer.port) }
    }

    /// Sends the announcement to one address (the answer to a static peer's beacon).
    public func reply(to host: String, port: UInt16) {
        let bytes = announcement.withLock { $0.broadcast }
        guard let address = IPv4.parse(host), !bytes.isEmpty else { return }
        send(bytes, to: address, port: port)
    }

    private func send(_ bytes: [UInt8], to host: UInt32, port: UInt16) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = host
        _ = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(
                        descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), $0,
                        socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Stops the receiving thread (within its 200 ms timeout) and closes the socket.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
    }

    private func receiveLoop() {
        var buffer = [UInt8](repeating: 0, count: 2_048)
        while !stopping.load(ordering: .relaxed) {
            var from = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length)
                    }
                }
            }
            guard count > 0 else { continue }  // timeout, or an interrupted call
            // Anything that is not a Hearth announcement is ignored: the port is shared with the LAN.
            guard count <= Self.maximumBytes, let payload = try? JSONValue.parse(buffer[0..<count]),
                payload["hearth"] == 1
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var address = from.sin_addr
            inet_ntop(AF_INET, &address, &text, socklen_t(INET_ADDRSTRLEN))
            let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            continuation.yield(BeaconSighting(payload: payload, host: host, port: UInt16(bigEndian: from.sin_port)))
        }
        close(descriptor)
        continuation.finish()
    }
}
