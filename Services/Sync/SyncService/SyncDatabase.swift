import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost
import HearthPairing

/// `$HEARTH_HOME/sync.sqlite`, `hearth-sync`'s own durable state (household data stays in the
/// store): the devices this one paired with, each pinned to the CURVE key confirmed at pairing,
/// and the sync log (SPEC part 1).
///
/// A device id is bound to its key: a pairing of a known id with another key is refused, and a
/// forgotten device stays in the table, refused, so its key can never come back without a new
/// pairing. Connections are judged by `PairedKeys`, the in-memory copy loaded from `peers()`.
final class SyncDatabase: Sendable {
    let queue: DatabaseQueue

    /// A paired (or forgotten) device.
    struct Peer: Equatable, Sendable {
        let device: String
        let name: String
        let key: String
        let fingerprint: String
        let pairedAt: Date
        let forgottenAt: Date?
        let lastSyncAt: Date?
        let endpoint: String?
        /// Set when the other device forgot this one and said so: its name, as known here.
        var removedBy: String? = nil
        /// How far its clock was ahead of this device's (negative: behind) when last measured, in
        /// milliseconds, and when (each sync measures it, a refused one too).
        var clockOffsetMilliseconds: Int64? = nil
        var clockMeasuredAt: Date? = nil
    }

    /// One line of the sync log.
    struct Entry: Equatable, Sendable {
        enum Outcome: String, Sendable {
            case completed, failed, refused
        }

        var at: Date
        var peer: String
        var peerName: String
        var outcome: Outcome
        var received = 0
        var sent = 0
        var conflicts = 0
        /// How conflicts were settled (`kept both, latest shown`), empty when there were none.
        var resolution = ""
        var bytes = 0
        var duration: Duration = .zero
        var detail = ""
        /// Operations this device refused of the peer's (not kept: the detail says so in words).
        var refused = Refusals()
        /// The peer did not answer, or said this device is not paired (not kept): was it
        /// forgotten there?
        var unanswered = false
        /// The peer's clock against this device's, measured as the sync began (not kept in the
        /// log: the peer's row keeps the latest).
        var clockOffsetMilliseconds: Int64? = nil
    }

