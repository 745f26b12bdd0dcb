import Foundation
import HearthBus
import HearthCore
import HearthPairing
import HearthTrust

/// Pairing by numeric comparison (`PairingSession`): this device's side of each attempt, and the
/// messages on the pairing socket, which any key may reach but which only carries `pair.*`.
extension SyncEngine {
    /// How many attempts may be open at once (each holds a little state for two minutes).
    static let pendingLimit = 8
    /// Pairing popups raised a minute: at most this many for the requests of one address, and
    /// `pairingPopupsPerMinute` in all, so a stranger looping requests cannot flood the screen.
    static let pairingPopupsPerAddress = 2
    static let pairingPopupsPerMinute = 6

    // MARK: - Asking another device

    /// `hearth device pair DEVICE`: asks a heard device to pair and returns once both devices
    /// show the code; a person on each side then compares and confirms.
    func pair(with query: String) async throws -> JSONValue {
        let target = try resolveHeard(query)
        let other = target.announcement.device
        await refreshLocalName()
        if let peer = paired.peer(device: other), peer.key == target.announcement.key {
            throw CommandError(code: "already_paired", message: "\(peer.name) is already paired with this device")
        }
        let (session, _) = PairingSession.initiate(
            localKey: keyPair.publicKey, remoteKey: target.announcement.key, now: now())
        pairings[other] = Pending(
            session: session, device: other, name: target.announcement.name, key: target.announcement.key,
            started: Date())
        note("pairing", "asked \(target.announcement.name) to pair", device: other)
        do {
            let signingKey = try await signingKeyHere()
            let hello = PairingMessage.Hello(device: device, name: name, signingKey: signingKey)
            let answer = try await sendPairing(
                "pair.request", try JSONValue(encoding: hello).objectValue ?? [:], to: other
            ).decode(PairingMessage.Hello.self)
            guard let commitment = answer.commit.flatMap(Hex.bytes) else {
                throw CommandError(code: "pairing_failed", message: "\(target.announcement.name) sent no commitment")
            }
            guard let theirs = answer.signingKey, SigningPublicKey(text: theirs) != nil else {
                throw CommandError(
                    code: "pairing_failed",
                    message:
                        "\(target.announcement.name) sent no signing key: it runs a Hearth from before signed operations; update it"
                )
            }
            pairings[other]?.signingKey = theirs
            guard let reveal = try await advance(other, with: .commit(commitment)), case .reveal(let nonce) = reveal
            else {
                throw CommandError(code: "pairing_failed", message: "the pairing ended")
            }
            let revealed = try await sendPairing("pair.reveal", ["nonce": .string(Hex.text(nonce))], to: other)
                .decode(PairingMessage.Reveal.self)
            guard let theirs = revealed.nonce.flatMap(Hex.bytes) else {
                throw CommandError(code: "pairing_failed", message: "\(target.announcement.name) sent no nonce")
            }
            _ = try await advance(other, with: .reveal(theirs))
        } catch {
            end(other, reason: "\(error)", tellOther: true)
            throw error
        }
        guard let pending = pairings[other], pending.session.code != nil else {
            throw CommandError(code: "pairing_failed", message: "the pairing ended before both devices had the code")
        }
        return try JSONValue(reply: pendingView(pending))
    }
    /// Feeds the other device's message to the attempt.
    /// - Returns: what to send back.
    /// - Throws: when the attempt failed on it.
    func advance(
        _ other: String, with message: PairingSession.Message
    ) async throws
        -> PairingSession.Message?
    {
        guard var pending = pairings[other] else {
            throw CommandError(code: "pairing_failed", message: "no pairing with that device is in progress")
        }
        let reply = pending.session.receive(message, now: now())
        pairings[other] = pending
        if case .failed(let reason) = pending.session.state {
            end(other, reason: reason, tellOther: false)
            throw CommandError(code: "pairing_failed", message: reason)
        }
        if case .paired = pending.session.state { try await complete(other, startSync: true) }
        return reply
    }

    // MARK: - People confirming or rejecting here

