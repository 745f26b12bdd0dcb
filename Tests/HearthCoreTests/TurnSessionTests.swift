import Testing

@testable import HearthCore

/// The turn rules on their own: every transition and every refusal.
@Suite("Turn session", .timeLimit(.minutes(1)))
struct TurnSessionTests {
    static func player(_ name: String, device: String? = nil) -> TurnSession.Player {
        TurnSession.Player(id: "id-\(name)", name: name, device: device ?? "dev-\(name)")
    }

    /// A session led by Ann with `names` joined after her.
    static func session(_ names: [String] = ["Bob", "Cy"], started: Bool = false) throws -> TurnSession {
        var session = try TurnSession(id: "s1", code: "J7X-3", leader: player("Ann"))
        for name in names { _ = try session.join(player(name)) }
        if started { _ = try session.start(by: "id-Ann") }
        return session
    }

    @Test("a new session: open, leader is the first player, seq 1")
    func created() throws {
        let session = try Self.session([])
        #expect(session.state == .open)
        #expect(session.players.map(\.name) == ["Ann"])
        #expect(session.leaderPlayer?.name == "Ann")
        #expect(session.seq == 1)
        #expect(throws: TurnError.invalidCode("J0X-3")) {
            try TurnSession(id: "s", code: "J0X-3", leader: Self.player("A"))
        }
    }

    @Test("2 players start; 1 does not; 8 join; a 9th is refused")
    func playerCounts() throws {
        var alone = try Self.session([])
        #expect(throws: TurnError.tooFewPlayers(1)) { try alone.start(by: "id-Ann") }
        var two = try Self.session(["Bob"])
        _ = try two.start(by: "id-Ann")
        #expect(two.state == .playing)
        #expect(two.currentPlayer?.name == "Ann")

        var full = try Self.session(["B", "C", "D", "E", "F", "G", "H"])
        #expect(full.players.count == 8)
        #expect(throws: TurnError.full("J7X-3")) { try full.join(Self.player("I")) }
        #expect(full.players.count == 8)
    }

    @Test("names: unique ignoring case, non-empty, at most 32 characters")
    func names() throws {
        var session = try Self.session()
        #expect(throws: TurnError.nameTaken("bob")) { try session.join(Self.player("bob")) }
        #expect(throws: TurnError.self) { try session.join(Self.player("")) }
        #expect(throws: TurnError.self) { try session.join(Self.player(" Dee")) }
        #expect(throws: TurnError.self) { try session.join(Self.player(String(repeating: "x", count: 33))) }
        _ = try session.join(Self.player(String(repeating: "x", count: 32)))
    }

    @Test("the leader's device restarted: the next device's player leads, the restarted device's players stay, away")
    func handOver() throws {
        var session = try Self.session(["Bob", "Cy"], started: true)
        let before = session.seq
        let changes = session.handOver(from: "dev-Ann")
        #expect(changes.map(\.kind) == [.leader, .away])
        #expect(session.leaderPlayer?.name == "Bob")
        #expect(session.players.map(\.name) == ["Ann", "Bob", "Cy"])
        #expect(session.player(named: "Ann")?.present == false)
        #expect(session.currentPlayer?.name == "Ann")  // her turn waits for her device
        #expect(session.seq == before + 2)
        // A device that does not lead only goes away; a game whose every player sits there stays as it is.
        #expect(session.handOver(from: "dev-Cy").map(\.kind) == [.away])
        var alone = try TurnSession(id: "s2", code: "K2M-4", leader: Self.player("Ann"))
        _ = try alone.join(Self.player("Zed", device: "dev-Ann"))
        #expect(alone.handOver(from: "dev-Ann").isEmpty)
    }

    @Test("names: a family emoji is a name (joiners are text); control characters and direction overrides are not")
    func emojiNames() throws {
        var session = try Self.session()
        _ = try session.join(Self.player("👨‍👩‍👧‍👦"))
        _ = try session.join(Self.player("Zoë 🏳️‍🌈"))
        #expect(throws: TurnError.self) { try session.join(Self.player("bell\u{07}")) }
        #expect(throws: TurnError.self) { try session.join(Self.player("evil\u{202E}txt")) }
    }

    @Test("only the leader starts, reorders and ends")
    func leaderOnly() throws {
        var session = try Self.session()
        #expect(throws: TurnError.notLeader("Bob")) { try session.start(by: "id-Bob") }
        #expect(throws: TurnError.notLeader("Bob")) { try session.reorder(["Cy", "Bob", "Ann"], by: "id-Bob") }
        #expect(throws: TurnError.notLeader("Cy")) { try session.end(by: "id-Cy") }
        _ = try session.start(by: "id-Ann")
        #expect(throws: TurnError.alreadyStarted("J7X-3")) { try session.start(by: "id-Ann") }
    }

    @Test("done passes the turn in order and cycles; seq and turn count move on")
    func cycling() throws {
        var session = try Self.session(started: true)
        var order: [String] = []
        for _ in 0..<7 {
            order.append(session.currentPlayer!.name)
            let before = session.seq
            let change = try session.done(by: session.current!, seq: session.seq)
            #expect(change.kind == .done)
            #expect(session.seq == before + 1)
        }
        #expect(order == ["Ann", "Bob", "Cy", "Ann", "Bob", "Cy", "Ann"])
        #expect(session.turn == 8)
    }

    @Test("a done from anyone else, or a stale or repeated one, is refused and changes nothing")
    func refusedDone() throws {
        var session = try Self.session(started: true)
        let seen = session.seq
        #expect(throws: TurnError.notYourTurn("Bob", current: "Ann")) { try session.done(by: "id-Bob", seq: seen) }
        _ = try session.done(by: "id-Ann", seq: seen)
        let after = session
        // Ann taps Done twice: not her turn any more.
        #expect(throws: TurnError.notYourTurn("Ann", current: "Bob")) { try session.done(by: "id-Ann", seq: seen) }
        // Bob's Done carrying the seq from before his turn began (a late retry of an old popup).
        #expect(throws: TurnError.stale(seen: seen, current: after.seq)) { try session.done(by: "id-Bob", seq: seen) }
        #expect(session == after)
        // A seq from the future is as wrong as one from the past.
        #expect(throws: TurnError.stale(seen: after.seq + 5, current: after.seq)) {
            try session.done(by: "id-Bob", seq: after.seq + 5)
        }
        // In a two-player game a double tap must not come back round to the same player.
        var two = try Self.session(["Bob"], started: true)
        let twoSeen = two.seq
        _ = try two.done(by: "id-Ann", seq: twoSeen)
        _ = try two.done(by: "id-Bob", seq: two.seq)
        #expect(two.currentPlayer?.name == "Ann")
        #expect(throws: TurnError.stale(seen: twoSeen, current: two.seq)) { try two.done(by: "id-Ann", seq: twoSeen) }
        #expect(two.currentPlayer?.name == "Ann")
    }

    @Test("a join during play, and a change during a turn, do not make that turn's Done stale")
    func lateJoin() throws {
        var session = try Self.session(["Bob"], started: true)
        let seen = session.seq
        _ = try session.join(Self.player("Dee"))
        #expect(session.players.map(\.name) == ["Ann", "Bob", "Dee"])
        _ = try session.done(by: "id-Ann", seq: seen)
        _ = try session.done(by: "id-Bob", seq: session.seq)
        #expect(session.currentPlayer?.name == "Dee")
    }

    @Test("reordering during play: the current player keeps the turn, the next follows the new order")
    func reorderDuringPlay() throws {
        var session = try Self.session(["Bob", "Cy", "Dee"], started: true)
        _ = try session.done(by: "id-Ann", seq: session.seq)  // Bob's turn
        _ = try session.reorder(["Bob", "Dee", "Ann", "Cy"], by: "id-Ann")
        #expect(session.currentPlayer?.name == "Bob")
        _ = try session.done(by: "id-Bob", seq: session.seq)
        #expect(session.currentPlayer?.name == "Dee")
        #expect(throws: TurnError.unknownPlayer("Zed")) {
            try session.reorder(["Bob", "Dee", "Ann", "Zed"], by: "id-Ann")
        }
        #expect(throws: TurnError.malformed("order: missing Cy")) {
            try session.reorder(["Bob", "Dee", "Ann"], by: "id-Ann")
        }
        #expect(throws: TurnError.malformed("order: Bob twice")) {
            try session.reorder(["Bob", "Bob", "Ann", "Cy"], by: "id-Ann")
        }
    }

    @Test("the current player leaving passes the turn to the next in order")
    func currentLeaves() throws {
        var session = try Self.session(["Bob", "Cy"], started: true)
        _ = try session.done(by: "id-Ann", seq: session.seq)  // Bob's turn
        let bobSeq = session.seq
        let changes = try session.leave("id-Bob")
        #expect(changes.map(\.kind) == [.left])
        #expect(session.currentPlayer?.name == "Cy")
        #expect(session.players.map(\.name) == ["Ann", "Cy"])
        // Bob's old Done cannot act for Cy.
        #expect(throws: TurnError.self) { try session.done(by: "id-Cy", seq: bobSeq) }
        _ = try session.done(by: "id-Cy", seq: session.seq)
        #expect(session.currentPlayer?.name == "Ann")
    }

    @Test("the last player in order leaving on their turn passes it round to the first")
    func lastLeaves() throws {
        var session = try Self.session(["Bob", "Cy"], started: true)
        _ = try session.done(by: "id-Ann", seq: session.seq)
        _ = try session.done(by: "id-Bob", seq: session.seq)  // Cy's turn
        _ = try session.leave("id-Cy")
        #expect(session.currentPlayer?.name == "Ann")
    }

    @Test("a leader leaving mid-turn hands the turn and leadership to the next player")
    func leaderLeaves() throws {
        var session = try Self.session(["Bob", "Cy"], started: true)
        let changes = try session.leave("id-Ann")
        #expect(changes.map(\.kind) == [.left, .leader])
        #expect(changes.last?.player?.name == "Bob")
        #expect(session.leaderPlayer?.name == "Bob")
        #expect(session.currentPlayer?.name == "Bob")
        _ = try session.reorder(["Cy", "Bob"], by: "id-Bob")
        _ = try session.end(by: "id-Bob")
        #expect(session.state == .ended)
    }

    @Test("a non-current player leaving keeps the turn where it is; the last one leaving ends it")
    func othersLeave() throws {
        var session = try Self.session(["Bob", "Cy"], started: true)
        _ = try session.leave("id-Cy")
        #expect(session.currentPlayer?.name == "Ann")
        _ = try session.done(by: "id-Ann", seq: session.seq)
        #expect(session.currentPlayer?.name == "Bob")
        _ = try session.leave("id-Ann")
        let last = try session.leave("id-Bob")
        #expect(last.map(\.kind) == [.left, .ended])
        #expect(session.state == .ended)
        #expect(throws: TurnError.ended("J7X-3")) { try session.join(Self.player("Dee")) }
    }

    @Test("presence: away and back per device, once each; a vanished leader's device is removed")
    func presence() throws {
        var session = try TurnSession(id: "s", code: "J7X-3", leader: Self.player("Ann", device: "d1"))
        _ = try session.join(Self.player("Bob", device: "d2"))
        _ = try session.join(Self.player("Cy", device: "d3"))
        _ = try session.start(by: "id-Ann")
        #expect(session.setPresence(device: "d2", present: false)?.kind == .away)
        #expect(session.setPresence(device: "d2", present: false) == nil)
        #expect(session.player("id-Bob")?.present == false)
        #expect(session.setPresence(device: "d2", present: true)?.kind == .back)
        let changes = session.remove(device: "d1")
        #expect(changes.map(\.kind) == [.left, .leader])
        #expect(session.leaderPlayer?.name == "Bob")
        #expect(session.currentPlayer?.name == "Bob")
        #expect(session.devices == ["d2", "d3"])
    }

    @Test("codes: the alphabet has no look-alikes, codes are unique among those taken, typed forms normalise")
    func codes() {
        for character in "01OIL" { #expect(!SessionCode.alphabet.contains(character)) }
        var generator = SystemRandomNumberGenerator()
        var taken = Set<String>()
        for _ in 0..<500 {
            let code = SessionCode.make(avoiding: taken, using: &generator)
            #expect(SessionCode.isValid(code))
            #expect(!taken.contains(code))
            taken.insert(code)
        }
        #expect(SessionCode.normalized("j7x3") == "J7X-3")
        #expect(SessionCode.normalized("J7X 3") == "J7X-3")
        #expect(SessionCode.normalized("J0X-3") == nil)
        #expect(SessionCode.normalized("J7X-33") == nil)
    }
}

