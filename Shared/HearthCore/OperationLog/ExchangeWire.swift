/// The operation exchange's replies: the store's `ops.vector` and `ops.import`, and between
/// paired devices `sync.vector` and `sync.import`. Encoded by `hearth-store` and `hearth-sync`
/// (replies with absent fields as `null`), decoded by `hearth-sync` and the command line.

/// An operation held back or dropped on import, and why.
public struct HeldOperation: Codable, Sendable, Equatable {
    public let id: String
    public let reason: String

    public init(id: String, reason: String) { (self.id, self.reason) = (id, reason) }
}

/// `ops.import`: what an import did with the operations it was given.
public struct ImportReport: Codable, Sendable, Equatable {
    /// The device whose key the file named, pinned by this import (`--trust`).
    public struct Pinned: Codable, Sendable, Equatable {
        public let device: String
        public let fingerprint: String

        public init(device: String, fingerprint: String) { (self.device, self.fingerprint) = (device, fingerprint) }
    }

    /// Operations stored, already held, and conflicts they made.
    public let received: Int
    public let alreadyHad: Int
    public let conflicts: Int
    /// Held back until their time is within the clock bound (tried again on each import).
    public let quarantined: [HeldOperation]
    /// Refused: the first few with the field and rule, and how many in all.
    public let refused: [OperationsRefusedEvent.Refusal]
    public let refusedCount: Int
    /// Ids held here with other contents (from before signing): the first few, and how many.
    public let forked: [String]
    public let forkedCount: Int
    /// Dropped (their entity's history would not fold).
    public let dropped: [HeldOperation]
    @OmittedWhenNil public var pinned: Pinned?
    /// With `announce`: what the import changed that a person is told of after a sync.
    @OmittedWhenNil public var announced: [AnnouncedChange]?

    public init(
        received: Int, alreadyHad: Int, conflicts: Int, quarantined: [HeldOperation],
        refused: [OperationsRefusedEvent.Refusal], refusedCount: Int, forked: [String], forkedCount: Int,
        dropped: [HeldOperation], pinned: Pinned? = nil, announced: [AnnouncedChange]? = nil
    ) {
        (self.received, self.alreadyHad, self.conflicts, self.quarantined) = (
            received, alreadyHad, conflicts, quarantined
        )
        (self.refused, self.refusedCount, self.forked, self.forkedCount) = (refused, refusedCount, forked, forkedCount)
        (self.dropped, self.pinned, self.announced) = (dropped, pinned, announced)
    }

    enum CodingKeys: String, CodingKey {
        case received, conflicts, quarantined, refused, forked, dropped, pinned, announced
        case alreadyHad = "already_had"
        case refusedCount = "refused_count"
        case forkedCount = "forked_count"
    }
}

/// What an import changed that a person is told of after a sync ("Mum changed August: Beach day
/// → Beach weekend"): an entity its domain announces (a planner card; `StoreDomain.readable`),
/// as a person read it before the import and after, and who wrote it last.
public struct AnnouncedChange: Codable, Sendable, Equatable {
    public let kind: String
    public let id: String
    /// The device whose operation wrote it last in the import, and its household name.
    public let by: PeerRef
    /// How it read before and after (`nil`: empty).
    public let before: String?
    public let after: String?
    /// That last operation's time, which orders the changes of several imports.
    public let wall: Int64
    public let logical: Int64

    public init(
        kind: String, id: String, by: PeerRef, before: String?, after: String?, wall: Int64, logical: Int64
    ) {
        (self.kind, self.id, self.by, self.before, self.after) = (kind, id, by, before, after)
        (self.wall, self.logical) = (wall, logical)
    }

    /// `before` and `after` are written as `null` when it was or is empty.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(id, forKey: .id)
        try container.encode(by, forKey: .by)
        try container.encode(before, forKey: .before)
        try container.encode(after, forKey: .after)
        try container.encode(wall, forKey: .wall)
        try container.encode(logical, forKey: .logical)
    }
}

/// `ops.vector` (the store's) and `sync.vector` (a paired device's, with its clock): a device's
/// version vector, whether it is restoring from a backup, and its signing key.
public struct VersionVectorReply: Codable, Sendable, Equatable {
    public let device: String
    /// The highest counter held contiguously of each device.
    public let vector: [String: Int64]
    public let restored: Bool
    public let signingKey: String
    /// On `sync.vector`: the answering device's clock (ms since 1970).
    @OmittedWhenNil public var now: Int64?
    /// On `sync.vector`: the answering device reads deflated requests (and answers them deflated),
    /// so the rest of the sync goes deflated. Absent from a device of an earlier version.
    @OmittedWhenNil public var deflate: Bool?

    public init(
        device: String, vector: [String: Int64], restored: Bool, signingKey: String, now: Int64? = nil,
        deflate: Bool? = nil
    ) {
        (self.device, self.vector, self.restored, self.signingKey, self.now, self.deflate) = (
            device, vector, restored, signingKey, now, deflate
        )
    }

    enum CodingKeys: String, CodingKey {
        case device, vector, restored, now, deflate
        case signingKey = "signing_key"
    }
}

/// `sync.import`'s answer to the device that pushed a page: what this side's store did with it.
public struct PageApplied: Codable, Sendable, Equatable {
    public let received: Int
    public let conflicts: Int
    /// How many were held back, and the refused ones (the first few) with how many.
    public let quarantined: Int
    public let refused: [OperationsRefusedEvent.Refusal]
    public let refusedCount: Int