    /// `hearth device confirm DEVICE --code N [--name NAME]` or a popup's Confirm button (no
    /// code: the person compared by eye). A wrong code ends the attempt on both devices.
    func confirm(_ query: String, code: PairingCode?, name given: String?) async throws -> JSONValue {
        let other = try resolvePending(query)
        guard var pending = pairings[other] else { throw CommandError.invalidArgument("device", "no pairing with it") }
        if let given { pending.name = given }
        let message = pending.session.confirm(typed: code, now: now())
        pairings[other] = pending
        if case .abort(let reason)? = message {
            end(other, reason: reason, tellOther: true)
            throw CommandError.invalidArgument(code == nil ? "device" : "code", reason)
        }
        // Confirmed there already: paired now. The key is pinned before the other device hears
        // it, since that device's first sync starts the moment it does (the other order had its
        // handshake refused and its first request lost: a 10 s wait in 2 of 5 bench runs).
        if case .paired = pending.session.state {
            guard let peer = try await complete(other, startSync: false) else {
                return try JSONValue(reply: PairingConfirmed(device: other, name: pending.name))
            }
            _ = try? await sendPairing("pair.confirm", [:], to: other, key: pending.key, name: pending.name)
            // The other side has pinned this device's key once it answered: the first sync now
            // meets no refusal (started before, its first request waited out a 10 s timeout).
            if pending.session.role == .initiator, let seen = heard[other] {
                _ = startSync(peer, endpoint: seen.endpoint, reason: "first")
            }
            return try JSONValue(reply: PairingConfirmed(device: other, name: pending.name))
        }
        _ = try await sendPairing("pair.confirm", [:], to: other, key: pending.key, name: pending.name)
        guard let current = pairings[other] else {
            // The other side's confirmation completed it while this one was on its way.
            return try JSONValue(reply: PairingConfirmed(device: other, name: pending.name))
        }
        return try JSONValue(reply: PairingConfirmed(waiting: pendingView(current)))
    }

    /// `hearth device reject DEVICE` or a popup's Reject button.
    func reject(_ query: String) -> PairingRejected {
        guard let other = try? resolvePending(query), var pending = pairings[other] else {
            return PairingRejected(rejected: false)
        }
        let message = pending.session.reject(now: now())
        pairings[other] = pending
        end(other, reason: messageReason(message) ?? "rejected", tellOther: true)
        return PairingRejected(rejected: true, device: other)
    }

    // MARK: - Endings

    /// Both people confirmed: the device's keys are pinned (its signing key in the store, which
    /// then vouches for it to the other devices; its CURVE key here) and it is synced with from
    /// now on. With `startSync`, the asking device makes the first sync at once (when this side
    /// is the last to hear of the pairing; otherwise the caller starts it once the other side
    /// has pinned this one's key).
    /// - Returns: the new peer, or `nil` when no attempt was in progress.
    @discardableResult
    func complete(_ other: String, startSync: Bool) async throws -> SyncDatabase.Peer? {
        guard let pending = pairings.removeValue(forKey: other) else { return nil }
        let peer = SyncDatabase.Peer(
            device: other, name: pending.name, key: pending.key, fingerprint: Pairing.fingerprint(pending.key),
            pairedAt: Date(), forgottenAt: nil, lastSyncAt: nil, endpoint: heard[other]?.endpoint)
        // Durable first: a pairing this device would forget at its next start is no pairing.
        do {
            guard let signingKey = pending.signingKey else {
                throw CommandError(code: "pairing_failed", message: "no signing key")
            }
            _ = try await store.send(DeviceCommands.Trust(device: other, key: signingKey, via: "pairing"))
            try await database.pair(device: other, name: pending.name, key: pending.key, at: peer.pairedAt)
        } catch {
            let reason = "cannot record the pairing: \(error)"
            note("pairing", "pairing with \(pending.name) ended: \(reason)", device: other)
            publish("device.pairing.ended", PairingEndedEvent(device: other, name: pending.name, reason: reason))
            throw CommandError(code: "pairing_failed", message: reason)
        }
        paired.add(peer)
        note("paired", "paired with \(pending.name) (\(peer.fingerprint))", device: other)
        publish("device.paired", PairingEndedEvent(device: other, name: pending.name, fingerprint: peer.fingerprint))
        // The asking device makes the first sync at once; the asked one counts the interval from
        // now, so the two do not both start one.
        lastSync[other] = now()
        if startSync, pending.session.role == .initiator, let seen = heard[other] {
            _ = self.startSync(peer, endpoint: seen.endpoint, reason: "first")
        }
        return peer
    }

