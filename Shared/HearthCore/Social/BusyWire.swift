/// The social planner's calendars on `store.cmd`: busy times read in, preferences, and the
/// check-ins written out. Encoded by `hearth-store` (absent fields as `null`, as replies are),
/// decoded by the command line.

/// `plan.prefs` and `plan.prefs.set`.
public struct PlanPreferences: Codable, Sendable, Equatable {
    /// Check-ins a week, and how many days ahead the planner looks.
    public let capacity: Int
    public let horizon: Int
    /// Quiet hours (`HH:MM`), when no reminder is raised and nothing is planned.
    public let quietStart: String
    public let quietEnd: String
    /// Minutes before a check-in its reminder comes; the daily refresh; "snooze tonight"'s morning.
    public let lead: Int
    public let refresh: String
    public let morning: String

    public init(
        capacity: Int, horizon: Int, quietStart: String, quietEnd: String, lead: Int, refresh: String, morning: String
    ) {
        (self.capacity, self.horizon, self.quietStart, self.quietEnd) = (capacity, horizon, quietStart, quietEnd)
        (self.lead, self.refresh, self.morning) = (lead, refresh, morning)
    }

    enum CodingKeys: String, CodingKey {
        case capacity, horizon, lead, refresh, morning
        case quietStart = "quiet_start"
        case quietEnd = "quiet_end"
    }
}

/// `plan.busy.import`: a calendar file read into busy times.
public struct BusyImport: Codable, Sendable, Equatable {
    /// An event that could not be read, and why.
    public struct Problem: Codable, Sendable, Equatable {
        public let event: String
        public let reason: String

        public init(event: String, reason: String) { (self.event, self.reason) = (event, reason) }
    }

    /// The file's name, its busy times from today on, its events, and those marked free.
    public let file: String
    public let busy: Int
    public let events: Int
    public let free: Int
    /// The first 100 problems, and how many more there were.
    public let errors: [Problem]
    public let omittedErrors: Int
    /// What was wrong in events that were still read (an empty property, a time zone read as
    /// floating…): the first 100, absent when there were none.
    @OmittedWhenNil public var warnings: [Problem]?
    /// Check-ins still to come that the new busy times clashed with, moved to the next free time
    /// by the planner's rules; and those for which no time was free (left where they were, their
    /// clash named). Absent when there were none.
    @OmittedWhenNil public var rescheduled: [PlanItemView]?
    @OmittedWhenNil public var unplaced: [Problem]?

    public init(
        file: String, busy: Int, events: Int, free: Int, errors: [Problem], omittedErrors: Int,
        warnings: [Problem]? = nil
    ) {
        (self.file, self.busy, self.events, self.free, self.errors, self.omittedErrors) = (
            file, busy, events, free, errors, omittedErrors
        )
        self.warnings = warnings
    }

    enum CodingKeys: String, CodingKey {
        case file, busy, events, free, errors, warnings, rescheduled, unplaced
        case omittedErrors = "omitted_errors"
    }
}

/// `plan.unplaced` (the scheduler's, after it read a subscribed calendar): check-ins the new busy
/// times clash with and no free time could take (the notifier's popup).
public struct PlanUnplacedEvent: Codable, Sendable, Equatable {
    /// The calendar read, as people are shown it (no password).
    public let source: String
    public let unplaced: [BusyImport.Problem]

    public init(source: String, unplaced: [BusyImport.Problem]) { (self.source, self.unplaced) = (source, unplaced) }
}

/// `plan.busy.list`: busy times still to come (the first 500), and how many are held.
public struct BusyList: Codable, Sendable, Equatable {
    public struct Busy: Codable, Sendable, Equatable {
        public let uid: String
        public let summary: String
        /// ISO 8601; an all-day event runs midnight to midnight in the household's zone.
        public let start: String
        public let end: String
        public let allDay: Bool
        /// The file's name, or the subscribed URL (a password in it masked).
        public let file: String

        public init(uid: String, summary: String, start: String, end: String, allDay: Bool, file: String) {
            (self.uid, self.summary, self.start, self.end, self.allDay, self.file) = (
                uid, summary, start, end, allDay, file
            )
        }

        enum CodingKeys: String, CodingKey {
            case uid, summary, start, end, file
            case allDay = "all_day"
        }
    }

    public let total: Int
    public let busy: [Busy]
    /// The calendars subscribed to by URL and what their last read gave; absent when none are.
    @OmittedWhenNil public var sources: [BusySource]?
    /// The calendar files imported once (`plan busy import`), each with its busy times held;
    /// absent when none are.
    @OmittedWhenNil public var files: [BusyFile]?

    public init(total: Int, busy: [Busy], sources: [BusySource]? = nil, files: [BusyFile]? = nil) {
        (self.total, self.busy) = (total, busy)
        self.sources = sources.flatMap { $0.isEmpty ? nil : $0 }
        self.files = files.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// A calendar file imported by `plan busy import`: its name (as the import reported it) and how
/// many busy times it left, past ones included.
public struct BusyFile: Codable, Sendable, Equatable {
    public let file: String
    public let busy: Int

    public init(file: String, busy: Int) { (self.file, self.busy) = (file, busy) }
}

/// `plan.busy.remove`: an imported file's busy times forgotten.
public struct BusyRemoved: Codable, Sendable, Equatable {
    public let file: String
    public let removed: Int

    public init(file: String, removed: Int) { (self.file, self.removed) = (file, removed) }
}

/// `plan.busy.clear`: how many busy times were removed.
public struct BusyCleared: Codable, Sendable, Equatable {
    public let cleared: Int

    public init(cleared: Int) { self.cleared = cleared }
}

/// `plan.export`: the check-ins as an iCalendar file, and how many events it holds.
public struct PlanExport: Codable, Sendable, Equatable {
    public let ics: String
    public let events: Int

    public init(ics: String, events: Int) { (self.ics, self.events) = (ics, events) }
}
