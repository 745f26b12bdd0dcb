import CLibNotify
import HearthBus

/// Reads a method call's arguments (a tuple GVariant) by position. The tuple's signature was
/// checked by GDBus against the introspection before the call reached the server.
struct GVariantReader {
    let tuple: OpaquePointer

    init(_ tuple: OpaquePointer) { self.tuple = tuple }

    func string(_ index: Int) -> String { with(index) { String(cString: g_variant_get_string($0, nil)) } }
    func uint32(_ index: Int) -> UInt32 { with(index) { g_variant_get_uint32($0) } }
    func int32(_ index: Int) -> Int32 { with(index) { g_variant_get_int32($0) } }
    func json(_ index: Int) -> JSONValue { with(index) { Self.json($0) } }

    private func with<T>(_ index: Int, _ read: (OpaquePointer) -> T) -> T {
        let child = g_variant_get_child_value(tuple, UInt(index))!
        defer { g_variant_unref(child) }
        return read(child)
    }

    /// Any D-Bus value as JSON, as dbus-python's values became: numbers and booleans as such,
    /// strings, object paths and signatures as strings, a variant as what it holds, a dictionary
    /// as an object (keys as text), byte arrays, other arrays and structs as arrays.
    static func json(_ value: OpaquePointer) -> JSONValue {
        switch g_variant_classify(value) {
        case G_VARIANT_CLASS_BOOLEAN: return .bool(g_variant_get_boolean(value) != 0)
        case G_VARIANT_CLASS_BYTE: return .int(Int64(g_variant_get_byte(value)))
        case G_VARIANT_CLASS_INT16: return .int(Int64(g_variant_get_int16(value)))
        case G_VARIANT_CLASS_UINT16: return .int(Int64(g_variant_get_uint16(value)))
        case G_VARIANT_CLASS_INT32: return .int(Int64(g_variant_get_int32(value)))
        case G_VARIANT_CLASS_UINT32: return .int(Int64(g_variant_get_uint32(value)))
        case G_VARIANT_CLASS_INT64: return .int(Int64(g_variant_get_int64(value)))
        case G_VARIANT_CLASS_UINT64: return .int(Int64(truncatingIfNeeded: g_variant_get_uint64(value)))
        case G_VARIANT_CLASS_HANDLE: return .int(Int64(g_variant_get_handle(value)))
        case G_VARIANT_CLASS_DOUBLE: return .double(g_variant_get_double(value))
        case G_VARIANT_CLASS_STRING, G_VARIANT_CLASS_OBJECT_PATH, G_VARIANT_CLASS_SIGNATURE:
            return .string(String(cString: g_variant_get_string(value, nil)))
        case G_VARIANT_CLASS_VARIANT:
            let inner = g_variant_get_variant(value)!
            defer { g_variant_unref(inner) }
            return json(inner)
        case G_VARIANT_CLASS_MAYBE:
            return g_variant_n_children(value) == 0 ? .null : children(value)[0]
        case G_VARIANT_CLASS_ARRAY where String(cString: g_variant_get_type_string(value)).hasPrefix("a{"):
            var object: [String: JSONValue] = [:]
            for entry in children(value) {
                guard case .array(let pair) = entry, pair.count == 2 else { continue }
                object[text(pair[0])] = pair[1]
            }
            return .object(object)
        default:  // arrays, tuples, dictionary entries
            return .array(children(value))
        }
    }

    private static func children(_ value: OpaquePointer) -> [JSONValue] {
        (0..<g_variant_n_children(value)).map { index in
            let child = g_variant_get_child_value(value, index)!
            defer { g_variant_unref(child) }
            return json(child)
        }
    }

    /// A dictionary key as Python's `str()` gives it.
    private static func text(_ key: JSONValue) -> String {
        switch key {
        case .string(let text): text
        case .bool(let value): value ? "True" : "False"
        default: PythonJSON.text(key)
        }
    }
}

/// JSON text as Python's `json.dumps(value, sort_keys=True)` writes it: `", "` and `": "`
/// between items, keys sorted, every character outside printable ASCII escaped (`\u00e9`, a
/// surrogate pair beyond the BMP), floats as Python's `repr` (the shortest text that reads back).
enum PythonJSON {
    static func text(_ value: JSONValue) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    private static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .int(let number): out += String(number)
        case .double(let number):
            out += number.isFinite ? "\(number)" : (number.isNaN ? "NaN" : number < 0 ? "-Infinity" : "Infinity")
        case .string(let text): quote(text, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += ", " }
                write(item, to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += ", " }
                quote(key, to: &out)
                out += ": "
                write(members[key]!, to: &out)
            }
            out += "}"
        case .encoded(let bytes): out += String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func quote(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case " "..."~": out.unicodeScalars.append(scalar)
            default:
                for unit in String(scalar).utf16 { out += "\\u" + hex4(unit) }
            }
        }
        out += "\""
    }

    private static func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
