/// Writes `JSONValue` as compact JSON with sorted keys (equal values give equal bytes).
///
/// Like `JSONParser`, it replaces Foundation's coder on the hot path (JSONEncoder took ~4.6 µs
/// for a small event's data; this takes well under 1 µs).
public enum JSONWriter {
    /// Appends `value` as compact JSON with sorted keys.
    public static func write(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): appendInteger(number, to: &out)
        case .double(let number):
            // JSON has no infinities or NaN; such values cannot enter through the parser.
            if number.isFinite {
                if number == number.rounded(), abs(number) < 1e15 {
                    out.append(contentsOf: String(Int64(number)).utf8)
                    out.append(contentsOf: ".0".utf8)
                } else {
                    out.append(contentsOf: number.description.utf8)
                }
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let text): appendString(text, to: &out)
        case .encoded(let bytes): out.append(contentsOf: bytes)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Sorted as pairs: sorting the keys and looking each up again hashed every key twice.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `value` in decimal, without the `String` that `String(value)` allocates.
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendInteger(value.magnitude, to: &out)
    }

    /// Appends `value` in decimal: the digits are made in a stack buffer and appended at once
    /// (a byte-at-a-time append checks the array's capacity and uniqueness for every digit).
    public static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumIntegerBytes) { digits in
            let count = writeInteger(value, at: digits.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<count]))
        }
    }

    /// The most bytes `writeInteger` writes (`UInt64.max` has 20 digits).
    static let maximumIntegerBytes = 20

    /// Writes `value` in decimal at `start`, which has room for `maximumIntegerBytes`; returns
    /// how many bytes it wrote.
    static func writeInteger(_ value: UInt64, at start: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        rest = value
        for index in stride(from: count - 1, through: 0, by: -1) {
            start[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        return count
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// Appends `value` as a JSON string literal (RFC 8259 escaping).
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        // Most strings need no escaping: copy them whole. A native string's bytes are contiguous
        // and scanned in place (`allSatisfy` over the UTF8View went through its indices).
        let plain: Bool? = value.utf8.withContiguousStorageIfAvailable { bytes in
            guard !needsEscaping(bytes) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        guard plain != true else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumStringBytes(value)) { literal in
            let count = writeString(value, at: literal.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: literal[..<count]))
        }
    }

    /// The most bytes `writeString` writes for `text`: the quotes, and every byte escaped as
    /// `\u00XX`.
    static func maximumStringBytes(_ text: String) -> Int { text.utf8.count * 6 + 2 }

    /// Writes `text` as a JSON string literal (RFC 8259 escaping) at `start`, which has room for
    /// `maximumStringBytes(text)`; returns how many bytes it wrote.
    static func writeString(_ text: String, at start: UnsafeMutablePointer<UInt8>) -> Int {
        start[0] = UInt8(ascii: "\"")
        var cursor = start + 1
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !needsEscaping(bytes), let base = bytes.baseAddress else { return bytes.isEmpty }
            cursor.update(from: base, count: bytes.count)
            cursor += bytes.count
            return true
        }
        if copied != true {
            func put(_ escape: StaticString) {
                cursor.update(from: escape.utf8Start, count: escape.utf8CodeUnitCount)
                cursor += escape.utf8CodeUnitCount
            }
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): put(#"\""#)
                case UInt8(ascii: "\\"): put(#"\\"#)
                case 0x0A: put(#"\n"#)
                case 0x0D: put(#"\r"#)
                case 0x09: put(#"\t"#)
                case 0..<0x20:
                    put(#"\u00"#)
                    cursor[0] = hex[Int(byte >> 4)]
                    cursor[1] = hex[Int(byte & 0xF)]
                    cursor += 2
                default:
                    cursor.pointee = byte
                    cursor += 1
                }
            }
        }
        cursor.pointee = UInt8(ascii: "\"")
        return cursor + 1 - start
    }

    /// Whether any byte must be escaped in a JSON string (a control character, `"` or `\`).
    private static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }
}
