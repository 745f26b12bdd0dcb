import Foundation
import HearthBus
import HearthTesting
import Testing

/// `hearth turn watch` never shows a turn as current when it cannot know.
@Suite("End to end: the turn watch view", .serialized, .timeLimit(.minutes(1)))
struct TurnWatchTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test(
        "when hearth-turn dies mid-game, the watch view says it is out of date instead of showing YOUR TURN as current")
    func staleWhenTurnServiceDies() async throws {
        let stack = try await TestStack(
            [.bus, .turn], environment: LoopbackTurns.environment(port: LoopbackTurns.randomPort()), context: context)
        let created = try JSONValue.parse(
            try await hearthSucceeding(stack, ["turn", "create", "--name", "Ann", "--json"]))
        let code = try #require(created["session"]?["code"]?.stringValue)
        _ = try await hearthSucceeding(stack, ["turn", "join", code, "--name", "Bob"])
        _ = try await hearthSucceeding(stack, ["turn", "start", code])

        let watch = try await ChildProcess("hearth", ["turn", "watch", code, "--json"], environment: stack.environment)
        let first = try JSONValue.parse(try #require(await watch.output.waitForLine(containing: "headline")))
        #expect(first["headline"] == "YOUR TURN, Ann")
        let turn = try #require(stack.processes[.turn])
        turn.signal(SIGKILL)
        #expect(await turn.waitForExit(timeout: .seconds(5)) == -SIGKILL)
        let stale = try JSONValue.parse(try #require(await watch.output.waitForLine(containing: "\"stale\":true")))
        #expect(stale["reason"] == "hearth-turn is not answering")
        watch.signal(SIGTERM)
        #expect(await watch.waitForExit(timeout: .seconds(3)) == 0)
        _ = await stack.stop()
    }

    @Test(
        "watch --bell rings the terminal bell once for each of this device's turns; the timer's time left is on screen")
    func bellAndTimer() async throws {
        let stack = try await TestStack(
            [.bus, .turn], environment: LoopbackTurns.environment(port: LoopbackTurns.randomPort()), context: context)
        let created = try JSONValue.parse(
            try await hearthSucceeding(stack, ["turn", "create", "--name", "Ann", "--timer", "90s", "--json"]))
        let code = try #require(created["session"]?["code"]?.stringValue)
        _ = try await hearthSucceeding(stack, ["turn", "join", code, "--name", "Bob"])
        _ = try await hearthSucceeding(stack, ["turn", "start", code])

        let watch = try await ChildProcess("hearth", ["turn", "watch", code, "--bell"], environment: stack.environment)
        #expect(await watch.output.waitForLine(containing: "left of 1:30") != nil, "\(watch.output.text)")
        #expect(watch.output.text.filter { $0 == "\u{07}" }.count == 1)
        // Both players sit here: Done says whose turn ends (typed twice, it ended both: issue 63).
        let unnamed = try await stack.hearth(["turn", "done", code])
        #expect(unnamed.status == 2 && unnamed.stderr.contains("Ann and Bob sit at this device"), "\(unnamed)")
        let status = try JSONValue.parse(try await hearthSucceeding(stack, ["turn", "status", code, "--json"]))
        let seq = try #require(status["seq"]?.intValue)
        // Bob's turn is this device's turn too, and rings again.
        _ = try await hearthSucceeding(stack, ["turn", "done", code, "--seq", String(seq)])
        // The same command again is stale: one Done, not two.
        let again = try await stack.hearth(["turn", "done", code, "--seq", String(seq)])
        #expect(again.status == 2, "\(again)")
        #expect(
            try JSONValue.parse(try await hearthSucceeding(stack, ["turn", "status", code, "--json"]))["current_name"]
                == "Bob")
        #expect(await watch.output.waitForLine(containing: "turn 2") != nil, "\(watch.output.text)")
        #expect(watch.output.text.filter { $0 == "\u{07}" }.count == 2)
        _ = try await hearthSucceeding(stack, ["turn", "end", code])
        #expect(await watch.output.waitForLine(containing: "took longest") != nil, "\(watch.output.text)")
        #expect(await watch.waitForExit(timeout: .seconds(5)) == 0)
        _ = await stack.stop()
    }
}
