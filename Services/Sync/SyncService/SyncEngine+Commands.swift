import Foundation
import HearthBus
import HearthCore
import HearthPairing

/// The commands on `sync.cmd`, from this device's `hearth device …`, `hearth sync …` and the
/// pairing popup's buttons.
extension SyncEngine {
    func command(_ request: CommandRequest) async throws -> JSONValue {
        switch request.command {
        case PairingCommands.Nearby.name:
            return try JSONValue(reply: NearbyList(devices: nearby()))
        case PairingCommands.Pair.name:
            return try await pair(
                with: try required("device", in: try request.decode(PairingCommands.Pair.self).device))
        case PairingCommands.Pending.name:
            return try JSONValue(
                reply: PairingList(pairings: pairings.values.sorted { $0.started < $1.started }.map(pendingView)))
        case PairingCommands.Confirm.name:
            let arguments = try request.decode(PairingCommands.Confirm.self)
            var code: PairingCode?
            if let text = arguments.code {
                do {
                    code = try PairingCode(parsing: text)
                } catch {
                    throw CommandError.invalidArgument(error.field, error.rule)
                }
            }
            var name: String?
            if let given = arguments.name {
                do {
                    name = try TextRules.required(given, field: "name", maximumLength: Devices.maximumNameLength)
                } catch {
                    throw CommandError.invalidArgument(error.field, error.rule)
                }
            }
            return try await confirm(try required("device", in: arguments.device), code: code, name: name)
        case PairingCommands.Reject.name:
            let device = try request.decode(PairingCommands.Reject.self).device
            return try JSONValue(reply: reject(try required("device", in: device)))
        case PairingCommands.Paired.name:
            return try JSONValue(reply: PairedList(devices: try await pairedList()))
        case PairingCommands.Forget.name:
            return try await forget(try required("device", in: try request.decode(PairingCommands.Forget.self).device))
        case SyncCommands.Now.name:
            let command = try request.decode(SyncCommands.Now.self)
            // The token as the progress board takes it (bounded in length), or none.
            return try await syncNow(command.device, progress: ProgressBoard.token(request.arguments))
        case ServiceCommands.Progress.name:
            return progress.json(try required("token", in: try request.decode(ServiceCommands.Progress.self).token))
        case SyncCommands.Log.name:
            return try await log(try request.decode(SyncCommands.Log.self))
        case SyncCommands.Diag.name:
            return try JSONValue(reply: diag())
        default:
            throw CommandError.unknownCommand(request.command, service: "sync")
        }
    }

