import HearthBus
import HearthCore

/// What a sync asks of this device's own store, said as this device's failure when it fails (a
/// refusal of the local store is never reported as the peer's), and the signing keys the two
/// devices exchange over their authenticated link.
extension SyncReplicator {
    /// Sends `command` to this device's store.
    /// - Throws: `LocalStoreFailure` when the store refuses or does not answer;
    ///   `CommandClientError.tooLarge` as it is (the caller sends smaller pieces).
    func local<C: HearthCommand>(_ command: C) async throws -> C.Reply {
        try await local(C.name, try command.arguments()).decode(C.Reply.self)
    }

    /// `command` to this device's store; a failure is the local store's, never the peer's.
    func local(_ command: String, _ arguments: [String: JSONValue] = [:]) async throws -> JSONValue {
        do {
            return try await store.request(command, args: arguments)
        } catch let error as CommandClientError {
            if case .tooLarge = error { throw error }
            throw LocalStoreFailure(command: command, error: error)
        }
    }

    /// Pins `peer`'s signing key (`key`, as it sent it over the CURVE link its pinned key
    /// authenticates) in this device's store, which then also vouches for it to the others.
    /// - Throws: when the peer sent none (a Hearth from before signed operations), or the store
    ///   knows the peer by another key.
    func trust(_ key: String?, of peer: SyncDatabase.Peer) async throws {
        guard let key else {
            throw CommandError(
                code: "outdated_peer",
                message:
                    "\(peer.name) sent no signing key: it runs a Hearth from before signed operations; update it to sync"
            )
        }
        _ = try await local(DeviceCommands.Trust(device: peer.device, key: key, via: "sync"))
    }
}

/// This device's store refused a sync's request or did not answer: this side failed, not the
/// peer.
struct LocalStoreFailure: Error, CustomStringConvertible {
    let command: String
    let error: CommandClientError

    /// The store's own refusal, if it refused.
    var refusal: CommandError? {
        if case .refused(let refusal) = error { return refusal }
        return nil
    }

    /// The failure as a peer is told it: the store's code and message, or `unavailable`.
    var forPeer: CommandError {
        refusal.map { CommandError(code: $0.code, message: "the other device's store refused: \($0.message)") }
            ?? CommandError(code: "unavailable", message: "the other device's store is not answering")
    }

    var description: String {
        if let refusal { return "this device's store refused \(command): \(refusal.message)" }
        return "this device's store did not answer \(command) (is hearth-store running?): \(error)"
    }
}

/// Operations one side refused of a sync: the first few, with their field and rule, and how many.
struct Refusals: Equatable, Sendable {
    var refused: [OperationsRefusedEvent.Refusal] = []
    var count = 0

    /// The first refusal in words, and how many more.
    var summary: String {
        guard let first = refused.first else { return "" }
        let text = "'\(first.field)' \(first.rule)"
        return count > 1 ? "\(text) (and \(count - 1) more)" : text
    }

    /// The refused operations' ids shown.
    var ids: [String] { refused.compactMap(\.id) }
}
