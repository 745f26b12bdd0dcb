import Foundation

/// Lower-case UUID text, the form Hearth uses for every id on the wire.
public enum UUIDText {
    private static let hex = Array("0123456789abcdef".utf8)

    /// A fresh random (version 4) UUID as `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
    ///
    /// Built by hand from the system's CSPRNG: `UUID().uuidString.lowercased()` cost ~4 µs here,
    /// and every event needs an id.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var words = (generator.next() as UInt64, generator.next() as UInt64)
        withUnsafeMutableBytes(of: &words) { bytes in
            bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
            bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        }
        var out: [UInt8] = []
        out.reserveCapacity(36)
        withUnsafeBytes(of: words) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
