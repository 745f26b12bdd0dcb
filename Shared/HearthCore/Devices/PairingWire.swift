/// Pairing two devices: the pairings in progress as `hearth-sync` shows them, its replies to
/// confirm and reject, the events the notifier turns into the Confirm/Reject popup, and the
/// messages the two devices exchange over CURVE.

/// A pairing in progress (`device.pairing`, the reply to `device.pair`, the `device.pairing`
/// event that asks for Confirm or Reject).
public struct PairingView: Codable, Sendable, Equatable {
    public let device: String
    public let name: String
    public let fingerprint: String
    /// `initiator` (this device asked) or `responder`.
    public let role: String
    /// The six digits both devices show, once the nonces are exchanged.
    public let code: String?
    public let confirmedHere: Bool
    public let confirmedThere: Bool
    public let expiresInS: Int64

    public init(
        device: String, name: String, fingerprint: String, role: String, code: String?, confirmedHere: Bool,
        confirmedThere: Bool, expiresInS: Int64
    ) {
        (self.device, self.name, self.fingerprint, self.role, self.code) = (device, name, fingerprint, role, code)
        (self.confirmedHere, self.confirmedThere, self.expiresInS) = (confirmedHere, confirmedThere, expiresInS)
    }

    enum CodingKeys: String, CodingKey {
        case device, name, fingerprint, role, code
        case confirmedHere = "confirmed_here"
        case confirmedThere = "confirmed_there"
        case expiresInS = "expires_in_s"
    }
}

/// `device.pairing`: the pairings in progress, oldest first.
public struct PairingList: Codable, Sendable, Equatable {
    public let pairings: [PairingView]

    public init(pairings: [PairingView]) { self.pairings = pairings }
}

/// `device.confirm`: paired now, or confirmed here and waiting for the other device (then the
/// pairing as it stands, its fields beside these).
public struct PairingConfirmed: Codable, Sendable, Equatable {
    public let device: String
    public let name: String
    public let paired: Bool
    public let waiting: PairingView?

    public init(device: String, name: String) {
        (self.device, self.name, self.paired, self.waiting) = (device, name, true, nil)
    }

    public init(waiting: PairingView) {
        (self.device, self.name, self.paired, self.waiting) = (waiting.device, waiting.name, false, waiting)
    }

    enum CodingKeys: String, CodingKey {
        case device, name, paired
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        device = try container.decode(String.self, forKey: .device)
        name = try container.decode(String.self, forKey: .name)
        paired = try container.decode(Bool.self, forKey: .paired)
        waiting = paired ? nil : try PairingView(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try waiting?.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(name, forKey: .name)
        try container.encode(paired, forKey: .paired)
    }
}

/// `device.reject`: whether there was a pairing to refuse.
public struct PairingRejected: Codable, Sendable, Equatable {
    public let rejected: Bool
    @OmittedWhenNil public var device: String?

    public init(rejected: Bool, device: String? = nil) { (self.rejected, self.device) = (rejected, device) }
}

/// `device.paired` and `device.pairing.ended`: a pairing finished, either way.
public struct PairingEndedEvent: Codable, Sendable, Equatable {
    public let device: String
    public let name: String
    /// Paired: the new peer's fingerprint; ended: why.
    @OmittedWhenNil public var fingerprint: String?
    @OmittedWhenNil public var reason: String?

    public init(device: String, name: String, fingerprint: String? = nil, reason: String? = nil) {
        (self.device, self.name, self.fingerprint, self.reason) = (device, name, fingerprint, reason)
    }
}

/// Between two devices pairing, over CURVE: who asks (`pair.request`), what each commits to and
/// reveals, and how an attempt ends. Each side reads what the other sent leniently and says
/// which part was missing, since the other may be of another build.
public enum PairingMessage {
    /// `pair.request`'s arguments, and its answer's identity part: the device, its name and its
    /// signing key (base64); the answer adds the responder's commitment (hex).
    public struct Hello: Codable, Sendable, Equatable {
        public var device: String?
        public var name: String?
        public var signingKey: String?
        public var commit: String?

        public init(device: String?, name: String?, signingKey: String?, commit: String? = nil) {
            (self.device, self.name, self.signingKey, self.commit) = (device, name, signingKey, commit)
        }

        enum CodingKeys: String, CodingKey {
            case device, name, commit
            case signingKey = "signing_key"
        }

        /// Only the fields given (an asking device sends no `commit`).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if let commit { try container.encode(commit, forKey: .commit) }
            if let device { try container.encode(device, forKey: .device) }
            if let name { try container.encode(name, forKey: .name) }
            if let signingKey { try container.encode(signingKey, forKey: .signingKey) }
        }
    }

    /// `pair.reveal`'s argument and answer: a nonce, hex.
    public struct Reveal: Codable, Sendable, Equatable {
        public var nonce: String?

        public init(nonce: String?) { self.nonce = nonce }
    }

    /// `pair.abort`'s argument: why.
    public struct Abort: Codable, Sendable, Equatable {
        public var reason: String?

        public init(reason: String?) { self.reason = reason }
    }

    /// `pair.status`'s answer (and `pair.confirm`'s): whether the asking key is paired here, and
    /// whether it was and this device forgot it.
    public struct Status: Codable, Sendable, Equatable {
        public var paired: Bool?
        @OmittedWhenNil public var forgotten: Bool?
        /// `pair.forgotten`'s answer: this device took note that the other forgot it.
        @OmittedWhenNil public var removed: Bool?

        public init(paired: Bool? = nil, forgotten: Bool? = nil, removed: Bool? = nil) {
            (self.paired, self.forgotten, self.removed) = (paired, forgotten, removed)
        }
    }
}
