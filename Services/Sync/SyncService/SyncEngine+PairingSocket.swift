import Foundation
import HearthBus
import HearthCore
import HearthPairing
import HearthTrust

/// The pairing socket: what another device asks of this one over CURVE (a request, its nonce,
/// a confirmation, whether it is still paired), each checked against the attempt its key holds.
extension SyncEngine {
    // MARK: - The pairing socket

    /// A message from another device on the pairing socket (its key proven by CURVE).
    func fromPairing(_ request: CommandRequest) async throws -> JSONValue {
        guard let key = request.peerKey else { throw CommandError(code: "unauthenticated", message: "no key") }
        switch request.command {
        case "pair.request":
            return try await pairingRequested(request, key: key)
        case "pair.reveal":
            let other = try pendingOf(key)
            guard let nonce = try request.arguments(as: PairingMessage.Reveal.self).nonce.flatMap(Hex.bytes) else {
                throw CommandError.invalidArgument("nonce", "must be hex bytes")
            }
            guard let reply = try await advance(other, with: .reveal(nonce)), case .reveal(let mine) = reply,
                let pending = pairings[other], let code = pending.session.code
            else { throw CommandError(code: "pairing_failed", message: "the pairing ended") }
            guard admitPopup(from: request.peerAddress ?? "") else {
                end(other, reason: "too many pairing requests from this network this minute", tellOther: false)
                throw CommandError(
                    code: "busy", message: "too many pairing requests this minute; try again in a minute")
            }
            note("pairing", "\(pending.name) asks to pair; code \(code)", device: other)
            publish("device.pairing", pendingView(pending))
            return try JSONValue(encoding: PairingMessage.Reveal(nonce: Hex.text(mine)))
        case "pair.confirm":
            let other = try pendingOf(key)
            _ = try await advance(other, with: .confirm)
            return try JSONValue(
                encoding: PairingMessage.Status(paired: pairings[other] == nil && paired.peer(device: other) != nil))
        case "pair.forgotten":
            // A paired device forgot this one and says so over its pinned key.
            guard let peer = paired.peer(forKey: key) else {
                throw CommandError(code: "not_paired", message: "this device is not paired with yours")
            }
            await removedThere(peer)
            return try JSONValue(encoding: PairingMessage.Status(removed: true))
        case "pair.status":
            // Whether the asking key is paired here; `forgotten` when it was and this device
            // forgot it (only that key's holder can ask, so nothing leaks to anyone else).
            if paired.peer(forKey: key) != nil { return try JSONValue(encoding: PairingMessage.Status(paired: true)) }
            let known = try? await database.anyDevice(forKey: key)
            return try JSONValue(encoding: PairingMessage.Status(paired: false, forgotten: known?.forgottenAt != nil))
        case "pair.abort":
            let other = try pendingOf(key)
            let reason = try request.arguments(as: PairingMessage.Abort.self).reason ?? "no reason given"
            _ = try? await advance(other, with: .abort(String(reason.prefix(200))))
            end(other, reason: "the other device ended it", tellOther: false)
            return [:]
        default:
            throw CommandError.unknownCommand(request.command, service: "sync pairing")
        }
    }

    private func pairingRequested(_ request: CommandRequest, key: String) async throws -> JSONValue {
        let hello = try request.arguments(as: PairingMessage.Hello.self)
        let other = hello.device ?? ""
        guard DeviceID.isValid(other), other != device else {
            throw CommandError.invalidArgument("device", "must be another device's id (a lower-case UUID)")
        }
        let theirName: String
        do {
            theirName = try TextRules.required(
                hello.name ?? "", field: "name", maximumLength: Devices.maximumNameLength)
        } catch {
            throw CommandError.invalidArgument(error.field, error.rule)
        }
        guard let signingKey = hello.signingKey, SigningPublicKey(text: signingKey) != nil
        else {
            throw CommandError.invalidArgument(
                "signing_key", "is required: a signing key, 32 bytes in base64 (update Hearth on the asking device)")
        }
        if let peer = paired.peer(device: other), peer.key != key {
            throw CommandError(
                code: "key_mismatch",
                message: "this device knows \(other) by another key: forget it there before pairing it again")
        }
        // One attempt per device, per key and per address: a request never replaces another
        // device's attempt (one naming the asked device's own peer, say), and one key or address
        // cannot hold many.
        let address = request.peerAddress
        if let existing = pairings[other], existing.key != key {
            throw CommandError(code: "busy", message: "a pairing with that device is already in progress")
        }
        if pairings.values.contains(where: {
            $0.device != other && ($0.key == key || (address != nil && $0.address == address))
        }) {
            throw CommandError(code: "busy", message: "a pairing from this device is already in progress")
        }
        if pairings[other] == nil, pairings.count >= Self.pendingLimit {
            // Full: the oldest attempt that another device started and nobody here confirmed
            // goes first. Attempts a person started here are never dropped for a stranger's.
            guard
                let oldest = pairings.values.filter({ $0.session.role == .responder && !$0.session.confirmedHere })
                    .min(by: { $0.started < $1.started })
            else { throw CommandError(code: "busy", message: "too many pairings in progress; try again in 2 minutes") }
            end(oldest.device, reason: "dropped for a newer pairing request", tellOther: true)
        }
        let (session, message) = PairingSession.respond(to: key, localKey: keyPair.publicKey, now: now())
        pairings[other] = Pending(
            session: session, device: other, name: theirName, key: key, started: Date(), signingKey: signingKey,
            address: address)
        guard case .commit(let commitment) = message else { throw CommandError(code: "pairing_failed", message: "") }
        return try JSONValue(
            encoding: PairingMessage.Hello(
                device: device, name: name, signingKey: try await signingKeyHere(), commit: Hex.text(commitment)))
    }

    /// Whether a pairing popup may be raised for a request from `address` now (see
    /// `pairingPopupsPerAddress`); records it if so.
    private func admitPopup(from address: String) -> Bool {
        let instant = now()
        pairingPopups.removeAll { instant - $0.at >= .seconds(60) }
        guard pairingPopups.count < Self.pairingPopupsPerMinute,
            pairingPopups.count(where: { $0.address == address }) < Self.pairingPopupsPerAddress
        else { return false }
        pairingPopups.append((address, instant))
        return true
    }

    /// This device's signing key, from its store.
    /// - Throws: when the store does not answer (a pairing needs it).
    func signingKeyHere() async throws -> String {
        if let ownSigningKey { return ownSigningKey }
        let vector: VersionVectorReply
        do {
            vector = try await store.send(ExchangeCommands.Vector())
        } catch {
            throw CommandError(code: "unavailable", message: "this device's store is not answering: \(error)")
        }
        let key = vector.signingKey
        ownSigningKey = key
        return key
    }

    /// The attempt whose other side holds `key`.
    private func pendingOf(_ key: String) throws -> String {
        guard let pending = pairings.values.first(where: { $0.key == key }) else {
            throw CommandError(code: "no_pairing", message: "no pairing with this device is in progress")
        }
        return pending.device
    }

}
