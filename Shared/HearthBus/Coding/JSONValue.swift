import Foundation

/// Any JSON value: the free-form `data` of an envelope and the arguments and results of commands.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
    /// JSON text already encoded by Hearth's own writer, passed through verbatim when written.
    ///
    /// Only for values a service sends straight on (the store's change feed hands over stored
    /// operations this way rather than parsing and re-encoding each); it is never produced by
    /// parsing, so received values never hold it.
    case encoded([UInt8])

    /// The JSON type name used in error messages ("a string", "an object", …).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        case .encoded: "encoded JSON"
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int64? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e15: Int64(value)
        default: nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// This object with `other`'s members added (replacing); a value that is not an object
    /// counts as an empty one.
    public func merging(_ other: [String: JSONValue]) -> JSONValue {
        .object((objectValue ?? [:]).merging(other) { _, new in new })
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Codable

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .encoded(let bytes): try container.encode(try JSONValue.parse(bytes))
        }
    }
}

// MARK: - Text

extension JSONValue {
    /// Parses JSON text (any top-level value), strictly: see `JSONParser`.
    /// - Throws: `EnvelopeError.invalidUTF8`, or `.malformedJSON` with the reason and byte offset.
    public static func parse(_ bytes: some Collection<UInt8>) throws(EnvelopeError) -> JSONValue {
        let valid =
            bytes.withContiguousStorageIfAvailable(UTF8Check.isValid)
            ?? Array(bytes).withUnsafeBufferPointer(UTF8Check.isValid)
        guard valid else { throw .invalidUTF8 }
        return try JSONParser.parse(bytes)
    }

    /// Parses JSON text given as a string.
    public static func parse(_ text: String) throws(EnvelopeError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    /// Compact JSON with sorted keys, so equal values give equal bytes.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        JSONWriter.write(self, to: &out)
        return out
    }

    /// Compact JSON text with sorted keys.
    public var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }
}
