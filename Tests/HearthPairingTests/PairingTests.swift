import HearthCore
import HearthPairing
import Testing

@Suite("Pairing by numeric comparison: commit-then-reveal nonces, one six-digit code on both sides")
struct PairingTests {
    static let dad = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
    static let mum = "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"

    @Test("both devices derive the same code from the exchange, and the commitment checks the revealed nonce")
    func exchange() throws {
        // Responder (Mum's) commits first; initiator (Dad's) reveals; responder reveals.
        let mumNonce = Pairing.nonce()
        let commitment = Pairing.commitment(initiatorKey: Self.dad, responderKey: Self.mum, responderNonce: mumNonce)
        let dadNonce = Pairing.nonce()
        #expect(
            Pairing.verify(
                commitment: commitment, initiatorKey: Self.dad, responderKey: Self.mum, responderNonce: mumNonce))
        let onDad = Pairing.code(
            initiatorKey: Self.dad, responderKey: Self.mum, initiatorNonce: dadNonce, responderNonce: mumNonce)
        let onMum = Pairing.code(
            initiatorKey: Self.dad, responderKey: Self.mum, initiatorNonce: dadNonce, responderNonce: mumNonce)
        #expect(onDad == onMum)
        #expect(onDad.description.count == 7)
        #expect(try PairingCode(parsing: onDad.description) == onDad)
        #expect(try PairingCode(parsing: onDad.description.replacingOccurrences(of: " ", with: "")) == onDad)
    }

    @Test("a nonce other than the one committed to, or another key, fails the commitment")
    func commitmentBinds() {
        let nonce = Pairing.nonce()
        let commitment = Pairing.commitment(initiatorKey: Self.dad, responderKey: Self.mum, responderNonce: nonce)
        var other = nonce
        other[0] ^= 1
        #expect(
            !Pairing.verify(
                commitment: commitment, initiatorKey: Self.dad, responderKey: Self.mum, responderNonce: other))
        #expect(
            !Pairing.verify(
                commitment: commitment, initiatorKey: Self.mum, responderKey: Self.dad, responderNonce: nonce))
        #expect(
            !Pairing.verify(
                commitment: Array(commitment.prefix(16)), initiatorKey: Self.dad, responderKey: Self.mum,
                responderNonce: nonce))
        #expect(Pairing.nonce() != Pairing.nonce())
    }

    @Test("the code changes with either nonce and either key, and spreads evenly over the million")
    func codes() {
        let (a, b) = (Pairing.nonce(), Pairing.nonce())
        let code = Pairing.code(initiatorKey: Self.dad, responderKey: Self.mum, initiatorNonce: a, responderNonce: b)
        #expect(
            Pairing.code(initiatorKey: Self.mum, responderKey: Self.dad, initiatorNonce: a, responderNonce: b) != code)
        #expect(
            Pairing.code(initiatorKey: Self.dad, responderKey: Self.mum, initiatorNonce: b, responderNonce: a) != code)
        // 20,000 exchanges: each tenth of the range holds 2,000 ± a few percent.
        var tenths = [Int](repeating: 0, count: 10)
        for _ in 0..<20_000 {
            let value = Pairing.code(
                initiatorKey: Self.dad, responderKey: Self.mum, initiatorNonce: Pairing.nonce(),
                responderNonce: Pairing.nonce()
            ).value
            tenths[Int(value / 100_000)] += 1
        }
        #expect(tenths.allSatisfy { (1_800...2_200).contains($0) }, "\(tenths)")
    }

    @Test("a typed code is six digits, spaces allowed; anything else is refused naming the field")
    func parsing() throws {
        #expect(try PairingCode(parsing: "012 345").description == "012 345")
        #expect(try PairingCode(parsing: " 000001 ").description == "000 001")
        for bad in ["12345", "1234567", "12a456", "١٢٣٤٥٦", ""] {
            #expect(throws: RuleError.self, "\(bad)") { try PairingCode(parsing: bad) }
        }
    }
}
