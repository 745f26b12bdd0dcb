/// Devices and sync: the store's `device.list`, `hearth-sync`'s replies on `sync.cmd`, and the
/// `sync.*` and `device.*` events the notifier shows. Encoded by the service that owns them
/// (replies with absent fields as `null`), decoded by the command line, the page and the
/// notifier.

/// A device named in an event or a reply: its id and its name here.
public struct PeerRef: Codable, Sendable, Equatable {
    public let device: String
    public let name: String

    public init(device: String, name: String) { (self.device, self.name) = (device, name) }
}

/// `device.list` (the store's): every device this household's operations name.
public struct DeviceList: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public let id: String
        public let name: String
        /// This device.
        public let local: Bool
        public let lastSyncAt: String?
        public let firstSeenAt: String
        /// The fingerprint of the key its operations are verified with, and the device that
        /// vouched for that key (itself for this one).
        public let signingKey: String?
        public let vouchedBy: String?

        public init(
            id: String, name: String, local: Bool, lastSyncAt: String?, firstSeenAt: String, signingKey: String?,
            vouchedBy: String?
        ) {
            (self.id, self.name, self.local, self.lastSyncAt) = (id, name, local, lastSyncAt)
            (self.firstSeenAt, self.signingKey, self.vouchedBy) = (firstSeenAt, signingKey, vouchedBy)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, local
            case lastSyncAt = "last_sync_at"
            case firstSeenAt = "first_seen_at"
            case signingKey = "signing_key"
            case vouchedBy = "vouched_by"
        }
    }

    public let devices: [Device]

    public init(devices: [Device]) { self.devices = devices }
}

/// `device.rename` (the store's).
public struct DeviceRenamed: Codable, Sendable, Equatable {
    public let id: String
    public let name: String

    public init(id: String, name: String) { (self.id, self.name) = (id, name) }
}

/// A device heard on this network now (`device.nearby`, `sync.diag`).
public struct NearbyDevice: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let fingerprint: String
    public let host: String
    /// Paired with the key it announces.
    public let paired: Bool
    public let lastHeard: String

    public init(id: String, name: String, fingerprint: String, host: String, paired: Bool, lastHeard: String) {
        (self.id, self.name, self.fingerprint, self.host, self.paired, self.lastHeard) = (
            id, name, fingerprint, host, paired, lastHeard
        )
    }

    enum CodingKeys: String, CodingKey {
        case id, name, fingerprint, host, paired
        case lastHeard = "last_heard"
    }
}

/// `device.nearby`.
public struct NearbyList: Codable, Sendable, Equatable {
    public let devices: [NearbyDevice]

    public init(devices: [NearbyDevice]) { self.devices = devices }
}

/// `device.paired`: the devices paired here, forgotten ones included.
public struct PairedList: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public let id: String
        public let name: String
        public let fingerprint: String
        public let pairedAt: String
        public let lastSyncAt: String?
        public let forgotten: Bool
        /// Heard on this network now.
        public let heard: Bool
        /// The device that removed this one (it forgot this device first).
        public let removedBy: String?

        public init(
            id: String, name: String, fingerprint: String, pairedAt: String, lastSyncAt: String?, forgotten: Bool,
            heard: Bool, removedBy: String?
        ) {
            (self.id, self.name, self.fingerprint, self.pairedAt) = (id, name, fingerprint, pairedAt)
            (self.lastSyncAt, self.forgotten, self.heard, self.removedBy) = (lastSyncAt, forgotten, heard, removedBy)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, fingerprint, forgotten, heard
            case pairedAt = "paired_at"
            case lastSyncAt = "last_sync_at"
            case removedBy = "removed_by"
        }
    }

    public let devices: [Device]

    public init(devices: [Device]) { self.devices = devices }
}

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

/// `device.forget`: the device forgotten, and whether it was told.
public struct DeviceForgotten: Codable, Sendable, Equatable {
    public let forgotten: String
    public let name: String
    public let told: Bool

    public init(forgotten: String, name: String, told: Bool) {
        (self.forgotten, self.name, self.told) = (forgotten, name, told)
    }
}

/// One sync as the log keeps it (`sync.now`, `sync.log`).
public struct SyncEntryView: Codable, Sendable, Equatable {
    public let at: String
    public let peer: PeerRef
    /// `completed` or `failed`.
    public let outcome: String
    public let received: Int
    public let sent: Int
    public let conflicts: Int
    public let resolution: String
    public let bytes: Int
    public let durationMs: Int64
    public let detail: String

    public init(
        at: String, peer: PeerRef, outcome: String, received: Int, sent: Int, conflicts: Int, resolution: String,
        bytes: Int, durationMs: Int64, detail: String
    ) {
        (self.at, self.peer, self.outcome, self.received, self.sent) = (at, peer, outcome, received, sent)
        (self.conflicts, self.resolution, self.bytes, self.durationMs, self.detail) = (
            conflicts, resolution, bytes, durationMs, detail
        )
    }

    enum CodingKeys: String, CodingKey {
        case at, peer, outcome, received, sent, conflicts, resolution, bytes, detail
        case durationMs = "duration_ms"
    }
}

/// `sync.now`: the syncs it ran, each as logged.
public struct SyncNowReply: Codable, Sendable, Equatable {
    public let syncs: [SyncEntryView]

    public init(syncs: [SyncEntryView]) { self.syncs = syncs }
}

/// `sync.log`: the latest syncs, newest first.
public struct SyncLogReply: Codable, Sendable, Equatable {
    public let entries: [SyncEntryView]

    public init(entries: [SyncEntryView]) { self.entries = entries }
}