    /// Opens (creating with mode 0600) and migrates the database at `path`.
    init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw SyncDatabaseError.file(path, String(cString: strerror(errno))) }
            close(fd)
        }
        PrivateFile.tighten(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: peers and the sync log") { db in
            try db.create(table: "peer") { table in
                table.primaryKey("device", .text)
                table.column("name", .text).notNull()
                table.column("key", .text).notNull().unique()
                table.column("fingerprint", .text).notNull()
                table.column("paired_at", .double).notNull()
                table.column("forgotten_at", .double)
                table.column("last_sync_at", .double)
                table.column("endpoint", .text)
            }
            try db.create(table: "sync_log") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("at", .double).notNull()
                table.column("peer", .text).notNull()
                table.column("peer_name", .text).notNull()
                table.column("outcome", .text).notNull()
                table.column("received", .integer).notNull()
                table.column("sent", .integer).notNull()
                table.column("conflicts", .integer).notNull()
                table.column("resolution", .text).notNull()
                table.column("bytes", .integer).notNull()
                table.column("duration_ms", .double).notNull()
                table.column("detail", .text).notNull()
            }
            try db.create(index: "sync_log_peer", on: "sync_log", columns: ["peer", "at"])
        }
        migrator.registerMigration("peers removed by the other side") { db in
            // A device that forgot this one tells it (`pair.forgotten`, or `pair.status` asked at
            // the next failed sync): forgotten here too, and shown as removed by it.
            try db.alter(table: "peer") { table in table.add(column: "removed_by", .text) }
        }
        migrator.registerMigration("peers' clock offsets") { db in
            // Measured at each sync, for `hearth doctor`'s clock check.
            try db.alter(table: "peer") { table in
                table.add(column: "clock_offset_ms", .integer)
                table.add(column: "clock_measured_at", .double)
            }
        }
        try migrator.migrate(queue)
    }

    // MARK: - Peers

    /// Pins `key` to `device` after a confirmed pairing. Pairing a forgotten device again (with
    /// any key) is a new pairing; a paired device with another key is refused.
    /// - Throws: `SyncDatabaseError.keyMismatch` for a paired id with another key,
    ///   `.keyTaken` for a key already pinned to another device.
    func pair(device: String, name: String, key: String, at date: Date) async throws {
        try await queue.write { db in
            if let existing = try Row.fetchOne(
                db, sql: "SELECT key, forgotten_at FROM peer WHERE device = ?", arguments: [device]),
                (existing["forgotten_at"] as Double?) == nil, existing["key"] != key
            {
                throw SyncDatabaseError.keyMismatch(device: device)
            }
            if let owner = try String.fetchOne(
                db, sql: "SELECT device FROM peer WHERE key = ? AND device <> ?", arguments: [key, device])
            {
                throw SyncDatabaseError.keyTaken(device: owner)
            }
            try db.execute(
                sql: """
                    INSERT INTO peer (device, name, key, fingerprint, paired_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(device) DO UPDATE SET name = excluded.name, key = excluded.key,
                        fingerprint = excluded.fingerprint, paired_at = excluded.paired_at, forgotten_at = NULL,
                        removed_by = NULL
                    """,
                arguments: [device, name, key, Pairing.fingerprint(key), date.timeIntervalSince1970])
        }
    }

    /// Forgets `device`: refused from now on; what it sent stays in the store.
    /// - Parameter removedBy: the device's name when it forgot this one first and said so.
    /// - Returns: whether a paired device was forgotten.
    @discardableResult
    func forget(_ device: String, at date: Date, removedBy: String? = nil) async throws -> Bool {
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE peer SET forgotten_at = ?, removed_by = ? WHERE device = ? AND forgotten_at IS NULL",
                arguments: [date.timeIntervalSince1970, removedBy, device])
            return db.changesCount > 0
        }
    }

    /// The device `key` belongs to, paired or forgotten here (forgotten: it asks whether it
    /// still is paired).
    func anyDevice(forKey key: String) async throws -> Peer? {
        try await queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM peer WHERE key = ?", arguments: [key]).map(Self.peer)
        }
    }

    /// The paired device holding `key`, if any (a forgotten one is not).
    func device(forKey key: String) async throws -> Peer? {
        try await queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM peer WHERE key = ? AND forgotten_at IS NULL", arguments: [key])
                .map(Self.peer)
        }
    }

    /// Every device paired or forgotten, by name.
    func peers() async throws -> [Peer] {
        try await queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM peer ORDER BY lower(name), device").map(Self.peer)
        }
    }

    func noteSynced(_ device: String, at date: Date, endpoint: String?) async throws {
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE peer SET last_sync_at = ?, endpoint = coalesce(?, endpoint) WHERE device = ?",
                arguments: [date.timeIntervalSince1970, endpoint, device])
        }
    }

    /// Keeps the latest measure of `device`'s clock against this one's.
    func noteClock(_ device: String, offsetMilliseconds: Int64, at date: Date) async throws {
        try await queue.write { db in
            try db.execute(
                sql: "UPDATE peer SET clock_offset_ms = ?, clock_measured_at = ? WHERE device = ?",
                arguments: [offsetMilliseconds, date.timeIntervalSince1970, device])
        }
    }

    private static func peer(_ row: Row) -> Peer {
        Peer(
            device: row["device"], name: row["name"], key: row["key"], fingerprint: row["fingerprint"],
            pairedAt: Date(timeIntervalSince1970: row["paired_at"]),
            forgottenAt: (row["forgotten_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastSyncAt: (row["last_sync_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            endpoint: row["endpoint"], removedBy: row["removed_by"], clockOffsetMilliseconds: row["clock_offset_ms"],
            clockMeasuredAt: (row["clock_measured_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: - The sync log

    func log(_ entry: Entry) async throws {
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sync_log
                        (at, peer, peer_name, outcome, received, sent, conflicts, resolution, bytes, duration_ms, detail)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entry.at.timeIntervalSince1970, entry.peer, entry.peerName, entry.outcome.rawValue, entry.received,
                    entry.sent, entry.conflicts, entry.resolution, entry.bytes,
                    Double(entry.duration.components.seconds) * 1000 + Double(entry.duration.components.attoseconds)
                        / 1e15,
                    entry.detail,
                ])
        }
    }

    /// The log, newest first: of one device, since a time, at most `limit` lines.
    func entries(device: String? = nil, since: Date? = nil, limit: Int = 100) async throws -> [Entry] {
        try await queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM sync_log WHERE (?1 IS NULL OR peer = ?1) AND (?2 IS NULL OR at >= ?2)
                    ORDER BY at DESC, id DESC LIMIT ?3
                    """, arguments: [device, since?.timeIntervalSince1970, limit]
            )
            .map { row in
                Entry(
                    at: Date(timeIntervalSince1970: row["at"]), peer: row["peer"], peerName: row["peer_name"],
                    outcome: Entry.Outcome(rawValue: row["outcome"]) ?? .failed, received: row["received"],
                    sent: row["sent"], conflicts: row["conflicts"], resolution: row["resolution"], bytes: row["bytes"],
                    duration: .milliseconds(Int64((row["duration_ms"] as Double).rounded())), detail: row["detail"])
            }
        }
    }
}

/// Why the sync database refused a change.
enum SyncDatabaseError: Error, Equatable, CustomStringConvertible {
    case file(String, String)
    case keyMismatch(device: String)
    case keyTaken(device: String)

    var description: String {
        switch self {
        case .file(let path, let reason): "\(path): \(reason)"
        case .keyMismatch(let device):
            "device \(device) is paired with another key: forget it first to pair it again"
        case .keyTaken(let device): "that key is already paired as device \(device)"
        }
    }
}
