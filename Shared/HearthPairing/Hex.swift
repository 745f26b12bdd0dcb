/// Bytes as lower-case hex: nonces and commitments in the pairing messages, key fingerprints.
public enum Hex {
    public static func text(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    public static func bytes(_ text: String) -> [UInt8]? {
        guard text.utf8.count % 2 == 0, text.utf8.count <= 256 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
