import Foundation
import GRDB
import HearthBus
import HearthCore

/// A row of the `operation` table.
struct OperationRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "operation"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

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

    init(_ operation: Operation) {
        id = operation.id.description
        device = operation.id.device
        counter = Int64(operation.id.counter)
        wall = operation.time.wall
        logical = Int64(operation.time.logical)
        entityKind = operation.entity.kind
        entityId = operation.entity.id
        fields = (operation.json["fields"] ?? [:]).jsonText
    }

    /// The operation in the exchange format, straight from the row.
    var json: JSONValue {
        get throws {
            [
                "id": .string(id), "time": ["wall": .int(wall), "logical": .int(logical)],
                "entity": ["kind": .string(entityKind), "id": .string(entityId)],
                "fields": try JSONValue.parse(Array(fields.utf8)),
            ]
        }
    }

    var operation: Operation {
        get throws { try Operation(json: try json, at: "operation \(id)") }
    }
}
