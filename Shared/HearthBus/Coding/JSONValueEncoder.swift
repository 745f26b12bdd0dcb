/// Encodes any `Encodable` straight into a `JSONValue`, the counterpart of `JSONValueDecoder`
/// (hand-written for the same reason: Foundation's encoder would produce bytes to parse again).
/// Integers beyond `Int64` and non-finite doubles are refused with an `EncodingError`, since
/// JSON on the wire cannot carry them faithfully.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// - Throws: `EncodingError` naming the coding path of the value it cannot represent.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let node = Node()
        try value.encode(to: ValueEncoder(node: node, codingPath: []))
        return node.resolved
    }
}

extension JSONValue {
    /// `value` as a `JSONValue` (see `JSONValueEncoder`).
    public init<T: Encodable>(encoding value: T) throws {
        self = try JSONValueEncoder().encode(value)
    }
}

// MARK: - The tree being built

/// One value under construction. Containers hand out child nodes and fill them in later, so
/// the tree is built by reference and resolved into a `JSONValue` at the end.
private final class Node {
    var value: JSONValue?
    var members: [String: Node]?
    var elements: [Node]?

    var resolved: JSONValue {
        if let members { return .object(members.mapValues(\.resolved)) }
        if let elements { return .array(elements.map(\.resolved)) }
        return value ?? .object([:])
    }
}

private struct ValueEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [:] }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    func encodeNil() throws { node.value = .null }
    func encode(_ value: Bool) throws { node.value = .bool(value) }
    func encode(_ value: String) throws { node.value = .string(value) }
    func encode(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "JSON has no \(value)"))
        }
        node.value = .double(value)
    }
    func encode(_ value: Float) throws { try encode(Double(value)) }
    func encode(_ value: Int) throws { try integer(value) }
    func encode(_ value: Int8) throws { try integer(value) }
    func encode(_ value: Int16) throws { try integer(value) }
    func encode(_ value: Int32) throws { try integer(value) }
    func encode(_ value: Int64) throws { try integer(value) }
    func encode(_ value: UInt) throws { try integer(value) }
    func encode(_ value: UInt8) throws { try integer(value) }
    func encode(_ value: UInt16) throws { try integer(value) }
    func encode(_ value: UInt32) throws { try integer(value) }
    func encode(_ value: UInt64) throws { try integer(value) }

    func encode<T: Encodable>(_ value: T) throws {
        if let json = value as? JSONValue {
            node.value = json
            return
        }
        try value.encode(to: ValueEncoder(node: node, codingPath: codingPath))
    }

    private func integer<T: FixedWidthInteger>(_ value: T) throws {
        guard let whole = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) does not fit a 64-bit integer"))
        }
        node.value = .int(whole)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    /// A fresh node for `key`, replacing any earlier value under it.
    private func child(_ key: any CodingKey) -> ValueEncoder {
        let child = Node()
        node.members![key.stringValue] = child
        return ValueEncoder(node: child, codingPath: codingPath + [key])
    }

    private func single(_ key: Key) -> SingleContainer {
        SingleContainer(node: child(key).node, codingPath: codingPath + [key])
    }

    func encodeNil(forKey key: Key) throws { try single(key).encodeNil() }
    func encode(_ value: Bool, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: String, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: Double, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: Float, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: Int, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: Int8, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: Int16, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: Int32, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: Int64, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: UInt, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: UInt8, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: UInt16, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: UInt32, forKey key: Key) throws { try single(key).encode(value) }
    func encode(_ value: UInt64, forKey key: Key) throws { try single(key).encode(value) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try single(key).encode(value) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        child(key).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { child(key).unkeyedContainer() }
    func superEncoder() -> any Encoder { child(SuperKey()) }
    func superEncoder(forKey key: Key) -> any Encoder { child(key) }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    var count: Int { node.elements!.count }

    private func child() -> ValueEncoder {
        let child = Node()
        node.elements!.append(child)
        return ValueEncoder(node: child, codingPath: codingPath)
    }

    private func single() -> SingleContainer { SingleContainer(node: child().node, codingPath: codingPath) }

    func encodeNil() throws { try single().encodeNil() }
    func encode(_ value: Bool) throws { try single().encode(value) }
    func encode(_ value: String) throws { try single().encode(value) }
    func encode(_ value: Double) throws { try single().encode(value) }
    func encode(_ value: Float) throws { try single().encode(value) }
    func encode(_ value: Int) throws { try single().encode(value) }
    func encode(_ value: Int8) throws { try single().encode(value) }
    func encode(_ value: Int16) throws { try single().encode(value) }
    func encode(_ value: Int32) throws { try single().encode(value) }
    func encode(_ value: Int64) throws { try single().encode(value) }
    func encode(_ value: UInt) throws { try single().encode(value) }
    func encode(_ value: UInt8) throws { try single().encode(value) }
    func encode(_ value: UInt16) throws { try single().encode(value) }
    func encode(_ value: UInt32) throws { try single().encode(value) }
    func encode(_ value: UInt64) throws { try single().encode(value) }
    func encode<T: Encodable>(_ value: T) throws { try single().encode(value) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        child().container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { child().unkeyedContainer() }
    func superEncoder() -> any Encoder { child() }
}
