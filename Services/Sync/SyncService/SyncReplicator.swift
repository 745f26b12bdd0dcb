import Foundation
import HearthBus
import HearthCore
import Logging

/// Replication between paired devices (SPEC part 1): the requests a paired peer may make over
/// the CURVE link, and one sync with a peer — exchange version vectors, pull in pages what this
/// store lacks, push in pages what the peer lacks. Operations only ever move through the stores'
/// own commands (`ops.vector`, `ops.export`, `ops.import`: a page is applied in one transaction
/// and applying one twice changes nothing), so every domain in the operation log replicates with
/// no code here, and an interrupted sync leaves whole pages, completed by the next one.
struct SyncReplicator: Sendable {
    let database: SyncDatabase
    /// The local store's command client.
    let store: CommandClient
    let context: ZMQContext
    let keyPair: CurveKeyPair
    let maximumMessageBytes: Int
    let logger: Logger
    /// How long one request to a peer may take, per attempt.
    var timeout: Duration = .seconds(10)

    // MARK: - Serving paired peers

    /// Answers a request from a peer on the CURVE link. Only a paired, not forgotten key is
    /// answered (the link's authenticator refuses the rest at the handshake; this refuses a key
    /// forgotten while its connection was open).
    func answer(_ request: CommandRequest) async throws -> JSONValue {
        guard let key = request.peerKey, let peer = try database.device(forKey: key) else {
            throw CommandError(code: "not_paired", message: "this device is not paired with yours")
        }
        switch request.command {
        case "sync.vector":
            return try await store.request("ops.vector")
        case "sync.export":
            var arguments: [String: JSONValue] = ["since_vector": request.arguments["since_vector"] ?? [:]]
            if let after = request.arguments["after"], after != .null { arguments["after"] = after }
            arguments["limit"] = request.arguments["limit"] ?? .int(2_000)
            return try await store.request("ops.export", args: arguments)
        case "sync.import":
            let reply = try await store.request(
                "ops.import",
                args: [
                    "format": request.arguments["format"] ?? .null,
                    "operations": request.arguments["operations"] ?? .array([]),
                ])
            logger.info("hearth-sync: \(peer.name) sent \(reply["received"]?.intValue ?? 0) operations")
            return reply
        default:
            throw CommandError.unknownCommand(request.command, service: "sync")
        }
    }

    // MARK: - Syncing with a peer

    /// Syncs with `peer` at `endpoint` and records the outcome in the sync log.
    /// - Returns: the log entry.
    @discardableResult
    func sync(
        with peer: SyncDatabase.Peer, endpoint: String, now: @Sendable () -> Date = { Date() }
    ) async
        -> SyncDatabase.Entry
    {
        let clock = ContinuousClock()
        let started = clock.now
        var entry = SyncDatabase.Entry(at: now(), peer: peer.device, peerName: peer.name, outcome: .completed)
        let link = CommandClient(
            context: context, endpoint: endpoint, timeout: timeout, attempts: 2,
            maximumMessageBytes: maximumMessageBytes, curve: (keyPair, peer.key), logger: logger)
        do {
            let theirs = try await link.request("sync.vector")
            let ours = try await store.request("ops.vector")
            // Pull what this store lacks, page by page.
            var after: JSONValue = .null
            repeat {
                let page = try await link.request(
                    "sync.export", args: ["since_vector": ours["vector"] ?? [:], "after": after])
                let operations = page["operations"]?.arrayValue ?? []
                if !operations.isEmpty {
                    let applied = try await store.request(
                        "ops.import", args: ["format": page["format"] ?? .null, "operations": .array(operations)])
                    entry.received += Int(applied["received"]?.intValue ?? 0)
                    entry.conflicts += Int(applied["conflicts"]?.intValue ?? 0)
                }
                after = page["next"] ?? .null
            } while after != .null
            // Push what the peer lacks, page by page.
            after = .null
            repeat {
                let page = try await store.request(
                    "ops.export", args: ["since_vector": theirs["vector"] ?? [:], "after": after, "limit": 2_000])
                let operations = page["operations"]?.arrayValue ?? []
                if !operations.isEmpty {
                    let applied = try await link.request(
                        "sync.import", args: ["format": page["format"] ?? .null, "operations": .array(operations)])
                    entry.sent += Int(applied["received"]?.intValue ?? 0)
                }
                after = page["next"] ?? .null
            } while after != .null
            if entry.conflicts > 0 { entry.resolution = "both values kept; the latest shown until a person chooses" }
            try? database.noteSynced(peer.device, at: entry.at, endpoint: endpoint)
        } catch {
            entry.outcome = .failed
            entry.detail = Self.reason(error, peer: peer)
        }
        entry.bytes = link.bytesExchanged
        await link.close()
        entry.duration = clock.now - started
        do {
            try database.log(entry)
        } catch {
            logger.error("hearth-sync: cannot write the sync log: \(error)")
        }
        return entry
    }

    /// A failure in words that name the peer.
    static func reason(_ error: any Error, peer: SyncDatabase.Peer) -> String {
        switch error as? CommandClientError {
        case .unreachable:
            "\(peer.name) did not answer (not running, not reachable, or it does not accept this device's key)"
        case .refused(let refusal): "\(peer.name) refused: \(refusal.message)"
        default: "\(peer.name): \(error)"
        }
    }
}
