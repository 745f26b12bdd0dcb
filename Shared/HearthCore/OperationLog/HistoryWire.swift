/// One operation as a history reply shows it (`todo.history`, `people.history`, `changes`): who
/// wrote it, when, and per field the value(s) it overwrote and the new one.
public struct HistoryEntry: Codable, Sendable, Equatable {
    /// A field's change: `from` is the value overwritten (`null` for none, a list when it
    /// resolved a conflict between several), `to` the new value, as stored.
    public struct FieldChange: Codable, Sendable, Equatable {
        public let from: FieldJSON
        public let to: FieldJSON

        public init(from: FieldJSON, to: FieldJSON) { (self.from, self.to) = (from, to) }
    }

    /// The operation's id, the entity's kind and id (left out where the reply is about one
    /// entity's kind already: the planner's `history`), its author device (id and current
    /// name) and when (ISO 8601).
    public let op: String
    @OmittedWhenNil public var kind: String?
    @OmittedWhenNil public var entity: String?
    public let device: String
    public let deviceName: String
    public let time: String
    public let changes: [String: FieldChange]

    public init(
        op: String, kind: String?, entity: String?, device: String, deviceName: String, time: String,
        changes: [String: FieldChange]
    ) {
        (self.op, self.kind, self.entity, self.device, self.deviceName, self.time) = (
            op, kind, entity, device, deviceName, time
        )
        self.changes = changes
    }

    enum CodingKeys: String, CodingKey {
        case op, kind, entity, device, time, changes
        case deviceName = "device_name"
    }
}

/// A field's value as JSON carries it (text, a whole number, a boolean, `null`), or a list of
/// them where a conflict held several: what history and conflict replies show.
public indirect enum FieldJSON: Codable, Sendable, Equatable {
    case null
    case text(String)
    case int(Int64)
    case bool(Bool)
    case list([FieldJSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int64.self) {
            self = .int(number)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let list = try? container.decode([FieldJSON].self) {
            self = .list(list)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "must be text, a whole number, a boolean, null or a list of them")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .text(let text): try container.encode(text)
        case .int(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        case .list(let list): try container.encode(list)
        }
    }
}

extension FieldValue {
    /// As history and conflict replies carry it.
    public var fieldJSON: FieldJSON {
        switch self {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .int(let number): .int(number)
        case .text(let text): .text(text)
        }
    }
}
