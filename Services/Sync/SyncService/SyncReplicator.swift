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
    /// The local store's command client.
    let store: CommandClient
    let context: ZMQContext
    let keyPair: CurveKeyPair
    let maximumMessageBytes: Int
    let logger: Logger
    /// How long one request to a peer may take, per attempt.
    var timeout: Duration = .seconds(10)
    /// Operations per page each way.
    var pageSize = 5_000
    /// Whether the replication server in front of this replicator reads deflated requests
    /// (`CommandServer`'s `readsDeflated`, set from this): its `sync.vector` reply says so, and the
    /// asking device deflates the rest of the sync. Tests turn it off to be a device of an
    /// earlier version.
    var readsDeflated = true
    /// This device's wall clock (tests set another device's clock wrong).
    var wallClock: @Sendable () -> Date = { Date() }

    /// What applying one page from a peer did.
    struct Applied: Sendable {
        var received = 0
        var conflicts = 0
        /// Operations authored by devices other than the peer that brought them.
        var relayed = 0
        var quarantined: [String] = []
        /// What the store announced of the page (`AnnouncedChange`: the planner's cards).
        var announced: [AnnouncedChange] = []
        /// Operations the store refused (bad signature, unknown author, against the rules): the
        /// first few with their field and rule, and how many in all.
        var refused: [OperationsRefusedEvent.Refusal] = []
        var refusedCount = 0
        /// Operation ids held here with other contents (from before signing).
        var forked = 0
    }

    // MARK: - Serving paired peers

    /// Answers a request from `peer` (already checked to be paired) on the CURVE link. A failure
    /// of this device's store reaches the peer as the store's own refusal, named as this side's
    /// (`LocalStoreFailure.forPeer`), never as `internal`.
    func answer(_ request: CommandRequest, from peer: SyncDatabase.Peer) async throws -> (JSONValue, Applied?) {
        do {
            return try await answering(request, from: peer)
        } catch let failure as LocalStoreFailure {
            throw failure.forPeer
        }
    }

    private func answering(
        _ request: CommandRequest, from peer: SyncDatabase.Peer
    ) async throws -> (JSONValue, Applied?) {
        switch request.command {
        case "sync.vector":
            // The asking device's signing key, over the link its pinned CURVE key authenticates:
            // pinned before anything of it is imported (for a pair from before signing, the
            // first time).
            try await trust(request.arguments["signing_key"]?.stringValue, of: peer)
            // With this device's clock, so the asking device can see a drift before anything moves.
            var vector = try await local(ExchangeCommands.Vector())
            vector.now = Int64(wallClock().timeIntervalSince1970 * 1000)
            vector.deflate = readsDeflated ? true : nil
            return (try JSONValue(reply: vector), nil)
        case "sync.export":
            var arguments: [String: JSONValue] = ["since_vector": request.arguments["since_vector"] ?? [:]]
            if let after = request.arguments["after"], after != .null { arguments["after"] = after }
            arguments["limit"] = request.arguments["limit"] ?? .int(Int64(pageSize))
            arguments["packed"] = true
            // Packed by the store, and passed on as it is.
            return (try await local("ops.export", arguments), nil)
        case "sync.import":
            let applied = try await importPage(
                format: request.arguments["format"] ?? .null, packed: request.arguments["packed"], from: peer)
            return (
                try JSONValue(
                    reply: PageApplied(
                        received: applied.received, conflicts: applied.conflicts,
                        quarantined: applied.quarantined.count, refused: applied.refused,
                        refusedCount: applied.refusedCount)), applied
            )
        default:
            throw CommandError.unknownCommand(request.command, service: "sync")
        }
    }

    /// Applies one page of operations that `peer` brought (`packed`), in one store transaction,
    /// noting which were relayed for other devices and what the store announced of it.
    func importPage(format: JSONValue, packed: JSONValue?, from peer: SyncDatabase.Peer) async throws -> Applied {
        guard let page = try preparePage(format: format, packed: packed) else { return Applied() }
        return try await applyPage(page, from: peer)
    }

    /// Imports a prepared page into this device's store.
    func applyPage(_ page: PreparedPage, from peer: SyncDatabase.Peer) async throws -> Applied {
        var applied = Applied()
        applied.relayed = page.operations.count {
            ($0["id"]?.stringValue ?? "").split(separator: ":").first != Substring(peer.device)
        }
        func note(_ reply: JSONValue) throws {
            let report = try reply.decode(ImportReport.self)
            applied.received += report.received
            applied.conflicts += report.conflicts
            applied.refusedCount += report.refusedCount
            applied.forked += report.forkedCount
            applied.refused += report.refused.prefix(max(0, 20 - applied.refused.count))
            applied.quarantined += report.quarantined.map { "\($0.id): \($0.reason)" }
            applied.announced += report.announced ?? []
        }
        // The page goes to the store as it came, packed (it is inflated here only for the relay
        // count and the keys it vouches for, never re-encoded). A page over this device's command limit
        // (from a peer whose limit is larger) goes as plain operations, in pieces.
        let source = JSONValue.string(peer.device)
        do {
            try note(
                try await local(
                    "ops.import",
                    ["format": page.format, "packed": page.packed, "source": source, "announce": true]))
        } catch CommandClientError.tooLarge {
            try await Self.inPieces(page.operations[...]) { piece in
                try note(
                    try await local(
                        "ops.import",
                        [
                            "format": page.format, "operations": .array(Array(piece)), "source": source,
                            "announce": true,
                        ]))
            }
        }
        return applied
    }

    // MARK: - Syncing with a peer

    /// Syncs with `peer` at `endpoint`.
    /// - Returns: the outcome for the sync log, with the cards that changed here.
    /// - Parameter progress: told the operations moved so far and the whole to move (from the
    ///   two version vectors), after each page.
    func sync(
        with peer: SyncDatabase.Peer, endpoint: String, now: @Sendable () -> Date = { Date() },
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async -> (entry: SyncDatabase.Entry, changes: [CardsChangedEvent.Change]) {
        let clock = ContinuousClock()
        let started = clock.now
        var entry = SyncDatabase.Entry(at: now(), peer: peer.device, peerName: peer.name, outcome: .completed)
        var announced: [AnnouncedChange] = []
        var (relayed, quarantined) = (0, [String]())
        var notes: [String] = []
        // What this device refused of the peer's pages, and how many the peer refused of ours.
        var refusedHere = Refusals()
        var refusedThere = 0
        let link = CommandClient(
            context: context, endpoint: endpoint, timeout: timeout, attempts: 2,
            maximumMessageBytes: maximumMessageBytes, curve: (keyPair, peer.key), logger: logger)
        do {
            let ours = try await local(ExchangeCommands.Vector())
            // This device's signing key goes to the peer over the link its pinned CURVE key
            // authenticates; the peer's comes back the same way. Each pins the other's before
            // anything of it is imported (for a pair from before signing, the first time).
            let vectorAsked = wallClock()
            let theirs = try await link.request("sync.vector", args: ["signing_key": .string(ours.signingKey)])
                .decode(VersionVectorReply.self)
            // Their clock against the middle of the round trip (the moment they most likely read it).
            let answered = wallClock()
            let middle = vectorAsked.addingTimeInterval(answered.timeIntervalSince(vectorAsked) / 2)
            entry.clockOffsetMilliseconds = theirs.now.map { $0 - Int64(middle.timeIntervalSince1970 * 1000) }
            try Self.checkClock(theirs.now, peer: peer, now: middle)
            // The rest of the sync deflated, when the peer reads that: a page's base64 and the
            // signatures in it cross as what they encode (`hearth-bench sync`: year_bytes).
            if theirs.deflate == true { link.deflateRequests() }
            try await trust(theirs.signingKey, of: peer)
            // What each side lacks of the other, by counters: the whole a progress line counts to.
            let (mine, yours) = (ours.vector, theirs.vector)
            func lacking(_ have: [String: Int64], _ other: [String: Int64]) -> Int {
                other.reduce(0) { sum, entry in sum + max(0, Int(entry.value) - Int(have[entry.key] ?? 0)) }
            }
            // An estimate: a key vouched for as the sync begins adds an operation it grows by.
            var whole = lacking(mine, yours) + lacking(yours, mine)
            var moved = 0
            progress?(0, whole)
            // Pull what this store lacks, page by page. The next page is asked for before this
            // one is applied, so the peer's export overlaps this store's import.
            // Only the devices the peer holds operations of: the rest of this vector tells it
            // nothing, and a store that took in many devices before signing capped them would send
            // a request over the message limit.
            let since = JSONValue.object(
                ours.vector.filter { theirs.vector[$0.key] != nil }.mapValues { JSONValue.int($0) })
            let limit = JSONValue.int(Int64(pageSize))
            let ask = { (after: JSONValue) in
                Task {
                    try await link.request(
                        "sync.export", args: ["since_vector": since, "after": after, "limit": limit])
                }
            }
            var asked: Task<JSONValue, any Error>? = ask(.null)
            defer { asked?.cancel() }
            // One page is applied while the next is checked: the store verifies a page's
            // signatures (off its pool, on both cores) while it writes the one before in its
            // transaction. A page that vouches for keys is applied before the next is sent, so
            // the next is checked with them.
            var applying: Task<Applied, any Error>?
            func settle(_ applied: Applied) {
                entry.received += applied.received
                entry.conflicts += applied.conflicts
                announced += applied.announced
                relayed += applied.relayed
                quarantined += applied.quarantined
                refusedHere.refused += applied.refused.prefix(max(0, 20 - refusedHere.refused.count))
                refusedHere.count += applied.refusedCount
            }
            while let page = try await asked?.value {
                let next = page["next"] ?? .null
                asked = next == .null ? nil : ask(next)
                guard let prepared = try preparePage(format: page["format"] ?? .null, packed: page["packed"])
                else { continue }
                moved += prepared.operations.count
                whole = max(whole, moved)
                progress?(moved, whole)
                let replicator = self
                let task = Task { try await replicator.applyPage(prepared, from: peer) }
                if let earlier = applying { settle(try await earlier.value) }
                applying = task
                if prepared.vouches {
                    settle(try await task.value)
                    applying = nil
                }
            }
            if let last = applying { settle(try await last.value) }
            // Push what the peer lacks, page by page.
            var after: JSONValue = .null
            repeat {
                let page = try await local(
                    "ops.export",
                    [
                        "since_vector": .object(theirs.vector.mapValues { JSONValue.int($0) }), "after": after,
                        "limit": .int(Int64(pageSize)),
                        "packed": true,
                    ])
                if page["count"]?.intValue ?? 0 > 0 {
                    let applied = try await link.request(
                        "sync.import", args: ["format": page["format"] ?? .null, "packed": page["packed"] ?? .null]
                    ).decode(PageApplied.self)
                    entry.sent += applied.received
                    refusedThere += applied.refusedCount
                    moved += Int(page["count"]?.intValue ?? 0)
                    whole = max(whole, moved)
                    progress?(moved, whole)
                }
                after = page["next"] ?? .null
            } while after != .null
            if entry.conflicts > 0 {
                entry.resolution = "both values kept on every device; the latest shown until someone picks one"
            }
            // Restored from a backup: this device now holds what the peer had of its own, and
            // writes again from the counter after it.
            if ours.restored {
                _ = try await local(ExchangeCommands.Resume())
                notes.append("took back this device's own operations after a restore")
            }
            // What moved, for the peer's log and popup (nothing to say after an idle sync: its
            // bytes stay the vectors'); a peer of an earlier version refuses the command, which
            // changes nothing here.
            if entry.received + entry.sent > 0 {
                let done = SyncDone(
                    received: entry.received, sent: entry.sent, bytes: link.bytesExchanged,
                    durationMs: (clock.now - started).milliseconds)
                _ = try? await link.request("sync.done", args: try JSONValue(encoding: done).objectValue ?? [:])
            }
        } catch {
            entry.outcome = .failed
            entry.detail = Self.reason(error, peer: peer)
            switch error as? CommandClientError {
            case .unreachable: entry.unanswered = true
            case .refused(let refusal): entry.unanswered = refusal.code == "not_paired"
            default: break
            }
        }
        // The cards that changed, also when the sync failed after some pages were applied.
        let changes = CardsChangedEvent.changes(merging: announced)
        if relayed > 0 { notes.append("\(relayed) relayed for other devices by \(peer.name)") }
        if !quarantined.isEmpty {
            notes.append("held back \(quarantined.count): " + quarantined.prefix(3).joined(separator: "; "))
        }
        if refusedHere.count > 0 {
            notes.append("refused \(refusedHere.count) from \(peer.name): " + refusedHere.summary)
        }
        if refusedThere > 0 { notes.append("\(peer.name) refused \(refusedThere) of those sent") }
        entry.refused = refusedHere
        if !notes.isEmpty { entry.detail = ([entry.detail] + notes).filter { !$0.isEmpty }.joined(separator: "; ") }
        entry.bytes = link.bytesExchanged
        await link.close()
        entry.duration = clock.now - started
        return (entry, changes)
    }

    /// The operations of a page from a peer (`packed`), unpacked within bounds.
    func unpacked(_ packed: JSONValue?) throws -> [JSONValue] {
        guard let packed = packed?.stringValue else {
            throw CommandError.invalidArgument("packed", "is required: a page of operations, deflated, in base64")
        }
        do {
            return try PackedPage.unpack(packed, maximumBytes: maximumMessageBytes * 8)
        } catch {
            throw CommandError.invalidArgument("packed", error.description)
        }
    }

    /// Sends `operations` with `send`, halving a piece the command size limit refuses: an export
    /// page is sized by the store's estimate, a request by its real bytes. Each piece is still
    /// applied whole, in one transaction.
    static func inPieces(
        _ operations: ArraySlice<JSONValue>, _ send: (ArraySlice<JSONValue>) async throws -> Void
    ) async throws {
        do {
            try await send(operations)
        } catch let error as CommandClientError {
            guard case .tooLarge = error, operations.count > 1 else { throw error }
            let middle = operations.startIndex + operations.count / 2
            try await inPieces(operations[..<middle], send)
            try await inPieces(operations[middle...], send)
        }
    }

    /// Refuses a peer whose clock is further from this one than a clock may drift: its
    /// operations would be stamped in the future here (or this device's in its past), so nothing
    /// is exchanged until one of the clocks is set right.
    static func checkClock(_ theirs: Int64?, peer: SyncDatabase.Peer, now: Date) throws {
        guard let theirs else { return }
        let ours = Int64(now.timeIntervalSince1970 * 1000)
        let drift = theirs - ours
        guard abs(drift) > HybridClock.maximumDrift else { return }
        let minutes = (abs(drift) + 30_000) / 60_000  // to the nearest minute
        throw CommandError(
            code: "clock_drift",
            message:
                "\(peer.name)'s clock is \(minutes) min \(drift > 0 ? "ahead of" : "behind") this device's, beyond the \(HybridClock.maximumDrift / 60_000) min allowed: nothing was synced; set the clock right on one of them"
        )
    }

    /// A failure in words that name the side that failed: this device's store, or the peer.
    static func reason(_ error: any Error, peer: SyncDatabase.Peer) -> String {
        if let failure = error as? LocalStoreFailure { return failure.description }
        return switch error as? CommandClientError {
        case .unreachable:
            "\(peer.name) did not answer (not running, not reachable, or it does not accept this device's key)"
        case .refused(let refusal): "\(peer.name) refused: \(refusal.message)"
        default: (error as? CommandError)?.message ?? "\(peer.name): \(error)"
        }
    }
}
