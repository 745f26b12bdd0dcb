import CZlib
import Foundation

/// A page of operations as it crosses between devices and between a store and hearth-sync
/// (`ops.export` with `packed`, `ops.import` with `packed`): the JSON array, deflated (zlib) and
/// in base64. Operations repeat their device ids in every id and every
/// overwritten parent, so a year of twelve cards each edited three times goes from 9,199 bytes
/// as JSON to under a third of that (`hearth-bench sync`: year_bytes).
///
/// Unpacking is bounded: a page that would inflate past `maximumBytes` is refused, never
/// allocated (a small message cannot become a huge one).
public enum PackedPage {
    public enum Failure: Error, CustomStringConvertible {
        case notBase64
        case tooLarge(Int)
        case corrupt(Int32)
        case notOperations(String)

        public var description: String {
            switch self {
            case .notBase64: "packed: must be base64"
            case .tooLarge(let limit): "packed: inflates beyond \(limit) bytes"
            case .corrupt(let code): "packed: not a zlib stream (zlib error \(code))"
            case .notOperations(let reason): "packed: \(reason)"
            }
        }
    }

    /// `operations` deflated, in base64.
    public static func pack(_ operations: [JSONValue]) -> String {
        let input = JSONValue.array(operations).jsonBytes
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { source in
                compress2(out.baseAddress, &length, source.baseAddress, uLong(source.count), 6)
            }
        }
        // compress2 into compressBound bytes cannot fail but for memory; an empty page then.
        guard status == Z_OK else { return "" }
        return Data(output[0..<Int(length)]).base64EncodedString()
    }

    /// The operations of a packed page.
    /// - Throws: `Failure` naming what is wrong (never a trap, whatever the input).
    public static func unpack(_ text: String, maximumBytes: Int) throws(Failure) -> [JSONValue] {
        guard let data = Data(base64Encoded: text) else { throw .notBase64 }
        let input = [UInt8](data)
        var length = uLong(maximumBytes)
        var output = [UInt8](repeating: 0, count: maximumBytes)
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { source in
                uncompress(out.baseAddress, &length, source.baseAddress, uLong(source.count))
            }
        }
        switch status {
        case Z_OK: break
        // Out of room (the output is full) is a page too large; anything else a broken stream.
        case Z_BUF_ERROR where length == uLong(maximumBytes): throw .tooLarge(maximumBytes)
        default: throw .corrupt(status)
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(output[0..<Int(length)])
        } catch {
            throw .notOperations("not JSON: \(error)")
        }
        guard let operations = value.arrayValue else { throw .notOperations("must be an array of operations") }
        return operations
    }
}
