import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTrust

/// The signing keys this store verifies operations with, by device: `device_key`, where every
/// key was verified before it was stored (this device's own, or one a trusted device vouched for).
enum TrustedKeys {
    static func load(in db: Database) throws -> [String: SigningPublicKey] {
        var keys: [String: SigningPublicKey] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT device, key FROM device_key") {
            if let key = SigningPublicKey(text: row["key"]) { keys[row["device"]] = key }
        }
        return keys
    }

    /// How many keys each other device has vouched for (`Devices.maximumVouchesPerDevice`).
    static func vouchCounts(in db: Database, local: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT vouched_by, COUNT(*) AS n FROM device_key WHERE vouched_by != ? GROUP BY vouched_by",
            arguments: [local])
        {
            counts[row["vouched_by"]] = row["n"]
        }
        return counts
    }

    /// Each revoked device's revocation, and each device's newest pairing again (`after` nil): the
    /// newest by time wins, here and within a page.
    static func revocations(in db: Database) throws -> [String: ImportScreening.Revocation] {
        var revocations: [String: ImportScreening.Revocation] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT k.device, k.revoked_after, k.revoked_by, o.wall, o.logical FROM device_key k
                JOIN operation o ON o.id = k.revoked_op
                """)
        {
            let after: Int64? = row["revoked_after"]
            revocations[row["device"]] = ImportScreening.Revocation(
                after: after.map(UInt64.init), by: row["revoked_by"],
                time: HybridTime(wall: row["wall"], logical: row["logical"]))
        }
        return revocations
    }

    /// The columns `keyConflict(in:)` reads, joined as `c` on `device_key_conflict`.
    static let conflictColumns = """
        c.vouched_key AS conflict_vouched_key, c.vouched_by AS conflict_vouched_by,
        c.pinned_key AS conflict_pinned_key, c.at AS conflict_at
        """

    /// A key's fingerprint as people compare it (nil for none or an unreadable key).
    static func fingerprint(_ text: String?) -> String? { text.flatMap(SigningPublicKey.init(text:))?.fingerprint }

    /// The conflict a row selected with `conflictColumns` holds, if any.
    static func keyConflict(in row: Row) -> DeviceList.KeyConflict? {
        (row["conflict_at"] as String?).map { at in
            DeviceList.KeyConflict(
                vouchedFingerprint: fingerprint(row["conflict_vouched_key"]) ?? "unreadable",
                vouchedBy: row["conflict_vouched_by"] ?? "",
                pinnedFingerprint: fingerprint(row["conflict_pinned_key"]) ?? "unreadable", at: at)
        }
    }

    /// The devices whose key this device pinned itself (pairing, a fingerprint a person typed):
    /// no vouch, and no other pin, replaces those.
    static func pinned(in db: Database, local: String) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT device FROM device_key WHERE vouched_by = ?", arguments: [local]))
    }
}

extension StoreCommands {
    /// `device.trust {device, key, via}`: pins another device's signing key, learnt over a link
    /// its CURVE key authenticates (`via`: `pairing`, or `sync` for a device paired before
    /// signing) or confirmed by a person (`file`: a fingerprint compared by eye). The pin is a
    /// `device_key` operation by this device, so it also vouches for the key to every device that
    /// trusts this one.
    /// A pin beats a vouch: a key another device vouched for is replaced, and the conflict kept
    /// for `device.list` (a paired device could vouch for a key of its own making for a device
    /// this home had not met, then write in that device's name; the real device's pairing was
    /// refused: issue 62). A person's pin is never stopped by `Devices.maximumDevices`, which
    /// bounds vouches.
    /// - Returns: the device, its key's fingerprint and `pinned`: `new`, `known` when the key
    ///   was already trusted, or `replaced` (with `replaced_fingerprint`) over a vouched key.
    /// - Throws: `key_mismatch` when this device pinned another key for it (a reinstalled device
    ///   needs a new identity, or `device distrust` first).
    func trustDevice(_ requestID: String, _ command: DeviceCommands.Trust) async throws -> JSONValue {
        let device = command.device
        guard DeviceID.isValid(device) else {
            throw CommandError.invalidArgument("device", "must be a device id (a lower-case UUID)")
        }
        guard device != database.localDevice else {
            throw CommandError.invalidArgument("device", "is this device: its own key needs no vouching")
        }
        guard let key = SigningPublicKey(text: command.key) else {
            throw CommandError.invalidArgument("key", "must be a signing key: 32 bytes in base64 (44 characters)")
        }
        let via = command.via ?? "pairing"
        guard ["pairing", "sync", "file"].contains(via) else {
            throw CommandError.invalidArgument("via", "must be pairing, sync or file, got '\(via)'")
        }
        let local = database.localDevice
        return try await writes.once(requestID) { db, outbox in
            // How the key came is said for every pin but a key already known.
            func reply(_ pinned: String, replaced: String? = nil) throws -> JSONValue {
                try JSONValue(
                    reply: DeviceTrusted(
                        device: device, fingerprint: key.fingerprint, pinned: pinned,
                        via: pinned == "known" ? nil : via, replacedFingerprint: replaced))
            }
            if let known = try Row.fetchOne(
                db, sql: "SELECT key, vouched_by, revoked_after FROM device_key WHERE device = ?", arguments: [device])
            {
                let knownKey: String = known["key"]
                if knownKey == key.text {
                    guard (known["revoked_after"] as Int64?) != nil else { return try reply("known") }
                    try pin(device, key, in: db, outbox: outbox)
                    return try reply("restored")
                }
                let fingerprint = SigningPublicKey(text: knownKey)?.fingerprint ?? "unreadable"
                guard known["vouched_by"] as String != local else {
                    throw CommandError(
                        code: "key_mismatch",
                        message:
                            "device \(device.prefix(8)) offers signing key \(key.fingerprint), but this household knows it by \(fingerprint), pinned by this device: its operations are refused until that is settled (a reinstalled device needs a new identity, or hearth device distrust first)"
                    )
                }
                try pin(device, key, in: db, outbox: outbox)
                return try reply("replaced", replaced: fingerprint)
            }
            try pin(device, key, in: db, outbox: outbox)
            return try reply("new")
        }
    }

    /// Writes this device's pin of `key` for `device` (a `device_key` operation by this device,
    /// which also vouches for it to the devices that trust this one). A key another device
    /// vouched for is replaced, and the conflict kept for a person to see.
    func pin(_ device: String, _ key: SigningPublicKey, in db: Database, outbox: ChangeOutbox) throws {
        let known = try Row.fetchOne(
            db, sql: "SELECT key, vouched_by, revoked_after FROM device_key WHERE device = ?", arguments: [device])
        // Paired again after it was forgotten: its key is in force again, on every device.
        let revoked = (known?["revoked_after"] as Int64?) != nil
        // The conflict first, so that the change's event carries it (the notifier's popup).
        if let known, known["key"] as String != key.text { try replaceVouched(device, known, by: key, in: db) }
        try commit(
            EntityRef(kind: Devices.keyKind, id: device),
            ["key": .text(key.text)].merging(revoked ? ["revoked_after": .null] : [:]) { $1 }, in: db,
            outbox: outbox)
    }

    /// Keeps the conflict between the key another device vouched for (`known`) and `key`, pinned
    /// here, and puts the pin in the vouched key's place.
    private func replaceVouched(_ device: String, _ known: Row, by key: SigningPublicKey, in db: Database) throws {
        let local = database.localDevice
        let now = Timestamp.format(Date())
        try db.execute(
            sql: """
                INSERT INTO device_key_conflict (device, vouched_key, vouched_by, pinned_key, at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(device) DO UPDATE SET vouched_key = excluded.vouched_key,
                    vouched_by = excluded.vouched_by, pinned_key = excluded.pinned_key, at = excluded.at
                """, arguments: [device, known["key"] as String, known["vouched_by"] as String, key.text, now])
        // The key materialised from the log stays the first one (`DevicesDomain`): the pin, later
        // in the log and this device's own, takes its place.
        try db.execute(
            sql: "UPDATE device_key SET key = ?, vouched_by = ?, at = ? WHERE device = ?",
            arguments: [key.text, local, now, device])
    }

    /// `device.revoke {device}` (`hearth-sync` when a person forgets a paired device): its key is
    /// revoked for every operation after the last of its this device holds, by a `device_key`
    /// operation that travels like a vouch, so every device that trusts this one refuses what it
    /// makes from now on, relayed or from a file (issue 62). Pairing it again lifts it.
    /// - Returns: the device, `revoked` (false when no key of it is known: nothing it signs is
    ///   taken anyway), and `revoked_after` with its key's fingerprint.
    func revokeDevice(_ requestID: String, _ command: DeviceCommands.Revoke) async throws -> JSONValue {
        let device = command.device
        guard DeviceID.isValid(device) else {
            throw CommandError.invalidArgument("device", "must be a device id (a lower-case UUID)")
        }
        guard device != database.localDevice else {
            throw CommandError.invalidArgument("device", "is this device: its own key cannot be revoked here")
        }
        return try await writes.once(requestID) { [self] db, outbox in
            guard
                let key = try String.fetchOne(
                    db, sql: "SELECT key FROM device_key WHERE device = ?", arguments: [device])
            else {
                return try JSONValue(
                    reply: DeviceRevoked(device: device, revoked: false, revokedAfter: nil, fingerprint: nil))
            }
            let after =
                try Int64.fetchOne(db, sql: "SELECT MAX(counter) FROM operation WHERE device = ?", arguments: [device])
                ?? 0
            try commit(
                EntityRef(kind: Devices.keyKind, id: device), ["key": .text(key), "revoked_after": .int(after)],
                in: db, outbox: outbox)
            return try JSONValue(
                reply: DeviceRevoked(
                    device: device, revoked: true, revokedAfter: after,
                    fingerprint: SigningPublicKey(text: key)?.fingerprint))
        }
    }

    /// `device.distrust {device}`: forgets another device's signing key (one never met, vouched
    /// for by another device, or a squatted one): its operations are refused from now on, until
    /// a pairing or a trusted device's new vouch brings a key again. Operations already held stay.
    func distrustDevice(_ command: DeviceCommands.Distrust) async throws -> JSONValue {
        let device = command.device
        guard DeviceID.isValid(device) else {
            throw CommandError.invalidArgument("device", "must be a device id (a lower-case UUID)")
        }
        guard device != database.localDevice else {
            throw CommandError.invalidArgument("device", "is this device: its own key cannot be distrusted")
        }
        return try await database.pool.write { db in
            let key = try String.fetchOne(db, sql: "SELECT key FROM device_key WHERE device = ?", arguments: [device])
            try db.execute(sql: "DELETE FROM device_key WHERE device = ?", arguments: [device])
            try db.execute(sql: "DELETE FROM device_key_conflict WHERE device = ?", arguments: [device])
            return try JSONValue(
                reply: DeviceDistrusted(
                    device: device, removed: key != nil,
                    fingerprint: key.flatMap(SigningPublicKey.init(text:))?.fingerprint))
        }
    }

    // MARK: - Quarantine

    /// `ops.quarantine.purge`: empties the quarantine and says how many went.
    func purgeQuarantine() async throws -> JSONValue {
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM quarantine")
            return try JSONValue(reply: QuarantinePurged(purged: db.changesCount))
        }
    }

    /// `ops.quarantine`: the operations held back (stamped too far ahead), each with its source
    /// and why.
    func quarantineList() async throws -> JSONValue {
        return try await database.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, wall, reason, source, held_at, bytes FROM quarantine ORDER BY wall, id
                    LIMIT \(Self.quarantineListed)
                    """)
            let total = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM quarantine")
            return try JSONValue(
                reply: QuarantineList(
                    operations: rows.map { row in
                        QuarantineList.Held(
                            id: row["id"], wall: row["wall"], reason: row["reason"], source: row["source"],
                            heldAt: row["held_at"], bytes: row["bytes"])
                    }, count: total?[0] ?? 0, bytes: total?[1] ?? 0))
        }
    }

    /// The most quarantined operations `ops.quarantine` lists (all are counted).
    static let quarantineListed = 500

    /// `ops.forks`: operation ids held here with one content and sent with another (possible only
    /// from before signing), each with both contents and who sent the other.
    func forkedOperations() async throws -> JSONValue {
        try await database.pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT id, held, other, source, first_seen_at FROM forked_operation ORDER BY first_seen_at, id")
            return try JSONValue(
                reply: ForkList(
                    forks: try rows.map { row in
                        ForkList.Fork(
                            id: row["id"],
                            held: try JSONValue.parse(Array((row["held"] as String).utf8)).decode(
                                ExchangedOperation.self),
                            other: try JSONValue.parse(Array((row["other"] as String).utf8)).decode(
                                ExchangedOperation.self), source: row["source"], firstSeenAt: row["first_seen_at"])
                    }))
        }
    }
}
