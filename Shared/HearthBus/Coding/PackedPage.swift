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
        // An empty page when deflate fails (for want of memory only). A small page (a year's
        // cards: 4.8 KB) as small as it goes; a large one at zlib's default, for time.
        let json = JSONValue.array(operations).jsonBytes
        return Data(Deflate.compress(json, effort: json.count > Deflate.largeBytes ? .balanced : .smallest))
            .base64EncodedString()
    }

    /// The operations of a packed page.
    /// - Throws: `Failure` naming what is wrong (never a trap, whatever the input).
    public static func unpack(_ text: String, maximumBytes: Int) throws(Failure) -> [JSONValue] {
        guard let data = Data(base64Encoded: text) else { throw .notBase64 }
        let output: [UInt8]
        do throws(Deflate.Failure) {
            output = try Deflate.inflate([UInt8](data), maximumBytes: maximumBytes)
        } catch {
            switch error {
            case .tooLarge(let limit): throw .tooLarge(limit)
            case .corrupt(let code): throw .corrupt(code)
            }
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(output)
        } catch {
            throw .notOperations("not JSON: \(error)")
        }
        guard let operations = value.arrayValue else { throw .notOperations("must be an array of operations") }
        return operations
    }
}
