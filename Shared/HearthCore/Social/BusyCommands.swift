/// Busy times the social planner avoids, as commands to the store (`store.cmd`), one type each:
/// what the CLI and hearth-scheduler (which reads subscribed calendars when due) send, and what
/// the store decodes. A subscribed calendar is named by its URL (`https://` or `webcal://`, as
/// `BusySubscription.normalised` keeps it); a file imported once by its name as `List` gives it.
/// `now` (milliseconds since 1970) stands in for the clock.
public enum BusyCommands {
    /// The busy times still to come (500 at most), with the subscribed calendars and the files.
    public struct List: HearthCommand {
        public typealias Reply = BusyList
        public static let name = "plan.busy.list"
        public var now: Int64?
        public init(now: Int64? = nil) { self.now = now }
    }

    /// The subscribed calendars and what each last read gave (hearth-scheduler reads them).
    public struct Sources: HearthCommand {
        public typealias Reply = BusySources
        public static let name = "plan.busy.sources"
        public init() {}
    }

    /// Forgets the busy times one imported file left.
    public struct Remove: HearthCommand {
        public typealias Reply = BusyRemoved
        public static let name = "plan.busy.remove"
        public var file: String
        public init(file: String) { self.file = file }
    }

    /// Forgets every busy time.
    public struct Clear: HearthCommand {
        public typealias Reply = BusyCleared
        public static let name = "plan.busy.clear"
        public init() {}
    }

    /// Subscribes to a calendar by URL (50 at most); subscribing again answers the same.
    public struct Subscribe: HearthCommand {
        public typealias Reply = BusySource
        public static let name = "plan.busy.subscribe"
        public var url: String
        public var now: Int64?
        public init(url: String, now: Int64? = nil) { (self.url, self.now) = (url, now) }
    }

    /// Forgets a subscribed calendar and every busy time read from it.
    public struct Unsubscribe: HearthCommand {
        public typealias Reply = BusyUnsubscribed
        public static let name = "plan.busy.unsubscribe"
        public var url: String
        public init(url: String) { self.url = url }
    }

    /// Imports busy times from the calendar file at `path` (absolute, on the store's machine): a
    /// file imported by hand (a re-import replaces its events), or with `source` (a subscribed
    /// URL) the copy hearth-scheduler fetched with the response's `etag` and `lastModified`,
    /// replacing everything that source gave. `progress` is a token to read `progress` with.
    public struct Import: HearthCommand {
        public typealias Reply = BusyImport
        public static let name = "plan.busy.import"
        public var path: String
        public var source: String?
        public var etag: String?
        public var lastModified: String?
        public var now: Int64?
        public var progress: String?
        public init(
            path: String, source: String? = nil, etag: String? = nil, lastModified: String? = nil, now: Int64? = nil,
            progress: String? = nil
        ) {
            (self.path, self.source, self.etag, self.lastModified) = (path, source, etag, lastModified)
            (self.now, self.progress) = (now, progress)
        }
    }

    /// Records that reading `source` failed (`error`, a sentence; 500 characters kept): its busy
    /// times stay as the last good read left them.
    public struct Failed: HearthCommand {
        public typealias Reply = BusySource
        public static let name = "plan.busy.failed"
        public var source: String
        public var error: String
        public var now: Int64?
        public init(source: String, error: String, now: Int64? = nil) {
            (self.source, self.error, self.now) = (source, error, now)
        }
    }
}
