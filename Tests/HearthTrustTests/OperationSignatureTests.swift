import HearthCore
import Testing

@testable import HearthTrust

/// An operation's signature covers every byte that makes it what it is, and only its author's
/// key verifies it.
@Suite("Signed operations", .timeLimit(.minutes(1)))
struct OperationSignatureTests {
    static let author = "a0a00000-0000-4000-8000-00000000000a"

    static let operation = Operation(
        id: OperationID(device: author, counter: 7), time: HybridTime(wall: 1_795_000_000_000, logical: 3),
        entity: EntityRef(kind: "event_card", id: "2026-08"),
        fields: [
            "title": FieldWrite(
                value: .text("Beach day é"),
                overwrites: [OperationID(device: author, counter: 2), OperationID(device: "b", counter: 9)]),
            "day": FieldWrite(value: .int(14)), "location": FieldWrite(value: .null),
            "done": FieldWrite(value: .bool(true)),
        ])

    @Test("a signature verifies with its author's key only, and the same key comes from the same CURVE secret")
    func verifies() {
        let key = SigningKey.derived(fromCurveSecret: "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7")
        let signature = key.sign(Self.operation)
        #expect(key.publicKey.verifies(signature, of: Self.operation))
        #expect(!SigningKey.generate().publicKey.verifies(signature, of: Self.operation))
        let again = SigningKey.derived(fromCurveSecret: "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7")
        #expect(again.publicKey == key.publicKey)
        #expect(SigningKey.derived(fromCurveSecret: "another secret").publicKey != key.publicKey)
        #expect(key.publicKey.fingerprint.count == 14)
        #expect(key.publicKey.fingerprint.split(separator: " ").count == 3)
    }

    @Test("the canonical bytes do not depend on the order fields or overwrites were given in")
    func canonical() {
        let reordered = Operation(
            id: Self.operation.id, time: Self.operation.time, entity: Self.operation.entity,
            fields: Dictionary(uniqueKeysWithValues: Self.operation.fields.reversed()))
        #expect(reordered.signedBytes == Self.operation.signedBytes)
    }

    @Test("changing any byte of the canonical encoding, or of the signature, fails verification")
    func tamperedByte() {
        let key = SigningKey.generate()
        let signature = key.sign(Self.operation)
        let bytes = Self.operation.signedBytes
        for index in bytes.indices {
            var tampered = bytes
            tampered[index] ^= 0x01
            #expect(!key.publicKey.verifies(signature.bytes, of: tampered), "byte \(index) of \(bytes.count)")
        }
        for index in signature.bytes.indices {
            var tampered = signature.bytes
            tampered[index] ^= 0x80
            #expect(!key.publicKey.verifies(tampered, of: bytes), "signature byte \(index)")
        }
    }

    @Test("every part of an operation is covered: id, time, entity, each field's name, value and overwrites")
    func everyPartCovered() {
        let key = SigningKey.generate()
        let signature = key.sign(Self.operation)
        let original = Self.operation
        func changed(
            id: OperationID? = nil, time: HybridTime? = nil, entity: EntityRef? = nil,
            fields: [String: FieldWrite]? = nil
        ) -> Operation {
            Operation(
                id: id ?? original.id, time: time ?? original.time, entity: entity ?? original.entity,
                fields: fields ?? original.fields)
        }
        var renamed = original.fields
        renamed["Title"] = renamed.removeValue(forKey: "title")
        var revalued = original.fields
        revalued["day"] = FieldWrite(value: .int(15))
        var retyped = original.fields
        retyped["day"] = FieldWrite(value: .text("14"))
        var reparented = original.fields
        reparented["title"] = FieldWrite(value: .text("Beach day é"), overwrites: [])
        var added = original.fields
        added["note"] = FieldWrite(value: .null)
        let variants = [
            changed(id: OperationID(device: Self.author, counter: 8)),
            changed(id: OperationID(device: "b0b00000-0000-4000-8000-00000000000b", counter: 7)),
            changed(time: HybridTime(wall: original.time.wall + 1, logical: 3)),
            changed(time: HybridTime(wall: original.time.wall, logical: 4)),
            changed(entity: EntityRef(kind: "event_card", id: "2026-09")),
            changed(entity: EntityRef(kind: "todo", id: "2026-08")), changed(fields: renamed),
            changed(fields: revalued), changed(fields: retyped), changed(fields: reparented), changed(fields: added),
        ]
        for variant in variants {
            #expect(!key.publicKey.verifies(signature, of: variant), "\(variant)")
        }
    }

    @Test("keys and signatures are read only in canonical base64 of the right length")
    func strictText() throws {
        let key = SigningKey.generate()
        let signature = key.sign(Self.operation)
        #expect(SigningPublicKey(text: key.publicKey.text) == key.publicKey)
        #expect(OperationSignature(text: signature.text) == signature)
        #expect(key.publicKey.text.utf8.count == 44)
        #expect(signature.text.utf8.count == 88)
        for bad in ["", "abc", String(key.publicKey.text.dropLast()), key.publicKey.text + "A", signature.text] {
            #expect(SigningPublicKey(text: bad) == nil, "\(bad)")
        }
        // The last character's unused bits: another spelling of the same bytes is refused.
        var text = Array(signature.text.utf8)
        let last = text.count - 3
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let value = try #require(alphabet.firstIndex(of: text[last]))
        text[last] = alphabet[value ^ 0x01]
        #expect(OperationSignature(text: String(decoding: text, as: UTF8.self)) == nil)
    }
}
