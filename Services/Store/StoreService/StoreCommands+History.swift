import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTrust

extension StoreCommands {
    // MARK: - History

    /// Every change to event cards, chronological within each month, months in calendar order,
    /// each with its device, time, and previous → new title, location and day.
    func history(_ command: HistoryCommands.History) async throws -> JSONValue {
        let (year, month) = (command.year, command.month)
        if let month, !(1...12).contains(month) {
            throw CommandError.invalidArgument("month", "must be 1–12, got \(month)")
        }
        let device = command.device
        let since = try command.since.map { try Self.instant($0, field: "since") }
        let until = try command.until.map { try Self.instant($0, field: "until", endOfDay: true) }
        return try await database.pool.read { db in
            let devices = try Self.deviceNames(in: db)
            if let device, !devices.contains(where: { Self.matches(device, id: $0.key, name: $0.value) }) {
                throw CommandError(
                    code: "not_found",
                    message: "device: no device '\(device)' (known: \(devices.values.sorted().joined(separator: ", ")))"
                )
            }
            var pattern = "%"
            if let year, let month {
                pattern = YearPlanner.entity(year: year, month: month).id
            } else if let year {
                pattern = "\(year)-%"
            } else if let month {
                pattern = "%-\(month < 10 ? "0" : "")\(month)"
            }
            let records = try OperationRecord.fetchAll(
                db,
                sql:
                    "SELECT * FROM operation WHERE entity_kind = ? AND entity_id LIKE ? ORDER BY wall, logical, device",
                arguments: [YearPlanner.entityKind, pattern])
            var byID: [OperationID: Operation] = [:]
            let operations = try records.map { try $0.operation }
            for operation in operations { byID[operation.id] = operation }
            var groups: [String: [HistoryEntry]] = [:]
            for operation in operations {
                if let since, operation.time.wall < since { continue }
                if let until, operation.time.wall > until { continue }
                let name = devices[operation.author] ?? String(operation.author.prefix(8))
                if let device, !Self.matches(device, id: operation.author, name: name) { continue }
                var changes: [String: HistoryEntry.FieldChange] = [:]
                for field in ["title", "location", "day"] {
                    guard let write = operation.fields[field] else { continue }
                    let previous = write.overwrites.sorted().compactMap { byID[$0]?.fields[field]?.value.fieldJSON }
                    changes[field] = HistoryEntry.FieldChange(
                        from: previous.count == 1 ? previous[0] : (previous.isEmpty ? .null : .list(previous)),
                        to: write.value.fieldJSON)
                }
                groups[operation.entity.id, default: []].append(
                    HistoryEntry(
                        op: operation.id.description, kind: nil, entity: nil, device: operation.author,
                        deviceName: name, time: Timestamp.format(Date(milliseconds: operation.time.wall)),
                        changes: changes))
            }
            let months = groups.keys.sorted().compactMap { id -> PlannerHistory.Month? in
                guard let (year, month) = YearPlanner.yearAndMonth(of: EntityRef(kind: YearPlanner.entityKind, id: id))
                else { return nil }
                return PlannerHistory.Month(
                    year: year, month: month, monthName: YearPlanner.monthName(month), changes: groups[id] ?? [])
            }
            return try JSONValue(reply: PlannerHistory(months: months))
        }
    }

    /// Every operation on `entities` (any domain's), oldest first, each with its device, time,
    /// and per field the previous value(s) → the new one: the history of one todo, one person….
    static func entityHistory(_ entities: [EntityRef], in db: Database) throws -> [HistoryEntry] {
        let devices = try deviceNames(in: db)
        var operations: [Operation] = []
        for entity in entities {
            operations += try OperationRecord.fetchAll(
                db, sql: "SELECT * FROM operation WHERE entity_kind = ? AND entity_id = ?",
                arguments: [entity.kind, entity.id]
            ).map { try $0.operation }
        }
        let byID = Dictionary(operations.map { ($0.id, $0) }) { first, _ in first }
        return operations.sorted { ($0.time, $0.id) < ($1.time, $1.id) }.map { operation in
            var changes: [String: HistoryEntry.FieldChange] = [:]
            for (field, write) in operation.fields {
                let previous = write.overwrites.sorted().compactMap { byID[$0]?.fields[field]?.value.fieldJSON }
                changes[field] = HistoryEntry.FieldChange(
                    from: previous.count == 1 ? previous[0] : (previous.isEmpty ? .null : .list(previous)),
                    to: write.value.fieldJSON)
            }
            return HistoryEntry(
                op: operation.id.description, kind: operation.entity.kind, entity: operation.entity.id,
                device: operation.author,
                deviceName: devices[operation.author] ?? String(operation.author.prefix(8)),
                time: Timestamp.format(Date(milliseconds: operation.time.wall)), changes: changes)
        }
    }

