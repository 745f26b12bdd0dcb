/// The bytes an operation's author signs: one canonical encoding of everything that makes the
/// operation what it is — its id, its time, its entity and every field it sets with the writes it
/// replaces — and nothing else.
///
/// Binary and length-prefixed rather than JSON: a JSON text has many spellings of one value (key
/// order, escapes, spaces), and a signature over one spelling would fail on another device that
/// re-encoded the same operation. Here every value has exactly one encoding:
///
/// - a purpose tag, `hearth/op/1`, so the bytes can never be taken for another signed message;
/// - texts as a 4-byte big-endian length and their UTF-8 bytes, integers as 8 big-endian bytes
///   (the logical clock as 4);
/// - fields in the byte order of their names' UTF-8, each value as a tag (0 null, 1 boolean, 2
///   integer, 3 text) and its bytes, and the operations it overwrites in id order.
///
/// A change to any byte of any of these changes the encoding, so the signature no longer
/// verifies (`OperationSignatureTests` flips each byte in turn).
extension Operation {
    /// The canonical bytes of this operation, as signed by its author.
    public var signedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + fields.count * 64)
        Self.append(text: "hearth/op/1", to: &out)
        Self.append(text: id.device, to: &out)
        Self.append(integer: id.counter, to: &out)
        Self.append(integer: UInt64(bitPattern: time.wall), to: &out)
        Self.append(word: time.logical, to: &out)
        Self.append(text: entity.kind, to: &out)
        Self.append(text: entity.id, to: &out)
        let ordered = fields.map { (name: Array($0.key.utf8), write: $0.value) }
            .sorted { $0.name.lexicographicallyPrecedes($1.name) }
        Self.append(word: UInt32(ordered.count), to: &out)
        for (name, write) in ordered {
            Self.append(bytes: name, to: &out)
            switch write.value {
            case .null: out.append(0)
            case .bool(let flag): out += [1, flag ? 1 : 0]
            case .int(let number):
                out.append(2)
                Self.append(integer: UInt64(bitPattern: number), to: &out)
            case .text(let text):
                out.append(3)
                Self.append(text: text, to: &out)
            }
            let overwrites = write.overwrites.sorted { lhs, rhs in
                lhs.device.utf8.elementsEqual(rhs.device.utf8)
                    ? lhs.counter < rhs.counter : lhs.device.utf8.lexicographicallyPrecedes(rhs.device.utf8)
            }
            Self.append(word: UInt32(overwrites.count), to: &out)
            for parent in overwrites {
                Self.append(text: parent.device, to: &out)
                Self.append(integer: parent.counter, to: &out)
            }
        }
        return out
    }

    private static func append(text: String, to out: inout [UInt8]) {
        append(bytes: Array(text.utf8), to: &out)
    }

    private static func append(bytes: [UInt8], to out: inout [UInt8]) {
        append(word: UInt32(bytes.count), to: &out)
        out += bytes
    }

    private static func append(word: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> shift)) }
    }

    private static func append(integer: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: integer >> shift)) }
    }
}
