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
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            var rest = value
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// Appends `value` as a JSON string literal (RFC 8259 escaping).
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them whole. A native string's bytes are contiguous
        // and scanned in place (`allSatisfy` over the UTF8View went through its indices).
        let plain: Bool? = value.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if plain == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