    /// Ends an attempt here (and tells the other side, best effort).
    func end(_ other: String, reason: String, tellOther: Bool) {
        guard let pending = pairings.removeValue(forKey: other) else { return }
        note("pairing", "pairing with \(pending.name) ended: \(reason)", device: other)
        publish("device.pairing.ended", PairingEndedEvent(device: other, name: pending.name, reason: reason))
        guard tellOther, let endpoint = heard[other]?.pairingEndpoint else { return }
        let (context, keyPair) = (context, keyPair)
        Task {
            let link = CommandClient(
                context: context, endpoint: endpoint, timeout: .seconds(2), attempts: 1, curve: (keyPair, pending.key))
            _ = try? await link.request("pair.abort", args: ["reason": .string(reason)])
            await link.close()
        }
    }

    /// Ends attempts past their two minutes.
    func expirePairings() {
        for (other, var pending) in pairings {
            guard let message = pending.session.expire(now: now()) else { continue }
            pairings[other] = pending
            end(other, reason: messageReason(message) ?? "expired", tellOther: true)
        }
    }

    private func messageReason(_ message: PairingSession.Message?) -> String? {
        if case .abort(let reason)? = message { return reason }
        return nil
    }

    // MARK: - Helpers

    /// Sends a pairing message to the other device's pairing socket.
    private func sendPairing(
        _ command: String, _ arguments: [String: JSONValue], to other: String
    ) async throws -> JSONValue {
        guard let pending = pairings[other] else {
            throw CommandError(code: "pairing_failed", message: "no pairing with that device is in progress")
        }
        return try await sendPairing(command, arguments, to: other, key: pending.key, name: pending.name)
    }

    /// Sends a pairing message to `other`, whose key is `key`.
    private func sendPairing(
        _ command: String, _ arguments: [String: JSONValue], to other: String, key: String, name: String
    ) async throws -> JSONValue {
        guard let endpoint = heard[other]?.pairingEndpoint else {
            throw CommandError(code: "not_heard", message: "\(name) is not heard on this network now")
        }
        let link = CommandClient(
            context: context, endpoint: endpoint, timeout: .seconds(3), attempts: 2, curve: (keyPair, key),
            logger: logger)
        defer { Task { await link.close() } }
        do {
            return try await link.request(command, args: arguments)
        } catch let error as CommandClientError {
            if case .refused(let refusal) = error {
                throw CommandError(code: refusal.code, message: "\(name): \(refusal.message)")
            }
            throw CommandError(code: "unreachable", message: "\(name) did not answer: \(error)")
        }
    }

    func pendingView(_ pending: Pending) -> PairingView {
        let left = max(0, (PairingSession.lifetime - (now() - pending.session.started)).components.seconds)
        return PairingView(
            device: pending.device, name: pending.name, fingerprint: Pairing.fingerprint(pending.key),
            role: pending.session.role.rawValue, code: pending.session.code?.description,
            confirmedHere: pending.session.confirmedHere, confirmedThere: pending.session.confirmedThere,
            expiresInS: left)
    }

    /// A heard device by id, id prefix or name.
    func resolveHeard(_ query: String) throws -> Heard {
        let other = try DeviceQuery.resolve(
            query, among: heard.values.map { ($0.announcement.device, $0.announcement.name) }, what: "heard device")
        return heard[other]!
    }

    /// A pending attempt's device by id, id prefix or name.
    func resolvePending(_ query: String) throws -> String {
        try DeviceQuery.resolve(query, among: pairings.values.map { ($0.device, $0.name) }, what: "pairing request")
    }
}

/// Finding a device a person named: its id, a unique id prefix (4 characters at least), or its
/// name (any case).
enum DeviceQuery {
    static func resolve(_ query: String, among devices: [(id: String, name: String)], what: String) throws -> String {
        let text = query.trimmingCharacters(in: .whitespaces)
        if let exact = devices.first(where: { $0.id == text }) { return exact.id }
        let named = devices.filter { $0.name.lowercased() == text.lowercased() }
        if named.count == 1 { return named[0].id }
        let prefixed = text.count >= 4 ? devices.filter { $0.id.hasPrefix(text.lowercased()) } : []
        if prefixed.count == 1 { return prefixed[0].id }
        if named.count + prefixed.count > 1 {
            throw CommandError.invalidArgument(
                "device", "'\(query)' matches more than one \(what); give more of its id")
        }
        let known = devices.map { "\($0.name) (\($0.id.prefix(8)))" }.sorted().joined(separator: ", ")
        throw CommandError.invalidArgument(
            "device", "no \(what) '\(query)'" + (known.isEmpty ? "" : "; known: \(known)"))
    }
}
