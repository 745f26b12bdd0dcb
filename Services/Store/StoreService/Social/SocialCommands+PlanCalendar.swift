import Foundation
import GRDB
import HearthBus
import HearthCalendar
import HearthCore

/// The planner's preferences, busy times in from a calendar file, check-ins out to one, and
/// what `hearth-scheduler` needs for their reminders.
extension SocialCommands {
    func planPreferences() async throws -> JSONValue {
        try await database.pool.read { db in try Self.preferencesJSON(try Self.preferences(in: db)) }
    }

    func setPlanPreferences(
        _ command: PlanCommands.SetPreferences, _ request: CommandRequest
    ) async throws
        -> JSONValue
    {
        var values: [String: FieldValue] = [:]
        let ranges: [(String, Int?, ClosedRange<Int64>, String)] = [
            ("capacity", command.capacity, Social.capacityRange, "check-ins a week"),
            ("horizon", command.horizon, Social.horizonRange, "days"),
            ("lead", command.lead, Social.leadRange, "minutes"),
        ]
        for (name, given, range, unit) in ranges {
            if let value = given {
                try Self.require(value, in: range, name, unit: unit)
                values[name] = .int(Int64(value))
            }
        }
        let times = [
            ("quiet_start", command.quietStart), ("quiet_end", command.quietEnd), ("refresh", command.refresh),
            ("morning", command.morning),
        ]
        for (name, given) in times {
            if let text = given {
                let time = try check { () throws(RuleError) in try LocalTime(parsing: text, field: name) }
                values[name] = .text(time.description)
            }
        }
        guard !values.isEmpty else {
            throw CommandError.invalidArgument(
                "capacity",
                "nothing to change: give capacity, quiet_start, quiet_end, horizon, lead, refresh or morning")
        }
        let changes = values
        return try await writes.once(request.id) { db, outbox in
            try commit(EntityRef(kind: Social.prefsKind, id: Social.prefsID), changes, in: db, outbox: outbox)
            return try Self.preferencesJSON(try Self.preferences(in: db))
        }
    }

    static func preferencesJSON(_ preferences: Social.Preferences) throws -> JSONValue {
        try JSONValue(
            reply: PlanPreferences(
                capacity: preferences.capacity, horizon: preferences.horizon,
                quietStart: preferences.quietStart.short, quietEnd: preferences.quietEnd.short,
                lead: preferences.lead, refresh: preferences.refresh.short, morning: preferences.morning.short))
    }

    // MARK: - Busy times

    /// The largest calendar file read (a year of a busy person's calendar is well under 5 MB).
    static let maximumCalendarBytes = 32 * 1024 * 1024

    /// Reads the calendar file at `path` (this machine's: the command line sends the path) and
    /// replaces the busy times of every UID it holds with its events' occurrences from a week ago
    /// to the longest horizon. Bad events are reported; the rest import.
    ///
    /// With `source` (a subscribed URL; `path` is the copy `hearth-scheduler` fetched, with the
    /// response's `etag` and `last_modified`), every busy time of that source is replaced, so an
    /// event deleted from the calendar goes, and the read is recorded on the source.
    func importBusy(_ command: BusyCommands.Import, _ request: CommandRequest) async throws -> JSONValue {
        let path = command.path
        let source = try command.source.map { try sourceURL($0, name: "source") }
        let (etag, lastModified) = (command.etag, command.lastModified)
        let now = try now(command.now)
        guard path.hasPrefix("/") else { throw CommandError.invalidArgument("path", "must be an absolute path") }
        let today = household.today(at: now)
        let (progress, token) = (progress, ProgressBoard.token(request.arguments))
        defer { progress.finish(token) }
        let reading = try await Self.readCalendar(
            path, named: source.map(BusySubscription.shown), from: today.adding(days: -7),
            through: today.adding(days: Int(Social.horizonRange.upperBound)), zone: timeZone
        ) { done, total in progress.report(token, done: done, total: total, unit: "events") }
        let file = source ?? (path as NSString).lastPathComponent
        return try await writes.once(request.id) { db, outbox in
            if let source {
                _ = try Self.subscribed(source, in: db)
                try db.execute(sql: "DELETE FROM social_busy WHERE file = ?", arguments: [source])
            }
            for uid in reading.uids {
                try db.execute(sql: "DELETE FROM social_busy WHERE uid = ?", arguments: [uid])
            }
            let insert = try db.cachedStatement(
                sql:
                    #"INSERT OR REPLACE INTO social_busy (uid, start, "end", summary, all_day, file) VALUES (?, ?, ?, ?, ?, ?)"#
            )
            for busy in reading.busy {
                try insert.execute(arguments: [
                    busy.uid, Self.milliseconds(busy.start), Self.milliseconds(busy.end), busy.summary, busy.allDay,
                    file,
                ])
            }
            if let source {
                try Self.recordBusyRead(
                    source, at: now, events: reading.uids.count, busy: reading.busy.count, etag: etag,
                    lastModified: lastModified, in: db)
            }
            var reply = BusyImport(
                file: BusySubscription.shown(file), busy: reading.busy.count, events: reading.uids.count,
                free: reading.free,
                errors: reading.errors.prefix(100).map { .init(event: $0.event, reason: $0.reason) },
                omittedErrors: max(0, reading.errors.count - 100),
                warnings: reading.warnings.isEmpty
                    ? nil : reading.warnings.prefix(100).map { .init(event: $0.event, reason: $0.reason) })
            // The busy times changed: check-ins planned before may clash now (issue 63).
            let (moved, unplaced) = try recheckPlanned(now: now, in: db, outbox: outbox)
            if !moved.isEmpty { reply.rescheduled = moved }
            if !unplaced.isEmpty { reply.unplaced = unplaced }
            return try JSONValue(reply: reply)
        }
    }

