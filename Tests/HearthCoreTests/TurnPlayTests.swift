import HearthBus
import Testing

@testable import HearthCore

/// The table's rules beyond Done: skip, sitting out, reverse, the timer, pause and the
/// statistics, on the session alone (the service's clock is `TurnServiceTests`').
@Suite("Turn session: skip, reverse, timer, statistics", .timeLimit(.minutes(1)))
struct TurnPlayTests {
    static let names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]

    /// A started game of the first `count` of `names`, led by Ann.
    static func game(_ count: Int) throws -> TurnSession {
        try TurnSessionTests.session(Array(names[1..<count]), started: true)
    }

    /// The names of the players whose turns come next, `count` of them, as Done passes it.
    static func order(_ session: inout TurnSession, _ count: Int) throws -> [String] {
        var seen: [String] = []
        for _ in 0..<count {
            let current = try #require(session.currentPlayer)
            seen.append(current.name)
            _ = try session.done(by: current.id, seq: nil)
        }
        return seen
    }

    @Test("skip: with 2 to 8 players the skipped player is passed over once, then plays again")
    func skipOnce() throws {
        for count in 2...8 {
            var session = try Self.game(count)
            let last = Self.names[count - 1]
            _ = try session.skip("id-\(last)", untilBack: false, by: "id-Ann", seq: nil)
            #expect(session.skipped == ["id-\(last)"])
            let turns = try Self.order(&session, 2 * count - 1)
            let round = Array(Self.names[0..<count])
            // The first round without the last player, then every player again.
            #expect(turns == Array(round.dropLast()) + round, "\(count) players")
            #expect(session.skipped.isEmpty)
        }
    }

    @Test("skip with no player: the current player's turn passes on, not counted; a turn counts for nobody")
    func skipCurrent() throws {
        for count in 2...8 {
            var session = try Self.game(count)
            let before = session.turn
            let change = try session.skip(nil, untilBack: false, by: "id-Ann", seq: nil)
            #expect(change.kind == .skipped && change.player?.name == "Ann")
            #expect(session.currentPlayer?.name == "Bob")
            #expect(session.turn == before + 1)
            #expect(session.turnStartSeq == session.seq)
            #expect(session.statistics.turns == 0)
        }
    }

    @Test("sitting out: passed over every round until back; at least one player must keep playing")
    func sittingOut() throws {
        for count in 2...8 {
            var session = try Self.game(count)
            _ = try session.skip("id-Bob", untilBack: true, by: "id-Ann", seq: nil)
            let others = Self.names[0..<count].filter { $0 != "Bob" }
            #expect(try Self.order(&session, 2 * others.count) == others + others, "\(count) players")
            #expect(throws: TurnError.sittingOut("Bob", true)) {
                try session.skip("id-Bob", untilBack: false, by: "id-Ann", seq: nil)
            }
            if count == 2 {
                #expect(throws: TurnError.nobodyPlaying("Ann")) {
                    try session.skip("id-Ann", untilBack: true, by: "id-Ann", seq: nil)
                }
            }
            _ = try session.comeBack("id-Bob")
            #expect(throws: TurnError.sittingOut("Bob", false)) { try session.comeBack("id-Bob") }
            let round = Array(Self.names[0..<count])
            #expect(try Self.order(&session, count) == round, "\(count) players, Bob back")
        }
    }

    @Test("a skipped or sat-out player leaving: the marks go with them and the order goes on")
    func leavingWhileSkipped() throws {
        for count in 3...8 {
            var session = try Self.game(count)
            _ = try session.skip("id-Bob", untilBack: false, by: "id-Ann", seq: nil)
            _ = try session.skip("id-Cy", untilBack: true, by: "id-Ann", seq: nil)
            _ = try session.leave("id-Bob")
            _ = try session.leave("id-Cy")
            #expect(session.skipped.isEmpty && session.sittingOut.isEmpty)
            try session.validate()
            let left = Self.names[0..<count].filter { $0 != "Bob" && $0 != "Cy" }
            #expect(try Self.order(&session, left.count) == left, "\(count) players")
        }
        // The current player sat out, then leaving: the turn is already past them.
        var session = try Self.game(3)
        _ = try session.skip(nil, untilBack: true, by: "id-Ann", seq: nil)
        #expect(session.currentPlayer?.name == "Bob")
        _ = try session.leave("id-Ann")
        #expect(session.currentPlayer?.name == "Bob")
        #expect(session.leaderPlayer?.name == "Bob")
    }

    @Test("reverse: the current player keeps the turn, the next is the one before, for 2 to 8 players")
    func reverse() throws {
        for count in 2...8 {
            var session = try Self.game(count)
            _ = try Self.order(&session, 2)  // Ann, Bob played; it is the third player's turn (or Ann's of 2)
            let current = try #require(session.currentPlayer)
            let index = try #require(Self.names.firstIndex(of: current.name))
            let change = try session.reverse(by: current.id, seq: nil)
            #expect(change.kind == .reversed)
            #expect(session.currentPlayer == current)
            let expected = (0..<count).map { Self.names[(index - $0 + count) % count] }
            #expect(try Self.order(&session, count) == expected, "\(count) players")
        }
        // Only the leader or the current player plays a reverse.
        var session = try Self.game(3)
        #expect(throws: TurnError.notLeader("Cy")) { try session.reverse(by: "id-Cy", seq: nil) }
    }

    @Test("a stale skip, reverse, timer or pause (an old popup's button, a second tap) is refused and changes nothing")
    func staleControls() throws {
        var session = try Self.game(4)
        let seen = session.seq
        _ = try session.reverse(by: "id-Ann", seq: seen)
        let after = session
        // The same tap again: the state it was for is before the reverse.
        #expect(throws: TurnError.stale(seen: seen, current: session.seq)) {
            try session.reverse(by: "id-Ann", seq: seen)
        }
        #expect(throws: TurnError.self) { try session.skip(nil, untilBack: false, by: "id-Ann", seq: seen) }
        #expect(throws: TurnError.self) { try session.setTimer(nil, by: "id-Ann", seq: seen) }
        #expect(throws: TurnError.self) { try session.pause(by: "id-Ann", seq: seen) }
        #expect(session == after)
        // A presence change in between does not make a button stale; a turn passing does.
        let fresh = session.seq
        _ = session.setPresence(device: "dev-Dee", present: false)
        _ = try session.pause(by: "id-Ann", seq: fresh)
        _ = try session.resume(by: "id-Ann", seq: session.seq)
        let beforeTurn = session.seq
        _ = try session.done(by: try #require(session.current), seq: nil)
        #expect(throws: TurnError.self) { try session.skip(nil, untilBack: false, by: "id-Ann", seq: beforeTurn) }
        // Only the leader skips, times and pauses.
        #expect(throws: TurnError.notLeader("Bob")) { try session.pause(by: "id-Bob", seq: nil) }
    }

    @Test("the timer: warning at 10 s left (or a fifth, when later), time's up once, and with pass the turn moves on")
    func timer() throws {
        var session = try Self.game(3)
        _ = try session.setTimer(try TurnTimer(limit: 90_000), by: "id-Ann", seq: nil)
        session.advanceClock(by: 79_000)
        #expect(session.checkTimer().isEmpty)
        #expect(session.timerDue == 1_000)
        session.advanceClock(by: 1_000)
        #expect(session.checkTimer().map(\.kind) == [.warning])
        #expect(session.checkTimer().isEmpty)
        session.advanceClock(by: 10_000)
        #expect(session.checkTimer().map(\.kind) == [.timeUp])
        #expect(session.currentPlayer?.name == "Ann")  // no pass: Ann still plays, time's up said once
        #expect(session.checkTimer().isEmpty)
        #expect(session.timerDue == nil)

        // A 30 s timer warns at 6 s left; with pass, the turn goes to Bob and counts for Ann.
        var passing = try Self.game(3)
        _ = try passing.setTimer(try TurnTimer(limit: 30_000, passes: true), by: "id-Ann", seq: nil)
        #expect(passing.timerDue == 24_000)
        passing.advanceClock(by: 31_000)  // late (a take-over): the warning is not given with the end
        #expect(passing.checkTimer().map(\.kind) == [.timeUp])
        #expect(passing.currentPlayer?.name == "Bob")
        #expect(passing.clock.used == 0 && passing.clock.stage == .running)
        #expect(passing.statistics.tallies.first?.total == 31_000)

        // Paused: the clock stands still and nothing is due.
        _ = try passing.pause(by: "id-Ann", seq: nil)
        passing.advanceClock(by: 60_000)
        #expect(passing.clock.used == 0 && passing.timerDue == nil && passing.checkTimer().isEmpty)
        #expect(throws: TurnError.invalidTimer("must be from 5 s to 24 h, not 0:04")) {
            try TurnTimer(limit: 4_000)
        }
        #expect(throws: TurnError.self) { try TurnCommandArguments.timer(seconds: -9_223_372_036_854_775, passes: nil) }
    }

    @Test("statistics equal a hand count of a scripted game: turns, average, longest, total, who took longest")
    func statistics() throws {
        var session = try Self.game(3)
        // (player, milliseconds): Ann 3 s, Bob 5 s, Cy 2 s, Ann 7 s, Bob skipped after 4 s (not
        // counted), Cy 1 s, a pause of 10 min during Ann's 6 s turn, then the game ends during it.
        for (name, time) in [("Ann", 3_000), ("Bob", 5_000), ("Cy", 2_000), ("Ann", 7_000)] as [(String, Int64)] {
            #expect(session.currentPlayer?.name == name)
            session.advanceClock(by: time)
            _ = try session.done(by: "id-\(name)", seq: nil)
        }
        session.advanceClock(by: 4_000)
        _ = try session.skip(nil, untilBack: false, by: "id-Ann", seq: nil)
        session.advanceClock(by: 1_000)
        _ = try session.done(by: "id-Cy", seq: nil)
        session.advanceClock(by: 2_000)
        _ = try session.pause(by: "id-Ann", seq: nil)
        session.advanceClock(by: 600_000)
        _ = try session.resume(by: "id-Ann", seq: nil)
        session.advanceClock(by: 4_000)
        _ = try session.end(by: "id-Ann")

        let tallies = Dictionary(uniqueKeysWithValues: session.statistics.tallies.map { ($0.name, $0) })
        #expect(session.statistics.tallies.map(\.name) == ["Ann", "Bob", "Cy"])
        #expect(tallies["Ann"] == .init(player: "id-Ann", name: "Ann", turns: 3, total: 16_000, longest: 7_000))
        #expect(tallies["Bob"] == .init(player: "id-Bob", name: "Bob", turns: 1, total: 5_000, longest: 5_000))
        #expect(tallies["Cy"] == .init(player: "id-Cy", name: "Cy", turns: 2, total: 3_000, longest: 2_000))
        #expect(tallies["Ann"]?.average == 5_333)
        #expect(session.statistics.turns == 6 && session.statistics.total == 24_000)
        #expect(session.statistics.longest?.name == "Ann")
        #expect(session.statistics.longestLine == "Ann took longest: 7 s")
        #expect(session.statistics.lines[0] == "Ann  3 turns · average 0:05 · longest 0:07 · total 0:16")

        // The ended session carries them on the wire and back.
        let copy = try JSONValue(encoding: session).decode(TurnSession.self)
        #expect(copy == session)
    }

    @Test("a step carries the clock, the skips and the statistics; a copy at its base ends equal to the leader's")
    func stepCarriesPlay() throws {
        var leader = try Self.game(4)
        _ = try leader.setTimer(try TurnTimer(limit: 60_000), by: "id-Ann", seq: nil)
        var copy = leader
        for move in 0..<6 {
            let previous = leader
            leader.advanceClock(by: 1_500)
            let change: TurnSession.Change
            switch move {
            case 0: change = try leader.skip("id-Cy", untilBack: false, by: "id-Ann", seq: nil)
            case 1: change = try leader.pause(by: "id-Ann", seq: nil)
            case 2: change = try leader.resume(by: "id-Ann", seq: nil)
            case 3: change = try leader.skip("id-Dee", untilBack: true, by: "id-Ann", seq: nil)
            default: change = try leader.done(by: try #require(leader.current), seq: nil)
            }
            let step = try #require(TurnSession.Step(from: previous, to: leader, change: change))
            let wire = try JSONValue(encoding: step).decode(TurnSession.Step.self)
            copy = try wire.applied(to: copy).session
            #expect(copy == leader, "move \(move)")
        }
        #expect(copy.statistics.turns == 2)
    }
}
