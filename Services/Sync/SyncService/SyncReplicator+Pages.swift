import Foundation
import HearthBus
import HearthCore

/// The pages a sync brings, ready for this device's store.
extension SyncReplicator {
    /// A page of a peer's operations, ready for this device's store.
    struct PreparedPage: Sendable {
        let format: JSONValue
        let packed: JSONValue
        let operations: [JSONValue]
        /// Whether it vouches for keys: the pages after it are checked with them, so it is
        /// applied before the next is sent to the store.
        let vouches: Bool
    }

    /// Unpacks a page (for the count of operations relayed, and whether it vouches for keys).
    /// - Returns: `nil` for an empty page.
    func preparePage(format: JSONValue, packed: JSONValue?) throws -> PreparedPage? {
        let operations = try unpacked(packed)
        guard let packed, !operations.isEmpty else { return nil }
        return PreparedPage(
            format: format, packed: packed, operations: operations,
            vouches: operations.contains { $0["entity"]?["kind"]?.stringValue == Devices.keyKind })
    }
}
