/// Encodes any `Encodable` straight into a `JSONValue`, the counterpart of `JSONValueDecoder`
/// (hand-written for the same reason: Foundation's encoder would produce bytes to parse again).
/// Integers beyond `Int64` and non-finite doubles are refused with an `EncodingError`, since
/// JSON on the wire cannot carry them faithfully.
public struct JSONValueEncoder: Sendable {
    /// Whether an optional field that is `nil` is written as `null` (`true`) or left out.
    ///
    /// Replies to commands say `"teacher": null` rather than leaving the key out, so a reader
    /// (a script, `--json`) sees every field the reply has; events leave absent fields out.
    public var writesNulls: Bool
    /// Whether keys are written in snake_case (`timerSeconds` as `timer_seconds`), as commands'
    /// requests are (`HearthCommand`); keys already in snake_case stay as they are.
    public var snakeCaseKeys: Bool

    public init(writesNulls: Bool = false, snakeCaseKeys: Bool = false) {
        (self.writesNulls, self.snakeCaseKeys) = (writesNulls, snakeCaseKeys)
    }

    /// - Throws: `EncodingError` naming the coding path of the value it cannot represent.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let node = Node()
        let options = EncodingOptions(writesNulls: writesNulls, snakeCaseKeys: snakeCaseKeys)
        try value.encode(to: ValueEncoder(node: node, codingPath: [], options: options))
        return node.resolved
    }
}

/// The encoder's settings, carried by every container.
private struct EncodingOptions {
    let writesNulls: Bool
    let snakeCaseKeys: Bool

    /// The name `key` is written under.
    func name(_ key: any CodingKey) -> String { snakeCaseKeys ? SnakeCase.name(key.stringValue) : key.stringValue }
}

extension JSONValue {
    /// `value` as a `JSONValue` (see `JSONValueEncoder`).
    public init<T: Encodable>(encoding value: T) throws {
        self = try JSONValueEncoder().encode(value)
    }

    /// `value` as an event's or a reply's data, for wire types whose fields always encode
    /// (strings, booleans, whole numbers): should one not (a non-finite number), the data is
    /// `null`, which every reader refuses by name rather than misreading.
    public init<T: Encodable>(wire value: T) { self = (try? JSONValue(encoding: value)) ?? .null }

    /// `value` as a command's reply: every absent optional written as `null` (see `writesNulls`).
    public init<T: Encodable>(reply value: T) throws {
        self = try JSONValueEncoder(writesNulls: true).encode(value)
    }
}

// MARK: - The tree being built

/// One value under construction. Containers hand out child nodes and fill them in later, so
/// the tree is built by reference and resolved into a `JSONValue` at the end. Leaves (strings,
/// numbers, booleans, null) go into their container as values, with no node of their own: a
/// node and a coding path for each leaf were half the encoder's cost (`hearth-bench codec`'s
/// codable_encode, 17.0–17.8 → 8.7–9.2 µs for a four-player turn session).
private final class Node {
    var value: JSONValue?
    var members: [String: Member]?
    var elements: [Member]?

    var resolved: JSONValue {
        if let members { return .object(members.mapValues(\.resolved)) }
        if let elements { return .array(elements.map(\.resolved)) }
        return value ?? .object([:])
    }
}

/// A container's entry: a finished leaf, or a node still being filled.
private enum Member {
    case leaf(JSONValue)
    case node(Node)

    var resolved: JSONValue {
        switch self {
        case .leaf(let value): value
        case .node(let node): node.resolved
        }
    }
}

/// The checks a leaf needs, with the coding path built only when one fails.
private enum Leaf {
    static func double(_ value: Double, _ path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(), debugDescription: "JSON has no \(value)"))
        }
        return .double(value)
    }

    static func integer<T: FixedWidthInteger>(
        _ value: T, _ path: @autoclosure () -> [any CodingKey]
    ) throws
        -> JSONValue
    {
        guard let whole = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path(), debugDescription: "\(value) does not fit a 64-bit integer"))
        }
        return .int(whole)
    }
}

private struct ValueEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    let options: EncodingOptions
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [:] }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath, options: options))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedContainer(node: node, codingPath: codingPath, options: options)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath, options: options)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    let options: EncodingOptions

    func encodeNil() throws { node.value = .null }
    func encode(_ value: Bool) throws { node.value = .bool(value) }
    func encode(_ value: String) throws { node.value = .string(value) }
    func encode(_ value: Double) throws { node.value = try Leaf.double(value, codingPath) }
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
        try value.encode(to: ValueEncoder(node: node, codingPath: codingPath, options: options))
    }

    private func integer<T: FixedWidthInteger>(_ value: T) throws { node.value = try Leaf.integer(value, codingPath) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]
    let options: EncodingOptions

    /// A fresh node for `key`, replacing any earlier value under it.
    private func child(_ key: any CodingKey) -> ValueEncoder {
        let child = Node()
        node.members![options.name(key)] = .node(child)
        return ValueEncoder(node: child, codingPath: codingPath + [key], options: options)
    }

    private func put(_ value: JSONValue, _ key: Key) { node.members![options.name(key)] = .leaf(value) }

    func encodeNil(forKey key: Key) throws { put(.null, key) }
    func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    func encode(_ value: Double, forKey key: Key) throws { put(try Leaf.double(value, codingPath + [key]), key) }
    func encode(_ value: Float, forKey key: Key) throws { try encode(Double(value), forKey: key) }
    func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let json = value as? JSONValue { return put(json, key) }
        let child = child(key)
        try SingleContainer(node: child.node, codingPath: child.codingPath, options: options).encode(value)
    }

    // A nil optional is `null` when the encoder writes nulls, and no key otherwise. Every
    // overload is needed: synthesised `encode(to:)` calls the one for the field's type.
    private func present<T>(_ value: T?, _ key: Key, _ encode: (T) throws -> Void) throws {
        if let value { return try encode(value) }
        if options.writesNulls { put(.null, key) }
    }
    func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }
    func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try present(value, key) { try encode($0, forKey: key) }
    }

    private func integer<T: FixedWidthInteger>(_ value: T, _ key: Key) throws {
        put(try Leaf.integer(value, codingPath + [key]), key)
    }

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
    let options: EncodingOptions

    var count: Int { node.elements!.count }

    private func child() -> ValueEncoder {
        let child = Node()
        node.elements!.append(.node(child))
        return ValueEncoder(node: child, codingPath: codingPath, options: options)
    }

    private func put(_ value: JSONValue) { node.elements!.append(.leaf(value)) }

    func encodeNil() throws { put(.null) }
    func encode(_ value: Bool) throws { put(.bool(value)) }
    func encode(_ value: String) throws { put(.string(value)) }
    func encode(_ value: Double) throws { put(try Leaf.double(value, codingPath)) }
    func encode(_ value: Float) throws { try encode(Double(value)) }
    func encode(_ value: Int) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: Int8) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: Int16) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: Int32) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: Int64) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: UInt) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: UInt8) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: UInt16) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: UInt32) throws { put(try Leaf.integer(value, codingPath)) }
    func encode(_ value: UInt64) throws { put(try Leaf.integer(value, codingPath)) }
    func encode<T: Encodable>(_ value: T) throws {
        if let json = value as? JSONValue { return put(json) }
        let child = child()
        try SingleContainer(node: child.node, codingPath: child.codingPath, options: options).encode(value)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        child().container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { child().unkeyedContainer() }
    func superEncoder() -> any Encoder { child() }
}
