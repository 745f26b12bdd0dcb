/// `hearth-turn` settings that keep discovery and peer links on this machine: tcp on 127.0.0.1,
/// beacons to the loopback broadcast address on a port of the caller's own, so tests (and
/// benchmarks) running at once never hear each other's games.
public enum LoopbackTurns {
    /// A beacon port unlikely to be in use by anything else.
    public static func randomPort() -> Int { Int.random(in: 20_000...60_000) }

    /// The environment variables for a stack.
    /// - Parameters:
    ///   - port: the beacon port.
    ///   - peers: other stacks' beacon ports to send beacons to directly (`[discovery] peers`).
    ///   - broadcast: `false` keeps beacons off the loopback broadcast address, so only `peers` hear them.
    public static func environment(port: Int, peers: [Int] = [], broadcast: Bool = true) -> [String: String] {
        var environment = [
            "HEARTH_DISCOVERY_BEACON_PORT": "\(port)", "HEARTH_TURN_PEER": "tcp://127.0.0.1:*",
            "HEARTH_DISCOVERY_BEACON_ADDRESS": broadcast ? "127.255.255.255" : "127.0.0.1",
        ]
        if !peers.isEmpty {
            environment["HEARTH_DISCOVERY_PEERS"] = peers.map { "127.0.0.1:\($0)" }.joined(separator: ",")
        }
        return environment
    }
}
