import HearthBus
import Synchronization

/// The paired devices by key, in memory: the ZAP handler (which cannot wait on a database) and
/// every peer request read it; `SyncDatabase` is its durable copy, loaded at start and changed
/// with it on every pairing and forget.
final class PairedKeys: Sendable {
    private let byKey = Mutex<[String: SyncDatabase.Peer]>([:])

    init(_ peers: [SyncDatabase.Peer] = []) {
        replace(with: peers)
    }

    /// Takes the database's list (forgotten devices are left out: they are refused).
    func replace(with peers: [SyncDatabase.Peer]) {
        let live = peers.filter { $0.forgottenAt == nil }
        byKey.withLock { $0 = Dictionary(live.map { ($0.key, $0) }, uniquingKeysWith: { _, new in new }) }
    }

    func add(_ peer: SyncDatabase.Peer) {
        byKey.withLock { table in
            table = table.filter { $0.value.device != peer.device }
            table[peer.key] = peer
        }
    }

    func remove(device: String) {
        byKey.withLock { table in table = table.filter { $0.value.device != device } }
    }

    /// The paired device holding `key`.
    func peer(forKey key: String) -> SyncDatabase.Peer? {
        byKey.withLock { $0[key] }
    }

    /// The paired device with id `device`.
    func peer(device: String) -> SyncDatabase.Peer? {
        byKey.withLock { table in table.values.first { $0.device == device } }
    }

    var all: [SyncDatabase.Peer] { byKey.withLock { Array($0.values) } }
}
