/// A strict RFC 8259 JSON parser producing `JSONValue`.
///
/// Hearth parses every event and command it receives, so this sits on the hot path: Foundation's
/// JSONDecoder took ~36 µs per 200-byte envelope here (its `Codable` route through `JSONValue`
/// throws and catches per value), this single pass takes ~1 µs. It is also stricter (no
/// duplicate keys, bounded nesting) and its errors give the byte offset.
struct JSONParser {
    /// Deeper nesting is refused, so hostile input cannot exhaust the stack.
    static let maximumDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    /// Parses one JSON text (input must already be valid UTF-8).
    static func parse(_ input: some Collection<UInt8>) throws(EnvelopeError) -> JSONValue {
        let result: Result<JSONValue, EnvelopeError>? = input.withContiguousStorageIfAvailable { buffer in
            var parser = JSONParser(bytes: buffer)
            return Result { () throws(EnvelopeError) in try parser.parseDocument() }
        }
        if let result { return try result.get() }
        return try parse(Array(input))
    }

    /// Parses a JSON object, handing the members whose keys `match` knows to `visit` in order,
    /// instead of building a dictionary (the envelope decoder reads its fixed fields this way).
    /// `match` sees each key's bytes (decoded when the key has escapes) and gives its number, or
    /// `nil` for a member to check and skip: no `String` is made for a key. `visit` gets the
    /// parser at the member's value and must read exactly that value, with `value()`,
    /// `string()` or `withString(_:)`, so each member is read into its own type without a
    /// `JSONValue` in between.
    /// - Throws: `.notAnObject` when the text is another JSON value, or a parse error.
    static func forEachMember(
        of input: UnsafeBufferPointer<UInt8>,
        match: (UnsafeBufferPointer<UInt8>) -> Int?,
        _ visit: (Int, inout JSONParser) throws(EnvelopeError) -> Void
    ) throws(EnvelopeError) {
        var parser = JSONParser(bytes: input)
        try parser.parseMembers(match, visit)
    }

    // MARK: - Reading a member's value (for `forEachMember`'s visitor)

    /// Reads the value here, whatever its type.
    mutating func value() throws(EnvelopeError) -> JSONValue {
        try parseValue()
    }

    /// Reads the value here when it is a string; `nil`, reading nothing, when it is another type.
    mutating func string() throws(EnvelopeError) -> String? {
        peek(UInt8(ascii: "\"")) ? try parseString() : nil
    }

    /// Lends the string here to `body` as its UTF-8 bytes, read in place when it has no escapes
    /// or control characters (no `String` is made), otherwise decoded (and judged) by
    /// `parseString`; `nil`, reading nothing, when the value is another type.
    mutating func withString<Result>(
        _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) throws(EnvelopeError) -> Result? {
        guard peek(UInt8(ascii: "\"")) else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
            bytes[end] >= 0x20
        {
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            index = end + 1
            return body(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
        var text = try parseString()
        return text.withUTF8(body)
    }

    private mutating func parseMembers(
        _ match: (UnsafeBufferPointer<UInt8>) -> Int?,
        _ visit: (Int, inout JSONParser) throws(EnvelopeError) -> Void
    ) throws(EnvelopeError) {
        skipWhitespace()
        guard peek(UInt8(ascii: "{")) else {
            let value = try parseDocument()
            throw .notAnObject(found: value.typeName)
        }
        index += 1
        depth = 1
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
        } else {
            members: while true {
                skipWhitespace()
                guard peek(UInt8(ascii: "\"")) else { throw error("expected a string key") }
                let key = try withString(match) ?? nil
                skipWhitespace()
                guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after a key") }
                index += 1
                skipWhitespace()
                if let key {
                    try visit(key, &self)
                } else {
                    _ = try parseValue()
                }
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input in an object") }
                switch bytes[index] {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    break members
                default: throw error("expected ',' or '}' in an object")
                }
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected data after the JSON value") }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func parseDocument() throws(EnvelopeError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected data after the JSON value") }
        return value
    }

    // MARK: - Values

    private mutating func parseValue() throws(EnvelopeError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character \(describe(bytes[index]))")
        }
    }

    private mutating func parseObject() throws(EnvelopeError) -> JSONValue {
        try enter()
        index += 1
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            depth -= 1
            return .object([:])
        }
        // Room for a typical event's data without growing (growing rehashes every key).
        var members: [String: JSONValue] = Dictionary(minimumCapacity: 8)
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a string key") }
            let keyStart = index
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after a key") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: key) == nil else {
                index = keyStart
                throw error("duplicate key '\(key)'")
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            } else {
                throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(EnvelopeError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(EnvelopeError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            memcmpEqual(word.utf8Start, bytes.baseAddress! + index, count)
        else { throw error("invalid literal") }
        index += count
        return value
    }

    private mutating func parseNumber() throws(EnvelopeError) -> JSONValue {
        let start = index
        var isInteger = true
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("a number must not have leading zeros") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a fraction needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("an exponent needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        // Up to 18 digits cannot overflow an Int64: summed in place, with no `String` (every
        // envelope has three to five integers).
        let digitCount = index - start - (bytes[start] == UInt8(ascii: "-") ? 1 : 0)
        if isInteger, digitCount <= 18 {
            var magnitude: Int64 = 0
            for byte in bytes[(index - digitCount)..<index] { magnitude = magnitude * 10 + Int64(byte &- 0x30) }
            return .int(bytes[start] == UInt8(ascii: "-") ? -magnitude : magnitude)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else {
            index = start
            throw error("number out of range")
        }
        return .double(double)
    }

    private mutating func parseString() throws(EnvelopeError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, so the string is a slice of the (valid UTF-8) input.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return value
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character \(describe(byte)) in a string") }
            index += 1
        }
        var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of input in an escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("a high surrogate must be followed by a low surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw error("a low surrogate without a high surrogate")
                    }
                    scalars.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
                default:
                    index -= 1
                    throw error("invalid escape \\\(describe(escape))")
                }
            default:
                if byte < 0x20 { throw error("control character \(describe(byte)) in a string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseHex4() throws(EnvelopeError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("\\u needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: - Helpers

    private mutating func enter() throws(EnvelopeError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16))"
    }

    private func error(_ reason: String) -> EnvelopeError {
        .malformedJSON("\(reason) at byte \(index)")
    }

    private func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for offset in 0..<count where a[offset] != b[offset] { return false }
        return true
    }
}
