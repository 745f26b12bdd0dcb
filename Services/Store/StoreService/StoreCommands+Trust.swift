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
}

extension StoreCommands {
    /// `device.trust {device, key, via}`: pins another device's signing key, learnt over a link
    /// its CURVE key authenticates (`via`: `pairing`, or `sync` for a device paired before
    /// signing) or confirmed by a person (`file`: a fingerprint compared by eye). The pin is a
    /// `device_key` operation by this device, so it also vouches for the key to every device that
    /// trusts this one.
    /// - Returns: the device, its key's fingerprint and `pinned`: `new`, or `known` when the key
    ///   was already trusted.
    /// - Throws: `key_mismatch` when the device is known by another key (a key is never
    ///   replaced), `too_many_devices` past `Devices.maximumDevices`.
    func trustDevice(_ requestID: String, _ arguments: Arguments) async throws -> JSONValue {
        guard let device = try arguments.optionalString("device"), DeviceID.isValid(device) else {
            throw CommandError.invalidArgument("device", "must be a device id (a lower-case UUID)")
        }
        guard device != database.localDevice else {
            throw CommandError.invalidArgument("device", "is this device: its own key needs no vouching")
        }
        guard let text = try arguments.optionalString("key"), let key = SigningPublicKey(text: text) else {
            throw CommandError.invalidArgument("key", "must be a signing key: 32 bytes in base64 (44 characters)")
        }
        let via = try arguments.optionalString("via") ?? "pairing"
        guard ["pairing", "sync", "file"].contains(via) else {
            throw CommandError.invalidArgument("via", "must be pairing, sync or file, got '\(via)'")
        }
        return try await writes.once(requestID) { db, outbox in
            let reply: JSONValue = ["device": .string(device), "fingerprint": .string(key.fingerprint)]
            if let known = try String.fetchOne(
                db, sql: "SELECT key FROM device_key WHERE device = ?", arguments: [device])
            {
                guard known == key.text else {
                    let fingerprint = SigningPublicKey(text: known)?.fingerprint ?? "unreadable"
                    throw CommandError(
                        code: "key_mismatch",
                        message:
                            "device \(device.prefix(8)) offers signing key \(key.fingerprint), but this household knows it by \(fingerprint): its operations are refused until that is settled (a reinstalled device needs a new identity)"
                    )
                }
                return reply.merging(["pinned": "known"])
            }
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device_key") ?? 0
            guard count < Devices.maximumDevices else {
                throw CommandError(
                    code: "too_many_devices",
                    message: "this household already holds the keys of \(count) devices, the most a store keeps")
            }
            try commit(EntityRef(kind: Devices.keyKind, id: device), ["key": .text(key.text)], in: db, outbox: outbox)
            return reply.merging(["pinned": "new", "via": .string(via)])
        }
    }

    // MARK: - Quarantine

    /// `ops.quarantine [purge]`: the operations held back (stamped too far ahead), each with its
    /// source and why; with `purge: true`, empties it and says how many went.
    func quarantineList(_ arguments: Arguments) async throws -> JSONValue {
        if try arguments.optionalBool("purge") == true {
            return try await database.pool.write { db in
                try db.execute(sql: "DELETE FROM quarantine")
                return try JSONValue(reply: QuarantinePurged(purged: db.changesCount))
            }
        }
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
