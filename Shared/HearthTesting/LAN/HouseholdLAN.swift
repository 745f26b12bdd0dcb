import Foundation
import HearthBus
import Synchronization

/// A household LAN built by `deploy/lan`: devices in network namespaces of their own on a Linux
/// bridge, each running a whole Hearth stack under `ip netns exec` (`LANDevice`), reached by the
/// caller (and `hearth`) over its `ipc://` sockets, which no network namespace divides. For the
/// network tests (`Tests/NetworkTests`) and `hearth-bench lan`.
///
/// `with` removes the LAN however its body ends; a LAN a crashed process left behind is removed
/// by the next one's `deploy/lan sweep` (its ID carries the process's pid).
public final class HouseholdLAN: Sendable {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    public static let script = root + "/deploy/lan"
    private static let made = Atomic<Int>(0)

    public let id: String
    public let count: Int
    /// The subnet's broadcast address, where the devices' beacons go.
    public let broadcast: String

    private init(id: String, count: Int, broadcast: String) {
        (self.id, self.count, self.broadcast) = (id, count, broadcast)
    }

    /// Builds a LAN of `count` devices, runs `body` on it, and removes it.
    /// - Throws: `LANUnavailable` when this machine cannot build one (not root, no `ip netns`,
    ///   no nftables), with the reason in one line; what `body` throws.
    public static func with<T>(devices count: Int, _ body: (HouseholdLAN) async throws -> T) async throws -> T {
        _ = try? await ChildProcess.run(script, ["sweep"], timeout: .seconds(30))
        let serial = made.add(1, ordering: .relaxed).newValue
        let id = "\(getpid())x\(String(serial % 36, radix: 36))"
        let up = try await ChildProcess.run(script, ["up", id, "\(count)"], timeout: .seconds(30))
        guard up.status == 0 else {
            _ = try? await ChildProcess.run(script, ["down", id], timeout: .seconds(30))
            throw LANUnavailable(reason: up.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let broadcast = try await ChildProcess.run(script, ["broadcast", id]).stdout
        let lan = HouseholdLAN(
            id: id, count: count, broadcast: broadcast.trimmingCharacters(in: .whitespacesAndNewlines))
        let result: T
        do {
            result = try await body(lan)
        } catch {
            _ = try? await ChildProcess.run(script, ["down", id], timeout: .seconds(30))
            throw error
        }
        try await lan.lan("down")
        return result
    }

    /// `deploy/lan COMMAND ID ARGUMENTS…`.
    /// - Throws: `LANError` with what it printed, when it fails.
    public func lan(_ command: String, _ arguments: [String] = []) async throws {
        let result = try await ChildProcess.run(Self.script, [command, id] + arguments, timeout: .seconds(30))
        guard result.status == 0 else {
            throw LANError("deploy/lan \(command) \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }

    /// Device `device`'s address on the subnet.
    public func address(_ device: Int) -> String {
        let parts = broadcast.split(separator: ".").dropLast()
        return (parts + ["\(device)"]).joined(separator: ".")
    }

    /// How a process is started inside device `index`'s namespace.
    public func launcher(_ index: Int) -> [String] { ["/usr/sbin/ip", "netns", "exec", "hearth-\(id)-\(index)"] }

    /// The bytes device `index` has sent on the LAN since it was made: its cable's host end's
    /// received bytes (Ethernet frames, headers included; a retransmission counts again). Summed
    /// over the devices, each packet on the wire counts once.
    public func sentBytes(_ index: Int) -> Int {
        let path = "/sys/class/net/hlv-\(id)-\(index)/statistics/rx_bytes"
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "0"
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}

/// This machine cannot build a LAN of network namespaces, and why.
public struct LANUnavailable: Error, CustomStringConvertible {
    public let reason: String

    public var description: String { "cannot build a LAN of network namespaces here: \(reason)" }
}

/// Something on the LAN did not go as it must.
public struct LANError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
