import Foundation
import GRDB
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
    /// The fields it sets, as JSON (`{"title":{"value":"…","overwrites":[…]}}`).
    var fields: String

    init(_ operation: Operation) throws {
        id = operation.id.description
        device = operation.id.device
        counter = Int64(operation.id.counter)
        wall = operation.time.wall
        logical = Int64(operation.time.logical)
        entityKind = operation.entity.kind
        entityId = operation.entity.id
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        fields = String(decoding: try encoder.encode(operation.fields), as: UTF8.self)
    }

    var operation: Operation {
        get throws {
            Operation(
                id: OperationID(device: device, counter: UInt64(counter)),
                time: HybridTime(wall: wall, logical: UInt32(logical)),
                entity: EntityRef(kind: entityKind, id: entityId),
                fields: try JSONDecoder().decode([String: FieldWrite].self, from: Data(fields.utf8))
            )
        }
    }
}
