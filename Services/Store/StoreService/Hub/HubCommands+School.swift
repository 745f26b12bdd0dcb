import Foundation
import GRDB
import HearthBus
import HearthCore

/// The school's calendar, shared by every member: the Week-1 start date, bell times, manual week
/// overrides and holidays. Only a parent's profile (or a device with none) changes them.
extension HubCommands {
    /// Sets the Week-1 start date.
    func configureTimetable(_ command: SchoolCommands.Configure, _ request: CommandRequest) async throws -> JSONValue {
        let start = try StoreCommands.date(command.week1Start, field: "week1_start")
        return try await writes.once(request.id) { db, outbox in
            try Self.requireParent(to: "change the school's settings", in: db)
            try commit(
                EntityRef(kind: Hub.settingsKind, id: Hub.settingsID), ["week1_start": .text(start.description)],
                in: db, outbox: outbox)
            return try JSONValue(reply: try Self.settings(in: db))
        }
    }

    func timetableSettings() async throws -> JSONValue {
        try await database.pool.read { db in try JSONValue(reply: try Self.settings(in: db)) }
    }

    /// Sets bell times from `bells`, a list of `PERIOD=HH:MM-HH:MM` (`AM Registration=08:40-09:00`,
    /// `1=09:00-10:00`…); periods not named keep theirs.
    func setBells(_ command: SchoolCommands.Bells, _ request: CommandRequest) async throws -> JSONValue {
        let items = command.bells
        guard !items.isEmpty, items.count <= 7 else {
            throw CommandError.invalidArgument("bells", "must be a list of 1–7 'PERIOD=HH:MM-HH:MM'")
        }
        var bells: [(period: Period, start: LocalTime, end: LocalTime)] = []
        for (index, text) in items.enumerated() {
            let field = "bells[\(index)]"
            let parsed = try check { () throws(RuleError) in try Self.bell(text, field: field) }
            if bells.contains(where: { $0.period == parsed.period }) {
                throw CommandError.invalidArgument(field, "names \(parsed.period.name) a second time")
            }
            bells.append(parsed)
        }
        bells.sort { $0.period < $1.period }
        for (earlier, later) in zip(bells, bells.dropFirst()) where later.start < earlier.end {
            throw CommandError.invalidArgument(
                "bells",
                "\(later.period.name) must not start (\(later.start.short)) before \(earlier.period.name) ends (\(earlier.end.short))"
            )
        }
        let checked = bells
        return try await writes.once(request.id) { db, outbox in
            try Self.requireParent(to: "change the bell times", in: db)
            for bell in checked {
                try commit(
                    EntityRef(kind: Hub.bellKind, id: bell.period.code),
                    ["start": .text(bell.start.description), "end": .text(bell.end.description)], in: db,
                    outbox: outbox)
            }
            return try JSONValue(reply: try Self.settings(in: db))
        }
    }

    /// One `PERIOD=HH:MM-HH:MM`.
    static func bell(
        _ text: String, field: String
    ) throws(RuleError) -> (period: Period, start: LocalTime, end: LocalTime) {
        guard let equals = text.lastIndex(of: "=") else {
            throw RuleError(field: field, rule: "must be PERIOD=HH:MM-HH:MM, got '\(text)'")
        }
        let period = try Period(parsing: String(text[..<equals]), field: field)
        let times = text[text.index(after: equals)...].split(separator: "-", omittingEmptySubsequences: false)
        guard times.count == 2 else { throw RuleError(field: field, rule: "must be PERIOD=HH:MM-HH:MM, got '\(text)'") }
        let start = try LocalTime(parsing: times[0].trimmingCharacters(in: .whitespaces), field: field)
        let end = try LocalTime(parsing: times[1].trimmingCharacters(in: .whitespaces), field: field)
        guard start < end else {
            throw RuleError(field: field, rule: "must end after it starts, got \(start.short)-\(end.short)")
        }
        return (period, start, end)
    }

    /// Makes `week` the rotation week from `from` to `to` (`SchoolCalendar` says how).
    func overrideWeek(_ command: SchoolCommands.Override, _ request: CommandRequest) async throws -> JSONValue {
        let week = command.week
        guard (1...2).contains(week) else { throw CommandError.invalidArgument("week", "must be 1 or 2, got \(week)") }
        let (from, to) = try Self.range(command.from, command.to)
        return try await writes.once(request.id) { db, outbox in
            try Self.requireParent(to: "override the rotation", in: db)
            try commit(
                EntityRef(kind: Hub.overrideKind, id: UUIDText.make()),
                ["week": .int(Int64(week)), "from": .text(from.description), "to": .text(to.description)], in: db,
                outbox: outbox)
            return try JSONValue(reply: try Self.settings(in: db))
        }
    }

