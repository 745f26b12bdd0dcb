import Foundation

/// Busy times subscribed to by URL (a family NAS's or Nextcloud's calendar): the store keeps
/// each source and what its last read gave (`plan.busy.subscribe`, `plan.busy.sources`,
/// `plan.busy.unsubscribe`); `hearth-scheduler` reads each when it is due (`busy.read`), asking
/// with the last read's ETag so an unchanged calendar costs a 304.
public enum BusySubscription {
    /// How often a source is read: daily, as calendar apps poll a subscribed calendar.
    public static let readInterval: TimeInterval = 86_400
    /// How soon a read that failed (the NAS asleep, a 500) is tried again.
    public static let retryInterval: TimeInterval = 3_600
    /// The longest URL kept.
    public static let maximumURLLength = 2_048

    /// When a source is next read: at once when never read, an hour after a failed try, a day
    /// after the last good read.
    public static func nextRead(read: Date?, tried: Date?, failed: Bool) -> Date? {
        guard let tried else { return nil }
        if failed { return tried.addingTimeInterval(retryInterval) }
        return (read ?? tried).addingTimeInterval(readInterval)
    }

    /// `url` as it is fetched: `webcal://` (what calendar sites link to) is `http://` and
    /// `webcals://` is `https://`, as Mozilla's calendars read them. Refused (the reason names the rule) unless http(s) with a
    /// host, without a fragment, at most `maximumURLLength` characters.
    public static func normalised(_ text: String) throws(RuleError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw RuleError(field: "url", rule: "must not be empty") }
        guard trimmed.count <= maximumURLLength else {
            throw RuleError(field: "url", rule: "must be at most \(maximumURLLength) characters")
        }
        guard var parts = URLComponents(string: trimmed), let scheme = parts.scheme?.lowercased() else {
            throw RuleError(field: "url", rule: "must be a URL such as https://nas.local/calendar.ics")
        }
        switch scheme {
        case "http", "https": parts.scheme = scheme
        case "webcal": parts.scheme = "http"
        case "webcals": parts.scheme = "https"
        default: throw RuleError(field: "url", rule: "must start with http://, https:// or webcal:// (not \(scheme):)")
        }
        guard let host = parts.host, !host.isEmpty else {
            throw RuleError(field: "url", rule: "must name a host, as in https://nas.local/calendar.ics")
        }
        parts.fragment = nil
        guard let url = parts.string else { throw RuleError(field: "url", rule: "must be a valid URL") }
        return url
    }

    /// `url` as it is shown: a password in it is masked.
    public static func shown(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? url
    }
}

/// One subscribed calendar (`plan.busy.subscribe`, and each of `plan.busy.sources`). Times are
/// ISO 8601.
public struct BusySource: Codable, Sendable, Equatable {
    public let url: String
    public let added: String
    /// The last read that gave the calendar (a 200, or a 304 on the copy kept), absent before one.
    @OmittedWhenNil public var read: String?
    /// The last try, good or not; absent before the first.
    @OmittedWhenNil public var tried: String?
    /// Why the last try failed; absent when it did not.
    @OmittedWhenNil public var error: String?
    /// What the last good read gave: its events and busy times.
    public let events: Int
    public let busy: Int
    /// The validators of the last 200, sent back as `If-None-Match` and `If-Modified-Since`.
    @OmittedWhenNil public var etag: String?
    @OmittedWhenNil public var lastModified: String?
    /// When it is next read (absent before the first try: at once).
    @OmittedWhenNil public var next: String?

    public init(
        url: String, added: String, read: String? = nil, tried: String? = nil, error: String? = nil, events: Int = 0,
        busy: Int = 0, etag: String? = nil, lastModified: String? = nil, next: String? = nil
    ) {
        (self.url, self.added, self.events, self.busy) = (url, added, events, busy)
        (self.read, self.tried, self.error, self.etag, self.lastModified, self.next) = (
            read, tried, error, etag, lastModified, next
        )
    }

    enum CodingKeys: String, CodingKey {
        case url, added, read, tried, error, events, busy, etag, next
        case lastModified = "last_modified"
    }

    /// This source as a person is shown it: a password in its URL as `***` (only the scheduler,
    /// which reads the calendar, is given the URL whole: `plan.busy.sources`).
    public var shown: BusySource {
        BusySource(
            url: BusySubscription.shown(url), added: added, read: read, tried: tried, error: error, events: events,
            busy: busy, etag: etag, lastModified: lastModified, next: next)
    }
}

/// `plan.busy.sources`: every subscribed calendar, by URL.
public struct BusySources: Codable, Sendable, Equatable {
    public let sources: [BusySource]

    public init(sources: [BusySource]) { self.sources = sources }
}

/// `plan.busy.unsubscribe`: the source forgotten, and how many of its busy times went with it.
public struct BusyUnsubscribed: Codable, Sendable, Equatable {
    public let url: String
    public let removed: Int

    public init(url: String, removed: Int) { (self.url, self.removed) = (url, removed) }
}

/// `busy.read` on `scheduler.cmd`: each source read, with what the store made of it (absent when
/// the read failed) or why it failed.
public struct BusyReads: Codable, Sendable, Equatable {
    public struct Read: Codable, Sendable, Equatable {
        public let url: String
        /// Whether the server said the calendar had not changed (304).
        public let unchanged: Bool
        @OmittedWhenNil public var imported: BusyImport?
        @OmittedWhenNil public var error: String?

        public init(url: String, unchanged: Bool, imported: BusyImport? = nil, error: String? = nil) {
            (self.url, self.unchanged, self.imported, self.error) = (url, unchanged, imported, error)
        }
    }

    public let reads: [Read]

    public init(reads: [Read]) { self.reads = reads }
}