/// A diagnostics line (`sync.diag`'s `lines`, and the `sync.diag` event).
public struct SyncDiagLine: Codable, Sendable, Equatable {
    public let at: String
    /// `completed`, `failed`, `pairing`, `refused`, `clone`….
    public let kind: String
    public let text: String
    public let device: String?

    public init(at: String, kind: String, text: String, device: String?) {
        (self.at, self.kind, self.text, self.device) = (at, kind, text, device)
    }
}

/// `sync.diag`: this device's identity and ports, what it hears, refusals, syncs running,
/// pairings, and the latest diagnostics lines.
public struct SyncDiag: Codable, Sendable, Equatable {
    public struct Ports: Codable, Sendable, Equatable {
        public let sync: Int
        public let pairing: Int

        public init(sync: Int, pairing: Int) { (self.sync, self.pairing) = (sync, pairing) }
    }

    public let device: String
    public let name: String
    public let fingerprint: String
    public let ports: Ports
    public let heard: [NearbyDevice]
    /// Connections refused (unpaired keys), and operations refused (forged, unverifiable or
    /// against the rules).
    public let refusals: Int
    public let refusedOperations: Int
    public let inProgress: [String]
    public let pairings: [PairingView]
    public let lines: [SyncDiagLine]

    public init(
        device: String, name: String, fingerprint: String, ports: Ports, heard: [NearbyDevice], refusals: Int,
        refusedOperations: Int, inProgress: [String], pairings: [PairingView], lines: [SyncDiagLine]
    ) {
        (self.device, self.name, self.fingerprint, self.ports, self.heard) = (device, name, fingerprint, ports, heard)
        (self.refusals, self.refusedOperations, self.inProgress) = (refusals, refusedOperations, inProgress)
        (self.pairings, self.lines) = (pairings, lines)
    }

    enum CodingKeys: String, CodingKey {
        case device, name, fingerprint, ports, heard, refusals, pairings, lines
        case refusedOperations = "refused_operations"
        case inProgress = "in_progress"
    }
}

/// `sync.completed`: a sync that went through, with what it moved.
public struct SyncCompletedEvent: Codable, Sendable, Equatable {
    public let peer: PeerRef
    public let received: Int
    public let sent: Int
    public let conflicts: Int
    public let bytes: Int
    public let durationMs: Int64
    public let detail: String

    public init(
        peer: PeerRef, received: Int, sent: Int, conflicts: Int, bytes: Int, durationMs: Int64, detail: String
    ) {
        (self.peer, self.received, self.sent, self.conflicts) = (peer, received, sent, conflicts)
        (self.bytes, self.durationMs, self.detail) = (bytes, durationMs, detail)
    }

    enum CodingKeys: String, CodingKey {
        case peer, received, sent, conflicts, bytes, detail
        case durationMs = "duration_ms"
    }
}

/// `sync.failed`: a sync that did not, and why.
public struct SyncFailedEvent: Codable, Sendable, Equatable {
    public let peer: PeerRef
    public let reason: String

    public init(peer: PeerRef, reason: String) { (self.peer, self.reason) = (peer, reason) }
}

/// `sync.changed`: the year planner's cards a sync changed here, each as read before and after.
public struct CardsChangedEvent: Codable, Sendable, Equatable {
    public struct Change: Codable, Sendable, Equatable {
        public let year: Int
        public let month: Int
        /// The device that wrote the card last.
        public let by: PeerRef
        /// The card's title before and after (`nil`: empty).
        public let before: String?
        public let after: String?

        public init(year: Int, month: Int, by: PeerRef, before: String?, after: String?) {
            (self.year, self.month, self.by, self.before, self.after) = (year, month, by, before, after)
        }

        /// `before` and `after` are written as `null` when the card was or is empty.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(year, forKey: .year)
            try container.encode(month, forKey: .month)
            try container.encode(by, forKey: .by)
            try container.encode(before, forKey: .before)
            try container.encode(after, forKey: .after)
        }
    }

    public let peer: PeerRef
    public let changes: [Change]

    public init(peer: PeerRef, changes: [Change]) { (self.peer, self.changes) = (peer, changes) }
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

/// `device.forgotten`: a paired device forgotten here (by this device, or since it removed this one).
public struct DeviceForgottenEvent: Codable, Sendable, Equatable {
    public let device: String
    public let name: String
    @OmittedWhenNil public var removedBy: String?

    public init(device: String, name: String, removedBy: String? = nil) {
        (self.device, self.name, self.removedBy) = (device, name, removedBy)
    }

    enum CodingKeys: String, CodingKey {
        case device, name
        case removedBy = "removed_by"
    }
}

/// `device.clone`: another device announces this device's id (a copied home).
public struct DeviceCloneEvent: Codable, Sendable, Equatable {
    public let host: String
    public let fingerprint: String
    public let detail: String

    public init(host: String, fingerprint: String, detail: String) {
        (self.host, self.fingerprint, self.detail) = (host, fingerprint, detail)
    }
}

/// The arguments of `hearth-sync`'s commands that name a device (`device.pair`, `device.confirm`,
/// `device.reject`, `device.forget`, `sync.now`, `sync.log`), with the others each takes.
public struct SyncCommandArguments: Codable, Sendable, Equatable {
    /// A device: its id, an id prefix or its name.
    public var device: String?
    /// `device.confirm`: the code this device shows, and what to call the other.
    public var code: String?
    public var name: String?
    /// `sync.log`: since when (ISO 8601) and how many lines.
    public var since: String?
    public var limit: Int?

    public init(
        device: String? = nil, code: String? = nil, name: String? = nil, since: String? = nil, limit: Int? = nil
    ) {
        (self.device, self.code, self.name, self.since, self.limit) = (device, code, name, since, limit)
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
