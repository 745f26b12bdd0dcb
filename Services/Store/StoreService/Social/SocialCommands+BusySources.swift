import Foundation
import GRDB
import HearthBus
import HearthCore

/// Calendars subscribed to by URL: the store keeps each source (`busy_source`, this device's
/// alone) and what its last read gave; `hearth-scheduler` fetches them when due and hands each
/// body to `plan.busy.import` with its `source`, or its failure to `plan.busy.failed`.
extension SocialCommands {
    /// The most calendars one device subscribes to.
    static let maximumBusySources = 50

    func subscribeBusy(_ command: BusyCommands.Subscribe, _ request: CommandRequest) async throws -> JSONValue {
        let url = try sourceURL(command.url)
        let now = try now(command.now)
        return try await writes.once(request.id) { db, _ in
            if try Self.busySource(url, in: db) == nil {
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM busy_source") ?? 0
                guard count < Self.maximumBusySources else {
                    throw CommandError.invalidArgument(
                        "url",
                        "at most \(Self.maximumBusySources) calendars can be subscribed to; unsubscribe one first")
                }
                try db.execute(
                    sql: "INSERT INTO busy_source (url, added_at) VALUES (?, ?)",
                    arguments: [url, Self.milliseconds(now)])
            }
            return try JSONValue(reply: try Self.subscribed(url, in: db))
        }
    }

    /// Forgets a source and every busy time read from it.
    func unsubscribeBusy(_ command: BusyCommands.Unsubscribe, _ request: CommandRequest) async throws -> JSONValue {
        let url = try sourceURL(command.url)
        return try await writes.once(request.id) { db, _ in
            try db.execute(sql: "DELETE FROM busy_source WHERE url = ?", arguments: [url])
            guard db.changesCount > 0 else { throw Self.notSubscribed(url) }
            try db.execute(sql: "DELETE FROM social_busy WHERE file = ?", arguments: [url])
            return try JSONValue(
                reply: BusyUnsubscribed(url: BusySubscription.shown(url), removed: db.changesCount))
        }
    }

    func busySources() async throws -> JSONValue {
        try await database.pool.read { db in try JSONValue(reply: BusySources(sources: try Self.busySources(in: db))) }
    }

    /// Records that reading a source failed (`error`, a sentence): its busy times stay as the
    /// last good read left them, and it is tried again in an hour.
    func busyReadFailed(_ command: BusyCommands.Failed, _ request: CommandRequest) async throws -> JSONValue {
        let url = try sourceURL(command.source, name: "source")
        let error = String(command.error.prefix(500))
        let now = try now(command.now)
        return try await writes.once(request.id) { db, _ in
            try db.execute(
                sql: "UPDATE busy_source SET tried_at = ?, error = ? WHERE url = ?",
                arguments: [Self.milliseconds(now), error, url])
            guard db.changesCount > 0 else { throw Self.notSubscribed(url) }
            return try JSONValue(reply: try Self.subscribed(url, in: db))
        }
    }

    /// The `url` (or `source`) argument, as `BusySubscription.normalised` keeps it.
    /// A typed command's URL, as `BusySubscription.normalised` keeps it.
    func sourceURL(_ text: String, name: String = "url") throws -> String {
        do throws(RuleError) {
            return try BusySubscription.normalised(text)
        } catch {
            throw CommandError.invalidArgument(name, error.rule)
        }
    }

    static func notSubscribed(_ url: String) -> CommandError {
        CommandError(
            code: "not_found",
            message:
                "'url': \(BusySubscription.shown(url)) is not subscribed to (hearth plan busy list shows those that are)"
        )
    }

    /// Records a good read of `url` after its busy times were replaced in the same transaction.
    static func recordBusyRead(
        _ url: String, at now: Date, events: Int, busy: Int, etag: String?, lastModified: String?, in db: Database
    ) throws {
        try db.execute(
            sql: """
                UPDATE busy_source SET read_at = ?, tried_at = ?, error = NULL, events = ?, busy = ?, etag = ?,
                    last_modified = ? WHERE url = ?
                """, arguments: [milliseconds(now), milliseconds(now), events, busy, etag, lastModified, url])
        guard db.changesCount > 0 else { throw notSubscribed(url) }
    }

    static func subscribed(_ url: String, in db: Database) throws -> BusySource {
        guard let source = try busySource(url, in: db) else { throw notSubscribed(url) }
        return source
    }

    static func busySources(in db: Database) throws -> [BusySource] {
        try Row.fetchAll(db, sql: "SELECT * FROM busy_source ORDER BY added_at, url").map(busySource)
    }

    static func busySource(_ url: String, in db: Database) throws -> BusySource? {
        try Row.fetchOne(db, sql: "SELECT * FROM busy_source WHERE url = ?", arguments: [url]).map(busySource)
    }

    private static func busySource(_ row: Row) -> BusySource {
        let instant = { (column: String) in (row[column] as Int64?).map { Date(milliseconds: $0) } }
        let (read, tried, error) = (instant("read_at"), instant("tried_at"), row["error"] as String?)
        return BusySource(
            url: row["url"], added: Timestamp.format(Date(milliseconds: row["added_at"])),
            read: read.map(Timestamp.format), tried: tried.map(Timestamp.format), error: error, events: row["events"],
            busy: row["busy"], etag: row["etag"], lastModified: row["last_modified"],
            next: BusySubscription.nextRead(read: read, tried: tried, failed: error != nil).map(Timestamp.format))
    }
}
