/// Which operations a replica holds: for each device, the highest counter up to which it holds
/// every one of that device's operations.
public struct VersionVector: Hashable, Sendable, Codable {
    public private(set) var counters: [String: UInt64]

    public init(_ counters: [String: UInt64] = [:]) {
        self.counters = counters.filter { $0.value > 0 }
    }

    public subscript(device: String) -> UInt64 { counters[device] ?? 0 }

    /// Whether the vector covers `id`.
    public func contains(_ id: OperationID) -> Bool { id.counter <= self[id.device] }

    mutating func set(_ device: String, _ counter: UInt64) {
        counters[device] = counter
    }
}
