import Foundation
import HearthBus

/// IPv4 text forms.
public enum IPv4 {
    /// The address in network byte order, or `nil`.
    public static func parse(_ text: String) -> UInt32? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return address.s_addr
    }

    /// `host:port` → address (network order) and port, or `nil`.
    public static func parseHostPort(_ text: String) -> (address: UInt32, port: UInt16)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let address = parse(String(parts[0])), let port = UInt16(parts[1]), port > 0 else {
            return nil
        }
        return (address, port)
    }
}
