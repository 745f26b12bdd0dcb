import HearthCore
import HearthPairing
import Testing

@Suite("A pairing attempt from both sides: messages, code, two confirmations, failures and expiry")
struct PairingSessionTests {
    static let dad = PairingTests.dad
    static let mum = PairingTests.mum
    static let eve = "e3WrXrk)1Bq+]&<cJ0dFa$>3FQ0(2cxwT!Zvb.fo"

    let start = ContinuousClock.now

    /// Runs the exchange to the comparing state; returns both sides.
    private func exchanged(
        dadKey: String = dad, mumSeesKey: String = dad
    ) -> (dad: PairingSession, mum: PairingSession) {
        var (dad, request) = PairingSession.initiate(localKey: dadKey, remoteKey: Self.mum, now: start)
        #expect(request == .request(key: dadKey))
        var (mum, commit) = PairingSession.respond(to: mumSeesKey, localKey: Self.mum, now: start)
        let reveal = dad.receive(commit, now: start)
        let answer = mum.receive(reveal!, now: start)
        #expect(dad.receive(answer!, now: start) == nil)
        return (dad, mum)
    }

    @Test("both sides show one code; a pairing holds only once both confirmed")
    func happyPath() throws {
        var (dad, mum) = exchanged()
        let code = try #require(dad.code)
        #expect(mum.code == code)
        // Mum presses Confirm on the popup (no code typed); Dad types the code he sees on Mum's.
        let fromMum = mum.confirm(now: start)
        #expect(fromMum == .confirm)
        #expect(mum.state == .comparing(code))
        #expect(dad.receive(fromMum!, now: start) == nil)
        #expect(dad.state == .comparing(code))
        let fromDad = dad.confirm(typed: code, now: start + .seconds(30))
        #expect(dad.state == .paired(code))
        #expect(mum.receive(fromDad!, now: start + .seconds(31)) == nil)
        #expect(mum.state == .paired(code))
    }

    @Test("a wrong code typed ends the attempt on both sides")
    func wrongCode() throws {
        var (dad, mum) = exchanged()
        let code = try #require(dad.code)
        let wrong = try PairingCode(parsing: String(format: "%06d", (code.value + 1) % 1_000_000))
        let abort = dad.confirm(typed: wrong, now: start)
        guard case .abort(let reason) = abort else { Issue.record("no abort: \(String(describing: abort))"); return }
        #expect(reason.contains("is not this pairing's code"))
        #expect(mum.receive(abort!, now: start) == nil)
        guard case .failed(let why) = mum.state else { Issue.record("mum still \(mum.state)"); return }
        #expect(why.contains("the other device ended the pairing"))
        // Nothing brings a failed attempt back.
        #expect(dad.confirm(typed: code, now: start) == nil)
        #expect(!dad.confirmedHere)
    }

    @Test("a device in the middle with its own key makes the two sides show different codes")
    func middle() throws {
        // Eve sits between: Dad talks to Eve's key as if it were Mum's, Mum sees Eve's request.
        var (dad, toEve) = PairingSession.initiate(localKey: Self.dad, remoteKey: Self.eve, now: start)
        _ = toEve
        var (mum, commit) = PairingSession.respond(to: Self.eve, localKey: Self.mum, now: start)
        var (eveAsResponder, eveCommit) = PairingSession.respond(to: Self.dad, localKey: Self.eve, now: start)
        var (eveAsInitiator, _) = PairingSession.initiate(localKey: Self.eve, remoteKey: Self.mum, now: start)
        let dadReveal = dad.receive(eveCommit, now: start)!
        let eveReveal = eveAsInitiator.receive(commit, now: start)!
        toEve = mum.receive(eveReveal, now: start)!
        _ = eveAsInitiator.receive(toEve, now: start)
        _ = dad.receive(eveAsResponder.receive(dadReveal, now: start)!, now: start)
        let (onDad, onMum) = (try #require(dad.code), try #require(mum.code))
        // Eve had to commit before seeing either nonce: one chance in a million that they match.
        #expect(onDad != onMum)
    }

    @Test("a revealed nonce other than the one committed to is caught by the initiator")
    func brokenCommitment() {
        var (dad, _) = PairingSession.initiate(localKey: Self.dad, remoteKey: Self.mum, now: start)
        let (_, commit) = PairingSession.respond(to: Self.dad, localKey: Self.mum, now: start)
        _ = dad.receive(commit, now: start)
        let reply = dad.receive(.reveal(Pairing.nonce()), now: start)
        guard case .abort(let reason) = reply else { Issue.record("accepted a swapped nonce"); return }
        #expect(reason.contains("does not match its commitment"))
        #expect(dad.code == nil)
    }

    @Test("out of order, rejected or unconfirmed for two minutes: the attempt fails with the reason")
    func failures() {
        var (dad, _) = PairingSession.initiate(localKey: Self.dad, remoteKey: Self.mum, now: start)
        guard case .abort(let early) = dad.receive(.reveal(Pairing.nonce()), now: start) else {
            Issue.record("a nonce before the commitment was accepted")
            return
        }
        #expect(early.contains("unexpected nonce while exchanging nonces"))

        var (late, _) = exchanged()
        _ = late.confirm(now: start)
        #expect(late.expire(now: start + .seconds(119)) == nil)
        guard case .abort(let expired) = late.expire(now: start + .seconds(121)) else {
            Issue.record("did not expire")
            return
        }
        #expect(expired.contains("within 2 minutes"))
        #expect(late.expire(now: start + .seconds(122)) == nil)

        var (rejected, _) = exchanged()
        guard case .abort(let why) = rejected.reject(now: start) else { Issue.record("no abort"); return }
        #expect(why.contains("rejected"))

        var (hasty, _) = PairingSession.initiate(localKey: Self.dad, remoteKey: Self.mum, now: start)
        guard case .abort = hasty.confirm(now: start) else { Issue.record("confirmed before the code"); return }
    }
}