    /// Removes the overrides that touch `from`–`to`, or every override when no range is given.
    func clearOverrides(_ command: SchoolCommands.ClearOverrides, _ request: CommandRequest) async throws -> JSONValue {
        let range = command.from == nil && command.to == nil ? nil : try Self.range(command.from, command.to)
        return try await writes.once(request.id) { db, outbox in
            try Self.requireParent(to: "override the rotation", in: db)
            let ids = try String.fetchAll(
                db, sql: #"SELECT id FROM week_override WHERE "to" >= ? AND "from" <= ?"#,
                arguments: [range?.from.description ?? "0000", range?.to.description ?? "9999"])
            for id in ids {
                try commit(EntityRef(kind: Hub.overrideKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
            }
            var settings = try Self.settings(in: db)
            settings.cleared = ids.count
            return try JSONValue(reply: settings)
        }
    }

    func addHoliday(_ command: SchoolCommands.AddHoliday, _ request: CommandRequest) async throws -> JSONValue {
        let (from, to) = try Self.range(command.from, command.to)
        let nameText = command.name
        let name = try check { () throws(RuleError) in
            try Hub.optional(nameText, field: "name", maximumLength: Hub.maximumNameLength)
        }
        let entity = EntityRef(kind: Hub.holidayKind, id: UUIDText.make())
        return try await writes.once(request.id) { db, outbox in
            try Self.requireParent(to: "change the school's holidays", in: db)
            var values: [String: FieldValue] = ["from": .text(from.description), "to": .text(to.description)]
            if let name { values["name"] = .text(name) }
            try commit(entity, values, in: db, outbox: outbox)
            return try JSONValue(reply: HolidayAdded(holiday: try Self.holidays(in: db).first { $0.id == entity.id }))
        }
    }

    func removeHoliday(_ command: SchoolCommands.RemoveHoliday, _ request: CommandRequest) async throws -> JSONValue {
        let given = command.holiday
        return try await writes.once(request.id) { db, outbox in
            try Self.requireParent(to: "change the school's holidays", in: db)
            let id =
                try String.fetchOne(
                    db, sql: "SELECT id FROM school_holiday WHERE lower(name) = lower(?) LIMIT 1", arguments: [given])
                ?? StoreCommands.uniqueID(given, table: "school_holiday", what: "holiday", field: "holiday", in: db)
            return try commit(
                EntityRef(kind: Hub.holidayKind, id: id), ["deleted": .bool(true)], in: db, outbox: outbox)
        }
    }

    func listHolidays() async throws -> JSONValue {
        try await database.pool.read { db in try JSONValue(reply: HolidayList(holidays: try Self.holidays(in: db))) }
    }

    // MARK: - Reading

    /// `from` and `to`, both required, `to` not before `from`.
    /// `from` and `to` as given, both required, `to` not before `from`.
    static func range(_ fromText: String?, _ toText: String?) throws -> (from: LocalDate, to: LocalDate) {
        guard let fromText else { throw CommandError.invalidArgument("from", "is required") }
        guard let toText else { throw CommandError.invalidArgument("to", "is required") }
        let (from, to) = (try StoreCommands.date(fromText, field: "from"), try StoreCommands.date(toText, field: "to"))
        guard from <= to else {
            throw CommandError.invalidArgument("to", "must not be before 'from' \(from), got \(to)")
        }
        return (from, to)
    }

    static func settings(in db: Database) throws -> SchoolSettings {
        let start = try String.fetchOne(db, sql: "SELECT week1_start FROM timetable_settings WHERE id = 'school'")
        let bells = try Self.bells(in: db)
        let overrides = try Row.fetchAll(db, sql: #"SELECT * FROM week_override ORDER BY "from", id"#).map { row in
            WeekOverrideView(id: row["id"], week: row["week"], from: row["from"], to: row["to"])
        }
        return SchoolSettings(
            week1Start: start,
            bells: Period.allCases.compactMap { period in
                bells[period].map {
                    BellView(period: period.name, code: period.code, start: $0.start.short, end: $0.end.short)
                }
            },
            overrides: overrides, holidays: try holidays(in: db))
    }

    static func holidays(in db: Database) throws -> [HolidayView] {
        try Row.fetchAll(db, sql: #"SELECT * FROM school_holiday ORDER BY "from", id"#).map { row in
            HolidayView(id: row["id"], name: row["name"], from: row["from"], to: row["to"])
        }
    }

    static func bells(in db: Database) throws -> Bells {
        var bells: Bells = [:]
        for row in try Row.fetchAll(db, sql: #"SELECT period, start, "end" FROM school_bell"#) {
            guard let period = Period(rawValue: row["period"]),
                let start = (row["start"] as String?).flatMap({ try? LocalTime(parsing: $0, field: "start") }),
                let end = (row["end"] as String?).flatMap({ try? LocalTime(parsing: $0, field: "end") })
            else { continue }
            bells[period] = (start, end)
        }
        return bells
    }

    /// The school's calendar; `nil` until the Week-1 start is set.
    static func schoolCalendar(in db: Database) throws -> SchoolCalendar? {
        guard let text = try String.fetchOne(db, sql: "SELECT week1_start FROM timetable_settings WHERE id = 'school'"),
            let start = try? LocalDate(parsing: text, field: "week1_start")
        else { return nil }
        let overrides = try Row.fetchAll(db, sql: #"SELECT week, "from", "to" FROM week_override"#).compactMap {
            row -> SchoolCalendar.Override? in
            guard let from = try? LocalDate(parsing: row["from"], field: "from"),
                let to = try? LocalDate(parsing: row["to"], field: "to")
            else { return nil }
            return SchoolCalendar.Override(week: row["week"], from: from, to: to)
        }
        let holidays = try Row.fetchAll(db, sql: #"SELECT name, "from", "to" FROM school_holiday"#).compactMap {
            row -> SchoolCalendar.Holiday? in
            guard let from = try? LocalDate(parsing: row["from"], field: "from"),
                let to = try? LocalDate(parsing: row["to"], field: "to")
            else { return nil }
            return SchoolCalendar.Holiday(name: row["name"], from: from, to: to)
        }
        return SchoolCalendar(week1Start: start, overrides: overrides, holidays: holidays)
    }
}