extension TurnSessionTests {
    @Test("a player left alone keeps playing: Done comes back to them")
    func alone() throws {
        var session = try Self.session(["Bob"], started: true)
        _ = try session.leave("id-Bob")
        #expect(session.players.count == 1)
        _ = try session.done(by: "id-Ann", seq: session.seq)
        #expect(session.currentPlayer?.name == "Ann")
        #expect(session.turn == 2)
    }

    @Test(
        "a received seq, turn or turn start above 2^53 − 1 or below 0 is refused, naming it; at the largest, a turn passes without a trap"
    )
    func counterBounds() throws {
        let game = try Self.session(["Bob"], started: true)
        func received(seq: Int64? = nil, turn: Int64? = nil, turnStartSeq: Int64? = nil) -> TurnSession {
            TurnSession(
                id: game.id, code: game.code, seq: seq ?? game.seq, state: game.state, players: game.players,
                current: game.current, leader: game.leader, turn: turn ?? game.turn,
                turnStartSeq: turnStartSeq ?? game.turnStartSeq)
        }
        let largest = TurnSession.maximumSeq
        #expect(largest == 9_007_199_254_740_991)
        for (copy, field) in [
            (received(seq: largest + 1), "seq"), (received(seq: .max), "seq"), (received(turn: -1), "turn"),
            (received(turn: .max), "turn"), (received(turnStartSeq: -1), "turn_start_seq"),
            (received(turnStartSeq: .max), "turn_start_seq"),
        ] {
            do {
                try copy.validate()
                Issue.record("\(field) out of range was accepted")
            } catch {
                #expect(error.field == "session")
                #expect(error.description.contains(field), "\(error)")
            }
        }
        // At the largest values a copy is valid, and moving it on does not trap.
        var top = received(seq: largest, turn: largest, turnStartSeq: largest)
        try top.validate()
        _ = try top.done(by: "id-Ann", seq: largest)
        #expect(top.seq == largest + 1 && top.turn == largest + 1)
        #expect(throws: TurnError.self) { try top.validate() }
    }
}
