/// What hearth-scheduler asks of the store (`store.cmd`) about todo reminders, one type each: the
/// todos whose reminder this device raises, and this device's record of which fired and which
/// are snoozed (never replicated: each device raises its own popups).
public enum ReminderCommands {
    /// The todos with a reminder, in id order, a page at a time: `after` the last id of the
    /// previous page, or just the todos `ids` names (1,000 at most). Each carries its completion
    /// dates from `since` (a date) on.
    public struct Sources: HearthCommand {
        public typealias Reply = ReminderSources
        public static let name = "reminder.sources"
        public var after: String?
        public var since: String?
        public var ids: [String]?
        public init(after: String? = nil, since: String? = nil, ids: [String]? = nil) {
            (self.after, self.since, self.ids) = (after, since, ids)
        }
    }

    /// Records, in one transaction, that reminders fired and snoozes set or cleared (1–10,000).
    public struct Record: HearthCommand {
        public typealias Reply = RemindersRecorded
        public static let name = "reminder.record"
        public var records: [Entry]
        public init(records: [Entry]) { self.records = records }

        /// One todo's record: its reminder fired for `firedDue` (ms since 1970; the store keeps
        /// the latest), and its snooze: left as it is (`snoozedUntil` nil), cleared
        /// (`.some(nil)`, sent as `null`), or set until a time (ms) for the occurrence
        /// `snoozedDate`.
        public struct Entry: Codable, Sendable, Equatable {
            public var id: String
            public var firedDue: Int64?
            public var snoozedUntil: Int64??
            public var snoozedDate: String?

            public init(id: String, firedDue: Int64? = nil, snoozedUntil: Int64?? = nil, snoozedDate: String? = nil) {
                (self.id, self.firedDue, self.snoozedUntil, self.snoozedDate) = (
                    id, firedDue, snoozedUntil, snoozedDate
                )
            }

            enum CodingKeys: CodingKey { case id, firedDue, snoozedUntil, snoozedDate }

            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(String.self, forKey: .id)
                firedDue = try container.decodeIfPresent(Int64.self, forKey: .firedDue)
                if container.contains(.snoozedUntil) {
                    snoozedUntil = .some(try container.decodeIfPresent(Int64.self, forKey: .snoozedUntil))
                } else {
                    snoozedUntil = nil
                }
                snoozedDate = try container.decodeIfPresent(String.self, forKey: .snoozedDate)
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                try container.encodeIfPresent(firedDue, forKey: .firedDue)
                if case .some(let until) = snoozedUntil {
                    if let until {
                        try container.encode(until, forKey: .snoozedUntil)
                    } else {
                        try container.encodeNil(forKey: .snoozedUntil)
                    }
                }
                try container.encodeIfPresent(snoozedDate, forKey: .snoozedDate)
            }
        }
    }
}

/// `reminder.record`'s reply: how many records were written.
public struct RemindersRecorded: Codable, Sendable, Equatable {
    public let recorded: Int
    public init(recorded: Int) { self.recorded = recorded }
}