    /// Reads and expands a calendar file off the cooperative pool (`offPool`): the read blocks,
    /// and expanding a crafted file's rules may take `CalendarFile.maximumExpansionTime` of CPU.
    /// - Parameter name: what the messages call the calendar: a subscribed URL, else the path.
    private static func readCalendar(
        _ path: String, named name: String?, from: LocalDate, through: LocalDate, zone: TimeZone,
        progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void
    ) async throws(CommandError) -> CalendarFile.Reading {
        let (field, name) = name.map { ("source", $0) } ?? ("path", path)
        return try await offPool { () throws(CommandError) -> CalendarFile.Reading in
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CommandError(code: "not_found", message: "'path': cannot read \(path)")
            }
            defer { try? handle.close() }
            let data = (try? handle.read(upToCount: maximumCalendarBytes + 1)) ?? Data()
            guard data.count <= maximumCalendarBytes else {
                throw CommandError(
                    code: "too_large",
                    message: "'\(field)': \(name) is over the \(maximumCalendarBytes / 1_048_576) MiB limit")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CommandError.invalidArgument(field, "\(name) is not UTF-8 text")
            }
            do throws(CalendarFile.FileError) {
                return try CalendarFile.read(text, from: from, through: through, zone: zone, progress: progress)
            } catch {
                throw CommandError(code: "invalid_file", message: "'\(field)': \(name) \(error.description)")
            }
        }
    }

    func listBusy(_ command: BusyCommands.List) async throws -> JSONValue {
        let now = try now(command.now)
        return try await database.pool.read { db in
            let rows = try Row.fetchAll(
                db, sql: #"SELECT * FROM social_busy WHERE "end" > ? ORDER BY start, uid LIMIT 500"#,
                arguments: [Self.milliseconds(now)])
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM social_busy") ?? 0
            return try JSONValue(
                reply: BusyList(
                    total: total,
                    busy: rows.map { row in
                        BusyList.Busy(
                            uid: row["uid"], summary: row["summary"],
                            start: Timestamp.format(Date(milliseconds: row["start"])),
                            end: Timestamp.format(Date(milliseconds: row["end"])), allDay: row["all_day"],
                            file: BusySubscription.shown(row["file"]))
                    },
                    sources: try Self.busySources(in: db).map(\.shown),
                    files: try Self.busyFiles(in: db)))
        }
    }

    /// The files imported once: every `file` of a busy time that is not a subscribed URL.
    static func busyFiles(in db: Database) throws -> [BusyFile] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT file, COUNT(*) AS busy FROM social_busy
                WHERE file NOT IN (SELECT url FROM busy_source) GROUP BY file ORDER BY file
                """
        ).map { BusyFile(file: $0["file"], busy: $0["busy"]) }
    }

    /// Forgets the busy times one imported file left (`file`, its name as `plan.busy.list` gives
    /// it). A subscribed calendar is refused here: `plan.busy.unsubscribe` stops its reads too.
    func removeBusyFile(_ command: BusyCommands.Remove, _ request: CommandRequest) async throws -> JSONValue {
        let file = command.file
        return try await writes.once(request.id) { db, _ in
            let files = try Self.busyFiles(in: db)
            guard files.contains(where: { $0.file == file }) else {
                if let url = try? BusySubscription.normalised(file), try Self.busySource(url, in: db) != nil {
                    throw CommandError.invalidArgument(
                        "file", "\(BusySubscription.shown(url)) is subscribed to: hearth plan busy unsubscribe URL")
                }
                let known =
                    files.isEmpty ? "none is imported" : "imported: " + files.map(\.file).joined(separator: ", ")
                throw CommandError(code: "not_found", message: "'file': no imported calendar '\(file)' (\(known))")
            }
            try db.execute(sql: "DELETE FROM social_busy WHERE file = ?", arguments: [file])
            return try JSONValue(reply: BusyRemoved(file: file, removed: db.changesCount))
        }
    }

    func clearBusy(_ request: CommandRequest) async throws -> JSONValue {
        try await writes.once(request.id) { db, _ in
            try db.execute(sql: "DELETE FROM social_busy")
            return try JSONValue(reply: BusyCleared(cleared: db.changesCount))
        }
    }

    // MARK: - Export

    /// The check-ins from 30 days ago on as iCalendar text: one VEVENT each, UID from the
    /// check-in's id, SEQUENCE its number of changes (so a re-export updates), moved or cancelled
    /// ones as CANCELLED.
    func exportPlan(_ command: PlanCommands.Export) async throws -> JSONValue {
        let now = try now(command.now)
        return try await database.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT i.*, p.name,
                        (SELECT COUNT(*) FROM operation WHERE entity_kind = 'plan_item' AND entity_id = i.id) AS changes
                    FROM plan_item AS i LEFT JOIN person AS p ON p.id = i.person
                    WHERE i.start >= ? ORDER BY i.start, i.id
                    """, arguments: [Self.milliseconds(now) - 30 * 86_400_000])
            let events = rows.map { row in
                let start = Date(milliseconds: row["start"])
                let status = Social.Status(rawValue: row["status"]) ?? .pending
                return CalendarExport.Event(
                    uid: "\(row["id"] as String)@hearth",
                    summary: "Catch up with \((row["name"] as String?) ?? "someone")",
                    start: start, end: start.addingTimeInterval(Double(row["duration"] as Int) * 60),
                    cancelled: !status.holdsTime, sequence: max(0, (row["changes"] as Int) - 1),
                    description: status == .done ? "Done" : nil)
            }
            return try JSONValue(
                reply: PlanExport(
                    ics: CalendarExport.text(events, stamp: now, name: "Hearth check-ins"), events: events.count))
        }
    }

    // MARK: - Reminders

    /// The pending check-ins whose reminder may still come (ending after `now`), with the lead
    /// time and whether this device raised each reminder already.
    func planSources(_ command: PlanCommands.Sources) async throws -> JSONValue {
        let now = try now(command.now)
        return try await database.pool.read { db in
            let preferences = try Self.preferences(in: db)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT i.id, i.start, a.fired_start FROM plan_item AS i
                    LEFT JOIN plan_alert AS a ON a.item = i.id
                    WHERE i.status = 'pending' AND i.start + i.duration * 60000 > ? ORDER BY i.start LIMIT 2000
                    """, arguments: [Self.milliseconds(now)])
            return try JSONValue(
                reply: PlanSources(
                    lead: preferences.lead, refresh: preferences.refresh.description,
                    quiet: "\(preferences.quietStart.short)-\(preferences.quietEnd.short)",
                    items: try rows.compactMap { row in
                        guard var item = try Self.item(row["id"], in: db) else { return nil }
                        item.startMs = row["start"]
                        item.fired = (row["fired_start"] as Int64?) == (row["start"] as Int64)
                        return item
                    }))
        }
    }

    /// Records that the reminders of `items` (each `{item, start}`) were raised.
    func recordPlanAlert(_ command: PlanCommands.Record, _ request: CommandRequest) async throws -> JSONValue {
        let records = try command.items.map { raised -> (String, Int64) in
            guard Social.instantRange.contains(raised.start) else {
                throw CommandError.invalidArgument("items", "each must be {item, start (milliseconds)}")
            }
            return (raised.item, raised.start)
        }
        return try await writes.once(request.id) { db, _ in
            for (item, start) in records {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO plan_alert (item, fired_start) VALUES (?, ?)",
                    arguments: [item, start])
            }
            return try JSONValue(reply: PlanAlertsRecorded(recorded: records.count))
        }
    }
}