    private func required(_ field: String, in value: String?) throws -> String {
        guard let text = value, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CommandError.invalidArgument(field, "is required")
        }
        return text
    }

    private func nearby() -> [NearbyDevice] {
        heard.values.sorted { $0.announcement.name < $1.announcement.name }.map { seen in
            let peer = paired.peer(device: seen.announcement.device)
            return NearbyDevice(
                id: seen.announcement.device, name: seen.announcement.name,
                fingerprint: seen.announcement.fingerprint, host: seen.host,
                paired: peer?.key == seen.announcement.key, lastHeard: Timestamp.format(seen.at))
        }
    }

    private func pairedList() async throws -> [PairedList.Device] {
        try await database.peers().map { peer in
            PairedList.Device(
                id: peer.device, name: peer.name, fingerprint: peer.fingerprint,
                pairedAt: Timestamp.format(peer.pairedAt), lastSyncAt: peer.lastSyncAt.map(Timestamp.format),
                forgotten: peer.forgottenAt != nil, heard: heard[peer.device] != nil, removedBy: peer.removedBy,
                clockOffsetMilliseconds: peer.clockOffsetMilliseconds,
                clockMeasuredAt: peer.clockMeasuredAt.map(Timestamp.format))
        }
    }

    /// Forgets a paired device: refused from now on, its live connection cut at once (every
    /// connection reconnects and handshakes again, where its key is refused; every message is
    /// also checked against the paired keys); what it sent stays. The device is told first,
    /// when it is heard (`pair.forgotten`), so it forgets this one too and can pair again; one
    /// away now learns it at its next sync (`pair.status`).
    private func forget(_ query: String) async throws -> JSONValue {
        let live = paired.all
        let other = try DeviceQuery.resolve(query, among: live.map { ($0.device, $0.name) }, what: "paired device")
        let peer = live.first { $0.device == other }!
        let told = (try? await tell(peer, "pair.forgotten")?.decode(PairingMessage.Status.self))?.removed == true
        paired.remove(device: other)
        try await database.forget(other, at: Date())
        running.removeValue(forKey: other)?.cancel()
        // Its key revoked for what it makes from now on, on every device that trusts this one:
        // forgotten here, its operations would still come relayed by another device or in a file.
        let revocation: String
        do {
            let reply = try await store.send(DeviceCommands.Revoke(device: other))
            revocation =
                reply.revoked ? "; its key is revoked for operations after its \(reply.revokedAfter ?? 0)" : ""
        } catch {
            revocation = "; its key could not be revoked (\(error)): what it makes still comes relayed"
        }
        do {
            try await dropPeerConnections()
        } catch {
            note("forgotten", "could not cut live connections at once (\(error)); its messages are refused")
        }
        note(
            "forgotten",
            "forgot \(peer.name) (\(peer.fingerprint)); its key is refused from now on" + revocation
                + (told ? "; it was told" : "; it is told at its next sync"), device: other)
        publish("device.forgotten", DeviceForgottenEvent(device: other, name: peer.name))
        return try JSONValue(reply: DeviceForgotten(forgotten: other, name: peer.name, told: told))
    }

    /// Sends `command` to a paired device's pairing socket, over CURVE with its pinned key.
    /// - Returns: its answer, or `nil` when it is not heard or did not answer within 2 s.
    func tell(_ peer: SyncDatabase.Peer, _ command: String) async -> JSONValue? {
        guard let endpoint = heard[peer.device]?.pairingEndpoint else { return nil }
        let link = CommandClient(
            context: context, endpoint: endpoint, timeout: .seconds(2), attempts: 1, curve: (keyPair, peer.key),
            logger: logger)
        let answer = try? await link.request(command, args: ["device": .string(device), "name": .string(name)])
        await link.close()
        return answer
    }

    /// Asks a paired device that did not answer a sync whether it still has this one paired.
    /// One that forgot it says so (the answer comes over CURVE from its pinned key: nobody else
    /// can give it), and it is forgotten here too, shown as removed by it.
    /// - Returns: `false` when it forgot this device, else `nil` (paired, or no answer).
    func askStillPaired(_ peer: SyncDatabase.Peer) async -> Bool? {
        guard let answer = try? await tell(peer, "pair.status")?.decode(PairingMessage.Status.self),
            answer.forgotten == true
        else { return nil }
        await removedThere(peer)
        return false
    }

    /// `peer` forgot this device: forgotten here too (its key refused, syncs with it stopped),
    /// and shown as removed by it; a new pairing brings it back.
    func removedThere(_ peer: SyncDatabase.Peer) async {
        guard paired.peer(device: peer.device) != nil else { return }
        paired.remove(device: peer.device)
        do {
            try await database.forget(peer.device, at: Date(), removedBy: peer.name)
        } catch {
            logger.error("hearth-sync: cannot record that \(peer.name) removed this device: \(error)")
        }
        running.removeValue(forKey: peer.device)?.cancel()
        try? await dropPeerConnections()
        note(
            "forgotten", "\(peer.name) removed this device; forgotten here too (pair again to sync)",
            device: peer.device)
        publish("device.forgotten", DeviceForgottenEvent(device: peer.device, name: peer.name, removedBy: peer.name))
    }

    /// `hearth sync now [DEVICE]`: syncs with one paired device, or every paired device heard,
    /// and waits for the results.
    private func syncNow(_ query: String?, progress token: String?) async throws -> JSONValue {
        let board = progress
        defer { board.finish(token) }
        let live = paired.all
        var targets: [(SyncDatabase.Peer, String)] = []
        if let query {
            let other = try DeviceQuery.resolve(query, among: live.map { ($0.device, $0.name) }, what: "paired device")
            let peer = live.first { $0.device == other }!
            guard let endpoint = heard[other]?.endpoint ?? peer.endpoint else {
                throw CommandError(code: "not_heard", message: "\(peer.name) is not heard on this network now")
            }
            targets = [(peer, endpoint)]
        } else {
            targets = live.compactMap { peer in heard[peer.device].map { (peer, $0.endpoint) } }
        }
        var tasks: [Task<SyncDatabase.Entry, Never>] = []
        for (peer, endpoint) in targets {
            // A sync already running may have exchanged vectors before the latest edits: this
            // one waits for it and then syncs afresh.
            if let earlier = running[peer.device] { _ = await earlier.value }
            lastSync[peer.device] = now()
            let part = peer.device
            tasks.append(
                startSync(peer, endpoint: endpoint, reason: "requested") { done, total in
                    board.report(token, part: part, done: done, total: total, unit: "operations")
                })
        }
        var entries: [SyncEntryView] = []
        for task in tasks { entries.append(Self.view(await task.value)) }
        return try JSONValue(reply: SyncNowReply(syncs: entries))
    }

    private func log(_ arguments: SyncCommands.Log) async throws -> JSONValue {
        var device: String?
        if let query = arguments.device {
            let known = try await database.peers()
            device = try DeviceQuery.resolve(query, among: known.map { ($0.device, $0.name) }, what: "paired device")
        }
        var since: Date?
        if let text = arguments.since {
            guard let date = Timestamp.parse(text) else {
                throw CommandError.invalidArgument("since", "must be a time such as 2026-11-23T09:00:00Z")
            }
            since = date
        }
        let limit = arguments.limit ?? 100
        guard (1...10_000).contains(limit) else { throw CommandError.invalidArgument("limit", "must be 1–10000") }
        let entries = try await database.entries(device: device, since: since, limit: Int(limit))
        return try JSONValue(reply: SyncLogReply(entries: entries.map(Self.view)))
    }

    private func diag() -> SyncDiag {
        SyncDiag(
            device: device, name: name, fingerprint: Pairing.fingerprint(keyPair.publicKey),
            ports: .init(sync: ports.replication, pairing: ports.pairing), heard: nearby(), refusals: refusals,
            refusedOperations: refusedOperations,
            inProgress: running.keys.sorted().map { paired.peer(device: $0)?.name ?? $0 },
            pairings: pairings.values.map(pendingView), lines: diagnostics)
    }

    static func view(_ entry: SyncDatabase.Entry) -> SyncEntryView {
        SyncEntryView(
            at: Timestamp.format(entry.at), peer: PeerRef(device: entry.peer, name: entry.peerName),
            outcome: entry.outcome.rawValue, received: entry.received, sent: entry.sent, conflicts: entry.conflicts,
            resolution: entry.resolution, bytes: entry.bytes, durationMs: entry.duration.milliseconds,
            detail: entry.detail)
    }
}
