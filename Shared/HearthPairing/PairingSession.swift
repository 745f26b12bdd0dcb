import HearthCore

/// One attempt to pair this device with another, from either side: the messages of the
/// commit-then-reveal exchange (`Pairing`), the code both sides show, and the two confirmations
/// a pairing needs. Pure: the sync service carries the messages and the clock is passed in.
///
///     initiator                         responder
///     request {key}          ─────────▶  makes Nr, commits
///                            ◀─────────  commit {H(Ki, Kr, Nr)}
///     reveal {Ni}            ─────────▶  code(Ki, Kr, Ni, Nr)
///     checks H, code(…)      ◀─────────  reveal {Nr}
///     a person compares the codes and confirms on each side (or rejects)
///     confirm                ◀────────▶  confirm          → paired once both confirmed
///
/// Anything out of order, a revealed nonce that does not match its commitment, a wrong code
/// typed, a rejection or two minutes passing ends the attempt for good: a new one starts over
/// with fresh nonces.
public struct PairingSession: Sendable {
    public enum Role: String, Sendable {
        case initiator, responder
    }

    /// A message to the other device.
    public enum Message: Equatable, Sendable {
        case request(key: String)
        case commit([UInt8])
        case reveal([UInt8])
        case confirm
        /// The attempt is over on this side, with why.
        case abort(String)
    }

    public enum State: Equatable, Sendable {
        /// Waiting for the other side's next message.
        case exchanging
        /// Both sides hold the code; waiting for the people to compare and confirm.
        case comparing(PairingCode)
        case paired(PairingCode)
        case failed(String)
    }

    /// How long an attempt may take, start to both confirmations.
    public static let lifetime: Duration = .seconds(120)

    public let role: Role
    public let localKey: String
    public private(set) var remoteKey: String
    public private(set) var state: State = .exchanging
    public let started: ContinuousClock.Instant
    public private(set) var confirmedHere = false
    public private(set) var confirmedThere = false

    private let nonce: [UInt8]
    private var commitment: [UInt8]?

    /// Starts an attempt as the initiator: send the returned request to the other device.
    public static func initiate(
        localKey: String, remoteKey: String, now: ContinuousClock.Instant, nonce: [UInt8] = Pairing.nonce()
    ) -> (PairingSession, Message) {
        let session = PairingSession(
            role: .initiator, localKey: localKey, remoteKey: remoteKey, started: now, nonce: nonce)
        return (session, .request(key: localKey))
    }

    /// Answers a request as the responder: send the returned commitment back.
    public static func respond(
        to requesterKey: String, localKey: String, now: ContinuousClock.Instant, nonce: [UInt8] = Pairing.nonce()
    ) -> (PairingSession, Message) {
        var session = PairingSession(
            role: .responder, localKey: localKey, remoteKey: requesterKey, started: now, nonce: nonce)
        let commitment = Pairing.commitment(initiatorKey: requesterKey, responderKey: localKey, responderNonce: nonce)
        session.commitment = commitment
        return (session, .commit(commitment))
    }

    private init(role: Role, localKey: String, remoteKey: String, started: ContinuousClock.Instant, nonce: [UInt8]) {
        self.role = role
        self.localKey = localKey
        self.remoteKey = remoteKey
        self.started = started
        self.nonce = nonce
    }

    /// The code, once both sides hold it.
    public var code: PairingCode? {
        switch state {
        case .comparing(let code), .paired(let code): code
        default: nil
        }
    }

    /// Takes the other device's message.
    /// - Returns: what to send back, if anything.
    public mutating func receive(_ message: Message, now: ContinuousClock.Instant) -> Message? {
        if let expired = expire(now: now) { return expired }
        switch (role, state, message) {
        case (_, .failed, _), (_, .paired, _):
            return nil
        case (_, _, .abort(let reason)):
            state = .failed("the other device ended the pairing: \(reason)")
            return nil
        case (.initiator, .exchanging, .commit(let commitment)) where self.commitment == nil:
            self.commitment = commitment
            return .reveal(nonce)
        case (.initiator, .exchanging, .reveal(let theirs)) where commitment != nil:
            guard
                Pairing.verify(
                    commitment: commitment!, initiatorKey: localKey, responderKey: remoteKey, responderNonce: theirs)
            else {
                return fail("the other device's nonce does not match its commitment (a device in the middle?)")
            }
            state = .comparing(
                Pairing.code(
                    initiatorKey: localKey, responderKey: remoteKey, initiatorNonce: nonce, responderNonce: theirs))
            return nil
        case (.responder, .exchanging, .reveal(let theirs)):
            guard theirs.count == Pairing.nonceBytes else { return fail("the other device's nonce is malformed") }
            state = .comparing(
                Pairing.code(
                    initiatorKey: remoteKey, responderKey: localKey, initiatorNonce: theirs, responderNonce: nonce))
            return .reveal(nonce)
        case (_, .comparing(let code), .confirm):
            confirmedThere = true
            if confirmedHere { state = .paired(code) }
            return nil
        default:
            return fail("an unexpected \(Self.name(message)) while \(Self.name(state))")
        }
    }

    /// A person here confirms, having compared the codes; `typed` is the code they typed, if
    /// they typed one (a popup's Confirm button types none: the person compared by eye).
    /// - Returns: the message to send (`confirm`, or `abort` for a wrong code or a late confirm).
    public mutating func confirm(typed: PairingCode? = nil, now: ContinuousClock.Instant) -> Message? {
        if let expired = expire(now: now) { return expired }
        guard case .comparing(let code) = state else {
            return state == .exchanging ? fail("confirmed before both devices showed the code") : nil
        }
        if let typed, typed != code { return fail("the code typed, \(typed), is not this pairing's code") }
        confirmedHere = true
        if confirmedThere { state = .paired(code) }
        return .confirm
    }

    /// A person here rejects the pairing.
    public mutating func reject(now: ContinuousClock.Instant) -> Message? {
        if case .failed = state { return nil }
        return fail("rejected on \(role == .initiator ? "the initiating" : "the asked") device")
    }

    /// Ends the attempt when its two minutes are up.
    /// - Returns: the abort to send, the first time it expires.
    public mutating func expire(now: ContinuousClock.Instant) -> Message? {
        switch state {
        case .failed, .paired: return nil
        default:
            guard now - started > Self.lifetime else { return nil }
            return fail("not confirmed on both devices within 2 minutes")
        }
    }

    private mutating func fail(_ reason: String) -> Message {
        state = .failed(reason)
        return .abort(reason)
    }

    private static func name(_ message: Message) -> String {
        switch message {
        case .request: "request"
        case .commit: "commitment"
        case .reveal: "nonce"
        case .confirm: "confirmation"
        case .abort: "abort"
        }
    }

    private static func name(_ state: State) -> String {
        switch state {
        case .exchanging: "exchanging nonces"
        case .comparing: "comparing codes"
        case .paired: "paired"
        case .failed: "failed"
        }
    }
}
