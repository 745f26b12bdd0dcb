/// The value of one field of a replicated entity. `null` means cleared.
public enum FieldValue: Hashable, Sendable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int64.self) {
            self = .int(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .int(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        }
    }

    /// What kind of value it is, for errors: "null", "a boolean", "a number", "text".
    public var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "a number"
        case .text: "text"
        }
    }

    public var description: String {
        switch self {
        case .null: "(cleared)"
        case .bool(let flag): String(flag)
        case .int(let number): String(number)
        case .text(let text): text
        }
    }
}