    /// A time filter: an ISO 8601 time, or a date (`2026-08-01`) meaning its start, or with
    /// `endOfDay` its end.
    static func instant(_ text: String, field: String, endOfDay: Bool = false) throws -> Int64 {
        if let date = Timestamp.parse(text) { return Int64(date.timeIntervalSince1970 * 1000) }
        if text.count == 10, let date = Timestamp.parse(text + "T00:00:00.000Z") {
            return Int64(date.timeIntervalSince1970 * 1000) + (endOfDay ? 86_400_000 - 1 : 0)
        }
        throw CommandError.invalidArgument(
            field, "must be a date such as 2026-08-01 or an ISO 8601 time, got '\(text)'")
    }

    static func matches(_ query: String, id: String, name: String) -> Bool {
        name.caseInsensitiveCompare(query) == .orderedSame || id.hasPrefix(query.lowercased())
    }

    /// A device's current name (its `device` entity's, which travels), or its id's first eight
    /// characters when it never named itself here.
    static func deviceName(_ id: String?, in db: Database) throws -> JSONValue {
        guard let id else { return .null }
        let name = try String.fetchOne(
            try db.cachedStatement(sql: "SELECT name FROM device WHERE id = ?"), arguments: [id])
        return .string(name ?? String(id.prefix(8)))
    }

    static func deviceNames(in db: Database) throws -> [String: String] {
        var names: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM device") { names[row["id"]] = row["name"] }
        return names
    }

    // MARK: - Conflicts

    func conflicts() async throws -> JSONValue {
        try await database.pool.read { db in
            let devices = try Self.deviceNames(in: db)
            let entities = try Row.fetchAll(
                db, sql: "SELECT entity_kind, entity_id FROM conflict ORDER BY entity_kind, entity_id")
            var list: [ConflictList.Conflict] = []
            for row in entities {
                let entity = EntityRef(kind: row[0], id: row[1])
                let log = try StoreDatabase.log(of: entity, in: db)
                for conflict in log.conflicts {
                    list.append(
                        ConflictList.Conflict(
                            id: "\(entity.id)/\(conflict.field)", entity: entity.id, kind: entity.kind,
                            field: conflict.field, shown: conflict.state.value.fieldJSON,
                            values: conflict.state.heads.map { head in
                                .init(
                                    op: head.id.description, value: head.value.fieldJSON, device: head.id.device,
                                    deviceName: devices[head.id.device] ?? String(head.id.device.prefix(8)),
                                    time: Timestamp.format(Date(milliseconds: head.time.wall)))
                            }, name: try UndoLog.name(of: entity, in: db)))
                }
            }
            return try JSONValue(reply: ConflictList(conflicts: list))
        }
    }

    /// Resolves a conflict by writing the kept value over every competing one. `keep` is an
    /// operation id, a device name or id prefix (that device's value), or a value itself.
    func resolveConflict(_ requestID: String, _ command: HistoryCommands.Resolve) async throws -> JSONValue {
        let (id, keep) = (command.id, command.keep)
        let parts = id.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else {
            throw CommandError.invalidArgument("id", "must be a conflict id such as 2026-08/title")
        }
        let field = parts[1]
        return try await writes.once(requestID) { db, outbox in
            // The entity's kind, whatever its domain, from the open conflicts; an id may be
            // shortened to its start (8 characters, as `conflicts` shows a todo's), if one matches.
            var rows = try Row.fetchAll(
                db, sql: "SELECT entity_kind, entity_id FROM conflict WHERE entity_id = ?", arguments: [parts[0]])
            if rows.isEmpty && parts[0].count >= 4 {
                rows = try Row.fetchAll(
                    db, sql: "SELECT entity_kind, entity_id FROM conflict WHERE substr(entity_id, 1, ?) = ?",
                    arguments: [parts[0].count, parts[0]])
            }
            guard rows.count == 1, let row = rows.first else {
                throw rows.isEmpty
                    ? CommandError(code: "not_found", message: "there is no open conflict \(id)")
                    : CommandError.invalidArgument(
                        "id", "'\(parts[0])' starts \(rows.count) conflicts' ids: give more of it")
            }
            let entity = EntityRef(kind: row["entity_kind"], id: row["entity_id"])
            let log = try StoreDatabase.log(of: entity, in: db)
            guard let state = log.field(entity, field), state.isConflict else {
                throw CommandError(code: "not_found", message: "there is no open conflict \(id)")
            }
            let devices = try Self.deviceNames(in: db)
            // One of the values in conflict, named by its operation, its device, or itself;
            // anything else is refused (a new value is an ordinary edit, not a resolution).
            guard
                let head = state.heads.first(where: { $0.id.description == keep })
                    ?? state.heads.first(where: {
                        Self.matches(keep, id: $0.id.device, name: devices[$0.id.device] ?? "")
                    })
                    ?? state.heads.first(where: { $0.value.description == keep })
                    // A time as people type it: 07:30 for 07:30:00.
                    ?? state.heads.first(where: { $0.value.description == keep + ":00" })
            else {
                let choices = state.heads.map { "\($0.id) (\(devices[$0.id.device] ?? "?"): \($0.value))" }
                throw CommandError.invalidArgument(
                    "keep",
                    "names no value in the conflict \(id); give one of its operations, devices or values: "
                        + choices.joined(separator: ", "))
            }
            let chosen = head.value
            let reply = try commit(entity, [field: chosen], in: db, outbox: outbox)
            return reply.merging(["kept": chosen.json, "name": .string(try UndoLog.name(of: entity, in: db))])
        }
    }

