import Foundation
import GRDB
import HearthBus
import HearthCore

/// A row of the `operation` table.
///
/// Read and written column by column rather than through `Codable`: GRDB's row decoder converts
/// every column name from snake case for every row: perf over `hearth-bench sync` found 93% of
/// an export page's time (36 ms for 849 operations) in stepping its cursor, most of it there.
struct OperationRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "operation"

    var id: String
    var device: String
    var counter: Int64
    var wall: Int64
    var logical: Int64
    var entityKind: String
    var entityId: String
    /// The fields it sets, in the exchange format (`{"title":{"overwrites":["dev:1"],"value":"…"}}`),
    /// so replay and export pass them on without re-encoding.
    var fields: String
    /// Its author's signature (`OperationSignature` in base64); nil only for another device's
    /// operation held from before signing.
    var signature: String?

    init(_ operation: Operation, signature: String?) {
        id = operation.id.description
        device = operation.id.device
        counter = Int64(operation.id.counter)
        wall = operation.time.wall
        logical = Int64(operation.time.logical)
        entityKind = operation.entity.kind
        entityId = operation.entity.id
        fields = operation.fieldsJSON.jsonText
        self.signature = signature
    }

    init(row: Row) throws {
        id = row["id"]
        device = row["device"]
        counter = row["counter"]
        wall = row["wall"]
        logical = row["logical"]
        entityKind = row["entity_kind"]
        entityId = row["entity_id"]
        fields = row["fields"]
        signature = row["signature"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["device"] = device
        container["counter"] = counter
        container["wall"] = wall
        container["logical"] = logical
        container["entity_kind"] = entityKind
        container["entity_id"] = entityId
        container["fields"] = fields
        container["signature"] = signature
    }

    /// The operation held under `id`, if any. Through a cached statement, as `insertCached`: the
    /// query interface compiles (and authorises) its SQL on every call, which was a quarter of
    /// an import's time (perf: 10,000 operations, 14% in `fetchOne(key:)`, 7% in `insert`).
    static func held(_ id: String, in db: Database) throws -> OperationRecord? {
        try OperationRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM operation WHERE id = ?"), arguments: [id])
    }

    /// Inserts the row through a cached statement (see `held`).
    func insertCached(_ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO operation (id, device, counter, wall, logical, entity_kind, entity_id, fields, signature)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [id, device, counter, wall, logical, entityKind, entityId, fields, signature])
    }

    /// The operation in the exchange format, straight from the row, with its signature (`sig`).
    var json: JSONValue {
        get throws {
            var object: [String: JSONValue] = [
                "id": .string(id), "time": ["wall": .int(wall), "logical": .int(logical)],
                "entity": ["kind": .string(entityKind), "id": .string(entityId)],
                "fields": try JSONValue.parse(Array(fields.utf8)),
            ]
            if let signature { object["sig"] = .string(signature) }
            return .object(object)
        }
    }

    var operation: Operation {
        get throws { try Operation(json: try json, at: "operation \(id)") }
    }
}
