/// Decodes any `Decodable` straight from a parsed `JSONValue`, so wire formats are `Codable`
/// types (in `HearthCore`) decoded the same way everywhere, not read by string keys.
///
/// Hand-written because Foundation has no decoder from an in-memory tree: going through bytes
/// and `JSONDecoder` costs a serialisation and about 36 µs per 200-byte value here (see
/// `JSONParser`), on the turn and notification paths. Integers are range-checked (a value that
/// does not fit the field's type is a `DecodingError`, never a trap); an integral double is
/// accepted as an integer, as JSON writers may emit one.
public struct JSONValueDecoder: Sendable {
    /// Whether keys are read in snake_case (`timerSeconds` from `timer_seconds`), as commands'
    /// requests are written (`HearthCommand`); errors then name the field as the wire spells it.
    public var snakeCaseKeys: Bool

    public init(snakeCaseKeys: Bool = false) { self.snakeCaseKeys = snakeCaseKeys }

    /// - Throws: `DecodingError` naming the coding path of the field at fault.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try make(type, ValueDecoder(value: value, codingPath: [], snake: snakeCaseKeys))
    }
}

extension JSONValue {
    /// This value decoded as `T` (see `JSONValueDecoder`).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONValueDecoder().decode(type, from: self)
    }
}

// MARK: - Decoding one value

/// `T` from one value; a `JSONValue` field takes the value as it is.
private func make<T: Decodable>(_ type: T.Type, _ decoder: ValueDecoder) throws -> T {
    if let value = try decoder.resolved() as? T { return value }
    return try T(from: decoder)
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    /// Keys in snake_case (`JSONValueDecoder.snakeCaseKeys`).
    let snake: Bool
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The value with pre-encoded bytes parsed.
    fileprivate func resolved() throws -> JSONValue {
        guard case .encoded(let bytes) = value else { return value }
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(error)"))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = try resolved() else { throw mismatch(value, "an object", codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath, snake: snake))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = try resolved() else { throw mismatch(value, "an array", codingPath) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath, snake: snake)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { try single() }

    func single() throws -> SingleContainer {
        SingleContainer(value: try resolved(), parentPath: codingPath, key: nil, snake: snake)
    }
}

private func mismatch(_ value: JSONValue, _ expected: String, _ path: [any CodingKey]) -> DecodingError {
    .typeMismatch(
        Any.self, .init(codingPath: path, debugDescription: "must be \(expected), found \(value.typeName)"))
}

/// One leaf. Its coding path is put together only when asked (an error, a nested decoder), not
/// as a new array for every field read: `hearth-bench codec`'s codable_decode went from
/// 9.5–10.1 to 7.1 µs for a four-player turn session.
private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let parentPath: [any CodingKey]
    let key: (any CodingKey)?
    let snake: Bool

    var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(value, "true or false", codingPath) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(value, "a string", codingPath) }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard let number = value.doubleValue else { throw mismatch(value, "a number", codingPath) }
        return number
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try make(type, ValueDecoder(value: value, codingPath: codingPath, snake: snake))
    }

    /// An integer that fits `T` exactly, or a `DecodingError` that says it does not.
    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard let whole = value.intValue else { throw mismatch(value, "a whole number", codingPath) }
        guard let fitting = T(exactly: whole) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "\(whole) is out of range (\(T.min)…\(T.max))"))
        }
        return fitting
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]
    let snake: Bool

    var allKeys: [Key] {
        members.keys.compactMap { Key(stringValue: snake ? SnakeCase.swiftName($0) : $0) ?? Key(stringValue: $0) }
    }

    /// `key` as the wire spells it: itself, or its snake_case name (for lookups, paths and errors).
    private func wire(_ key: any CodingKey) -> any CodingKey {
        guard snake else { return key }
        let name = SnakeCase.name(key.stringValue)
        return name == key.stringValue ? key : WireKey(name)
    }

    private func member(_ key: any CodingKey) -> JSONValue? {
        members[snake ? SnakeCase.name(key.stringValue) : key.stringValue]
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    private func decoder(for key: any CodingKey) throws -> ValueDecoder {
        guard let value = member(key) else { throw notFound(key) }
        return ValueDecoder(value: value, codingPath: codingPath + [wire(key)], snake: snake)
    }

    private func notFound(_ key: any CodingKey) -> DecodingError {
        let key = wire(key)
        return .keyNotFound(key, .init(codingPath: codingPath, debugDescription: "'\(key.stringValue)' is required"))
    }

    /// A plain field's value; `null` where a string, number or boolean must be counts as absent
    /// ("'year' is required"), as a command's arguments have always been read.
    private func single(_ key: Key) throws -> SingleContainer {
        guard let value = member(key), value != .null else { throw notFound(key) }
        guard !value.isEncoded else { return try decoder(for: key).single() }
        return SingleContainer(value: value, parentPath: codingPath, key: wire(key), snake: snake)
    }

    func decodeNil(forKey key: Key) throws -> Bool { (member(key) ?? .null) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try single(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try single(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try single(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try single(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try single(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try single(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try single(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try single(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try single(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try single(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try single(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try single(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try single(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try single(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try make(type, decoder(for: key)) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath, snake: snake)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    let snake: Bool
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey], snake: Bool) {
        (self.elements, self.codingPath, self.snake) = (elements, codingPath, snake)
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { "\(intValue!)" }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    private mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: elements[currentIndex], codingPath: codingPath + [Index(currentIndex)], snake: snake)
    }

    private mutating func single() throws -> SingleContainer {
        // A plain element needs no decoder of its own (nor its path, unless an error asks).
        guard !isAtEnd, !elements[currentIndex].isEncoded else { return try next().single() }
        defer { currentIndex += 1 }
        return SingleContainer(
            value: elements[currentIndex], parentPath: codingPath, key: Index(currentIndex), snake: snake)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try single().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try single().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try single().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try single().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try single().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try single().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try single().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try single().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try single().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try single().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try single().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try single().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try single().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try single().decode(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try make(type, next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

extension JSONValue {
    /// Pre-encoded bytes, which a decoder parses before reading.
    fileprivate var isEncoded: Bool {
        if case .encoded = self { return true }
        return false
    }
}
