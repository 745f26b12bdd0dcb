import HearthBus
import Testing

@testable import HearthCore

/// A transition pushed as a step: what the leader's device sends instead of the whole session
/// when the players stayed as they were, and what a copy does with it.
@Suite("Turn session steps", .timeLimit(.minutes(1)))
struct TurnStepTests {
    @Test("a turn passed, play started, play ended: a copy at the step's base becomes the leader's session")
    func stepsRebuildTheSession() throws {
        let open = try TurnSessionTests.session(["Bob", "Cy"])
        var playing = open
        let started = try playing.start(by: "id-Ann")
        var passed = playing
        let done = try passed.done(by: "id-Ann", seq: passed.seq)
        var ended = passed
        let end = try ended.end(by: "id-Ann")
        for (previous, next, change) in [(open, playing, started), (playing, passed, done), (passed, ended, end)] {
            let step = try #require(TurnSession.Step(from: previous, to: next, change: change))
            #expect(step.base == previous.seq)
            let (copy, made) = try step.applied(to: previous)
            #expect(copy == next)
            #expect(made == change)
            // The wire form round-trips.
            let wire = try JSONValue(encoding: step)
            #expect(try wire.decode(TurnSession.Step.self) == step)
            #expect(wire["turn_start_seq"]?.intValue == next.turnStartSeq)
        }
    }

    @Test("no step when the players changed (join, leave, reorder, away), for another session or no newer seq")
    func noStep() throws {
        let before = try TurnSessionTests.session(["Bob", "Cy"], started: true)
        var joined = before
        let join = try joined.join(TurnSessionTests.player("Dee"))
        #expect(TurnSession.Step(from: before, to: joined, change: join) == nil)
        var left = before
        let leave = try left.leave("id-Cy")
        #expect(TurnSession.Step(from: before, to: left, change: leave.last) == nil)
        var reordered = before
        let reorder = try reordered.reorder(["Cy", "Bob", "Ann"], by: "id-Ann")
        #expect(TurnSession.Step(from: before, to: reordered, change: reorder) == nil)
        var away = before
        let gone = away.setPresence(device: "dev-Bob", present: false)
        #expect(gone?.kind == .away)
        #expect(TurnSession.Step(from: before, to: away, change: gone) == nil)
        #expect(TurnSession.Step(from: before, to: before, change: nil) == nil)
        let other = try TurnSession(id: "s2", code: before.code, leader: TurnSessionTests.player("Ann"))
        #expect(TurnSession.Step(from: other, to: before, change: nil) == nil)
    }

    @Test("a copy not at the base, of another session, or a step that breaks the session is refused, naming the field")
    func refused() throws {
        let behind = try TurnSessionTests.session(["Bob"], started: true)
        var atBase = behind
        _ = try atBase.done(by: "id-Ann", seq: atBase.seq)
        var next = atBase
        let done = try next.done(by: "id-Bob", seq: next.seq)
        let step = try #require(TurnSession.Step(from: atBase, to: next, change: done))

        func refusal(_ step: TurnSession.Step, _ copy: TurnSession) -> String? {
            do {
                _ = try step.applied(to: copy)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(step, behind) == "base: the step is from seq \(atBase.seq), not \(behind.seq)")
        let otherGame = try TurnSession(id: "s9", code: "K7X-4", leader: TurnSessionTests.player("Ann"))
        #expect(refusal(step, otherGame) == "code: a step for \(step.code), not K7X-4")
        let stranger = TurnSession.Step(
            code: step.code, base: step.base, seq: step.seq, state: .playing, current: "id-Zed", leader: step.leader,
            turn: step.turn, turnStartSeq: step.turnStartSeq, change: .done, player: "id-Bob")
        #expect(refusal(stranger, atBase) == "current: not a player")
        let unknown = TurnSession.Step(
            code: step.code, base: step.base, seq: step.seq, state: .playing, current: step.current,
            leader: step.leader, turn: step.turn, turnStartSeq: step.turnStartSeq, change: .done, player: "id-Zed")
        #expect(refusal(unknown, atBase) == "player: id-Zed is not playing")
        let backwards = TurnSession.Step(
            code: step.code, base: step.base, seq: step.base, state: .playing, current: step.current,
            leader: step.leader, turn: step.turn, turnStartSeq: step.turnStartSeq, change: nil, player: nil)
        #expect(refusal(backwards, atBase) == "seq: \(step.base) must be above base \(step.base)")
        // A step missing a field is a decoding error naming it.
        var members = try #require(try JSONValue(encoding: step).objectValue)
        members["leader"] = nil
        do {
            _ = try JSONValue.object(members).decode(TurnSession.Step.self)
            Issue.record("a step without a leader was read")
        } catch let error as DecodingError {
            #expect(error.summary == "leader: is required")
        }
    }
}
