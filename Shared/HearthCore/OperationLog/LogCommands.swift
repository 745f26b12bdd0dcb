/// The store's own commands on its operation log (`store.cmd`), one type each: history and
/// conflicts, the change feed, undo and redo, and the exchange's bookkeeping (version vector,
/// quarantine, forks, resuming after a restore, backups). What the CLI, the page, hearth-sync,
/// hearth-scheduler and the tests send, and what the store decodes. (`ops.export` and `ops.import`
/// carry pages of operations in their own tuned format, `ExchangeWire`.)
public enum HistoryCommands {
    /// The year planner's changes, month by month: of one `year`, one `month` (1–12), one
    /// `device` (a name or id prefix), from `since` and up to `until` (a day or a time; a day
    /// counts whole).
    public struct History: HearthCommand {
        public typealias Reply = PlannerHistory
        public static let name = "history"
        public var year: Int?
        public var month: Int?
        public var device: String?
        public var since: String?
        public var until: String?
        public init(
            year: Int? = nil, month: Int? = nil, device: String? = nil, since: String? = nil, until: String? = nil
        ) {
            (self.year, self.month, self.device, self.since, self.until) = (year, month, device, since, until)
        }
    }

    /// Every field in conflict, each with its competing values.
    public struct Conflicts: HearthCommand {
        public typealias Reply = ConflictList
        public static let name = "conflicts"
        public init() {}
    }

    /// Settles conflict `id` (`2026-08/title`, `<entity>/<field>`) by writing `keep` over every
    /// competing value: an operation id, a device's name or id prefix (its value), or the value.
    public struct Resolve: HearthCommand {
        public typealias Reply = ConflictResolved
        public static let name = "conflicts.resolve"
        public var id: String
        public var keep: String
        public init(id: String, keep: String) { (self.id, self.keep) = (id, keep) }
    }

    /// The change feed after `since` (a change's `seq`; 0 from the start), `limit` (1–10,000)
    /// at most.
    public struct Changes: HearthCommand {
        public typealias Reply = ChangePage
        public static let name = "changes"
        public var since: Int64?
        public var limit: Int?
        public init(since: Int64? = nil, limit: Int? = nil) { (self.since, self.limit) = (since, limit) }
    }

    /// Takes back this device's last step not yet undone.
    public struct Undo: HearthCommand {
        public typealias Reply = UndoReport
        public static let name = "undo"
        public init() {}
    }

    /// Brings back the step undone last.
    public struct Redo: HearthCommand {
        public typealias Reply = UndoReport
        public static let name = "redo"
        public init() {}
    }

    /// This device's steps, newest first: `limit` (1–200, default 20).
    public struct UndoSteps: HearthCommand {
        public typealias Reply = UndoList
        public static let name = "undo.list"
        public var limit: Int?
        public init(limit: Int? = nil) { self.limit = limit }
    }
}

/// The exchange's bookkeeping on the store.
public enum ExchangeCommands {
    /// Per device, the last counter up to which this store holds every operation.
    public struct Vector: HearthCommand {
        public typealias Reply = VersionVectorReply
        public static let name = "ops.vector"
        public init() {}
    }

    /// The operations held back (stamped too far ahead), each with its source and why.
    public struct Quarantine: HearthCommand {
        public typealias Reply = QuarantineList
        public static let name = "ops.quarantine"
        public init() {}
    }

    /// Empties the quarantine (its operations come again from their source if still valid).
    public struct PurgeQuarantine: HearthCommand {
        public typealias Reply = QuarantinePurged
        public static let name = "ops.quarantine.purge"
        public init() {}
    }

    /// Operations held here with one content and sent by another device with another.
    public struct Forks: HearthCommand {
        public typealias Reply = ForkList
        public static let name = "ops.forks"
        public init() {}
    }

    /// Ends the wait after a restore: this device writes again.
    public struct Resume: HearthCommand {
        public typealias Reply = OperationsResumed
        public static let name = "ops.resume"
        public init() {}
    }

    /// Copies the live database to `path` (absolute, new) with SQLite's online backup.
    public struct Backup: HearthCommand {
        public typealias Reply = BackupWritten
        public static let name = "backup"
        public var path: String
        public init(path: String) { self.path = path }
    }
}

/// `ops.resume`: whether this device was waiting after a restore (and now writes again).
public struct OperationsResumed: Codable, Sendable, Equatable {
    public let resumed: Bool

    public init(resumed: Bool) { self.resumed = resumed }
}