    public init(
        received: Int, conflicts: Int, quarantined: Int, refused: [OperationsRefusedEvent.Refusal], refusedCount: Int
    ) {
        (self.received, self.conflicts, self.quarantined, self.refused, self.refusedCount) = (
            received, conflicts, quarantined, refused, refusedCount
        )
    }

    enum CodingKeys: String, CodingKey {
        case received, conflicts, quarantined, refused
        case refusedCount = "refused_count"
    }
}

/// `sync.done`: the device that started a sync tells the one it synced with what the exchange
/// moved, as it measured it, so the answering side logs it (and raises its own "Synced with"
/// popup). Sent last, when the exchange completed and moved something; `bytes` and `durationMs`
/// are up to this note (the sender's own log counts the note too, about 150 bytes). A device of
/// an earlier version answers `unknown_command`, which the sender ignores.
public struct SyncDone: Codable, Sendable, Equatable {
    /// What the sender took in (the answering side sent) and sent.
    public let received: Int
    public let sent: Int
    /// The bytes of every request and reply of the exchange, and its time.
    public let bytes: Int
    public let durationMs: Int64

    public init(received: Int, sent: Int, bytes: Int, durationMs: Int64) {
        (self.received, self.sent, self.bytes, self.durationMs) = (received, sent, bytes, durationMs)
    }

    enum CodingKeys: String, CodingKey {
        case received, sent, bytes
        case durationMs = "duration_ms"
    }
}

/// An operation as the exchange format writes it (`hearth ops export`, the change feed):
/// for showing one; importing reads operations strictly by `Operation(json:at:)` instead.
public struct ExchangedOperation: Codable, Sendable, Equatable {
    public struct Time: Codable, Sendable, Equatable {
        public let wall: Int64
        public let logical: Int64
    }

    public struct Entity: Codable, Sendable, Equatable {
        public let kind: String
        public let id: String
    }

    /// A field's new value and the operations whose value of it this one overwrites.
    public struct Write: Codable, Sendable, Equatable {
        public let value: FieldJSON
        @OmittedWhenNil public var overwrites: [String]?
    }

    public let id: String
    public let time: Time
    public let entity: Entity
    public let fields: [String: Write]
    /// Its author's signature (base64), when signed.
    @OmittedWhenNil public var sig: String?
}

/// `ops.quarantine`: the operations held back (the first 500), with how many and their size.
public struct QuarantineList: Codable, Sendable, Equatable {
    public struct Held: Codable, Sendable, Equatable {
        public let id: String
        /// Its time (ms since 1970), why it is held, the device that brought it, since when, and
        /// its size.
        public let wall: Int64
        public let reason: String
        public let source: String
        public let heldAt: String
        public let bytes: Int

        public init(id: String, wall: Int64, reason: String, source: String, heldAt: String, bytes: Int) {
            (self.id, self.wall, self.reason, self.source, self.heldAt, self.bytes) = (
                id, wall, reason, source, heldAt, bytes
            )
        }

        enum CodingKeys: String, CodingKey {
            case id, wall, reason, source, bytes
            case heldAt = "held_at"
        }
    }

    public let operations: [Held]
    public let count: Int
    public let bytes: Int

    public init(operations: [Held], count: Int, bytes: Int) {
        (self.operations, self.count, self.bytes) = (operations, count, bytes)
    }
}

/// `ops.quarantine.purge`: how many held operations were let go.
public struct QuarantinePurged: Codable, Sendable, Equatable {
    public let purged: Int

    public init(purged: Int) { self.purged = purged }
}

/// `ops.forks`: operation ids held here with one content and sent by another device with
/// another (possible only from before signing), both contents kept.
public struct ForkList: Codable, Sendable, Equatable {
    public struct Fork: Codable, Sendable, Equatable {
        public let id: String
        public let held: ExchangedOperation
        public let other: ExchangedOperation
        /// The device that sent the other content, and when it was first seen.
        public let source: String
        public let firstSeenAt: String

        public init(
            id: String, held: ExchangedOperation, other: ExchangedOperation, source: String, firstSeenAt: String
        ) {
            (self.id, self.held, self.other, self.source, self.firstSeenAt) = (id, held, other, source, firstSeenAt)
        }

        enum CodingKeys: String, CodingKey {
            case id, held, other, source
            case firstSeenAt = "first_seen_at"
        }
    }

    public let forks: [Fork]

    public init(forks: [Fork]) { self.forks = forks }
}

/// `backup`: the copy written and its size.
public struct BackupWritten: Codable, Sendable, Equatable {
    public let path: String
    public let bytes: Int

    public init(path: String, bytes: Int) { (self.path, self.bytes) = (path, bytes) }
}

/// One committed change, as the store's `changes` pages and its `store.changed` events carry it.
public struct ChangeView: Codable, Sendable, Equatable {
    public let seq: Int64
    public let operation: ExchangedOperation

    public init(seq: Int64, operation: ExchangedOperation) { (self.seq, self.operation) = (seq, operation) }
}

/// `changes {since, limit}`: the changes after `since`, in order, and the store's latest seq.
public struct ChangePage: Codable, Sendable, Equatable {
    public let changes: [ChangeView]
    public let lastSeq: Int64

    public init(changes: [ChangeView], lastSeq: Int64) { (self.changes, self.lastSeq) = (changes, lastSeq) }

    enum CodingKeys: String, CodingKey {
        case changes
        case lastSeq = "last_seq"
    }
}

/// Only the entity a change is about: what a follower that routes changes by kind reads.
public struct ChangedEntity: Decodable, Sendable, Equatable {
    public struct Operation: Decodable, Sendable, Equatable {
        public let entity: ExchangedOperation.Entity
    }

    public let operation: Operation
}