    // MARK: - Devices

    func devices() async throws -> JSONValue {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT device.*, device_key.key AS signing_key, device_key.vouched_by, device_key.revoked_after,
                           \(TrustedKeys.conflictColumns)
                    FROM device LEFT JOIN device_key ON device_key.device = device.id
                    LEFT JOIN device_key_conflict AS c ON c.device = device.id
                    ORDER BY is_local DESC, name
                    """)
            return try JSONValue(
                reply: DeviceList(
                    devices: rows.map { row in
                        DeviceList.Device(
                            id: row["id"], name: row["name"], local: row["is_local"], lastSyncAt: row["last_sync_at"],
                            firstSeenAt: row["first_seen_at"],
                            // The key its operations are verified with, as people compare it, and
                            // the device that vouched for it (itself for this one).
                            signingKey: TrustedKeys.fingerprint(row["signing_key"]), vouchedBy: row["vouched_by"],
                            keyConflict: TrustedKeys.keyConflict(in: row), revokedAfter: row["revoked_after"])
                    }))
        }
    }

    /// Notes when this device last synced with `id` (from `hearth-sync`): this device's own
    /// knowledge, kept beside the device's row, never an operation.
    func deviceSynced(_ command: DeviceCommands.Synced) async throws -> JSONValue {
        let (id, text) = (command.id, command.at)
        guard DeviceID.isValid(id) else {
            throw CommandError.invalidArgument("id", "must be a device id (a lower-case UUID)")
        }
        guard Timestamp.parse(text) != nil else {
            throw CommandError.invalidArgument("at", "must be a time such as 2026-11-23T09:00:00Z")
        }
        let changed = try await database.pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (id, name, is_local, first_seen_at, last_sync_at) VALUES (?, ?, 0, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET last_sync_at = excluded.last_sync_at
                    """, arguments: [id, "Device \(id.prefix(8))", text, text])
            return db.changesCount
        }
        return try JSONValue(reply: DeviceSynced(id: id, lastSyncAt: text, changed: changed > 0))
    }

    /// Writes this device's current name (its host's, until renamed) as a `device` operation if
    /// none was ever written, so the name travels with sync like a rename does.
    func nameThisDeviceOnce() async throws {
        let local = database.localDevice
        _ = try await writes.once(UUIDText.make()) { db, outbox in
            let named =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM operation WHERE entity_kind = ? AND entity_id = ? LIMIT 1",
                    arguments: [Devices.kind, local]) ?? false
            guard !named,
                let name = try String.fetchOne(db, sql: "SELECT name FROM device WHERE id = ?", arguments: [local])
            else { return JSONValue.null }
            try commit(EntityRef(kind: Devices.kind, id: local), ["name": .text(name)], in: db, outbox: outbox)
            return JSONValue.null
        }
    }

    /// Names a device for the whole household: a `device` operation, so the name travels with
    /// sync to every device (the local one's too).
    func renameDevice(_ requestID: String, _ command: DeviceCommands.Rename) async throws -> JSONValue {
        let (id, given) = (command.id, command.name)
        guard !id.isEmpty else { throw CommandError.invalidArgument("id", "is required") }
        let name = try check { () throws(RuleError) in
            try TextRules.required(given, field: "name", maximumLength: Devices.maximumNameLength)
        }
        return try await writes.once(requestID) { db, outbox in
            let matches = try String.fetchAll(
                db, sql: "SELECT id FROM device WHERE id = ? OR id LIKE ? OR lower(name) = lower(?)",
                arguments: [id, id.lowercased() + "%", id])
            guard matches.count == 1 else {
                throw CommandError(
                    code: matches.isEmpty ? "not_found" : "ambiguous",
                    message: matches.isEmpty ? "no device '\(id)'" : "'\(id)' matches \(matches.count) devices")
            }
            try commit(EntityRef(kind: Devices.kind, id: matches[0]), ["name": .text(name)], in: db, outbox: outbox)
            return try JSONValue(reply: DeviceRenamed(id: matches[0], name: name))
        }
    }

    // MARK: - Backup

    /// Copies the live database to `path` with SQLite's online backup.
    func backup(_ command: ExchangeCommands.Backup) async throws -> JSONValue {
        let path = command.path
        guard path.hasPrefix("/") else {
            throw CommandError.invalidArgument("path", "is required and must be an absolute path")
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw CommandError.invalidArgument("path", "\(path) already exists; choose a new file")
        }
        let destination = try DatabaseQueue(path: path)
        // The backup's blocking SQLite calls run on GRDB's queues, never on the cooperative pool.
        let pool = database.pool
        try await destination.writeWithoutTransaction { target in
            try pool.read { source in try source.backup(to: target) }
        }
        try destination.close()
        chmod(path, 0o600)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return try JSONValue(reply: BackupWritten(path: path, bytes: Int(size)))
    }
}
