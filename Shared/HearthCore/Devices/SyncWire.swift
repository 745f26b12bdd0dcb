/// Syncing with paired devices: `hearth-sync`'s command arguments, its sync log and
/// diagnostics, and the `sync.*` events the notifier shows. Encoded by `hearth-sync`, decoded by
/// the command line, the page and the notifier.

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

    /// The cards the imports of one sync changed, from the store's announced changes in the order
    /// the imports ran: each card as it read before the first and after the last, by the device
    /// whose operation wrote it last; a card that reads the same at the end is left out. In
    /// month order.
    public static func changes(merging announced: [AnnouncedChange]) -> [Change] {
        struct Merged {
            var first: AnnouncedChange
            var last: AnnouncedChange
            var latest: AnnouncedChange
        }
        var cards: [EntityRef: Merged] = [:]
        for change in announced where change.kind == YearPlanner.entityKind {
            let entity = EntityRef(kind: change.kind, id: change.id)
            guard var merged = cards[entity] else {
                cards[entity] = Merged(first: change, last: change, latest: change)
                continue
            }
            merged.last = change
            if (change.wall, change.logical) >= (merged.latest.wall, merged.latest.logical) { merged.latest = change }
            cards[entity] = merged
        }
        return cards.compactMap { entity, merged -> Change? in
            guard merged.first.before != merged.last.after, let (year, month) = YearPlanner.yearAndMonth(of: entity)
            else { return nil }
            return Change(
                year: year, month: month, by: merged.latest.by, before: merged.first.before, after: merged.last.after)
        }.sorted { ($0.year, $0.month) < ($1.year, $1.month) }
    }
}
