/// An optional field a reply leaves out when it is `nil`, even when written by an encoder that
/// writes every other absent optional as `null` (`JSONValueEncoder(writesNulls: true)`).
///
/// Replies name every field they have, `null` included; a few fields are there only sometimes
/// (`refusal` on an import that would be refused, `op` on a change that wrote one), and this
/// keeps their wire form as it was: absent, not `null`. Decoding takes absent and `null` alike.
@propertyWrapper
public struct OmittedWhenNil<Value: Codable & Sendable>: Codable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension OmittedWhenNil: Equatable where Value: Equatable {}

extension KeyedEncodingContainer {
    /// Writes nothing for `nil` (synthesised `encode(to:)` picks this overload for the wrapper).
    public mutating func encode<Value>(_ value: OmittedWhenNil<Value>, forKey key: Key) throws {
        if let wrapped = value.wrappedValue { try encode(wrapped, forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// An absent key is `nil`, as it is for a plain optional.
    public func decode<Value>(_ type: OmittedWhenNil<Value>.Type, forKey key: Key) throws -> OmittedWhenNil<Value> {
        OmittedWhenNil(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
