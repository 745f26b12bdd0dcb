import Foundation
import HearthBus
import HearthTesting
import Testing

extension SeveralDevices.TurnTests {
    @Test(
        "the leader's turn service stopped normally (SIGTERM) hands the lead on at once and keeps its player, away until it is back"
    )
    func leaderStopsNormally() async throws {
        let (ann, bob, cy, code) = try await threePlayers()
        #expect(try await ann.hearth(["turn", "start", code]).status == 0)
        let bobEvents = try await ChildProcess(
            "hearth", ["monitor", "--json", "turn."], environment: bob.stack.environment)
        try #require(await bobEvents.errors.waitForLine(containing: "watching") != nil)
        let started = ContinuousClock.now
        let turn = try #require(ann.stack.processes[.turn])
        turn.signal(SIGTERM)
        #expect(await turn.waitForExit(timeout: .seconds(5)) == 0)
        // Bob leads now, well before the 10 s of silence after which a device takes over (and
        // removes the players of the device it took over from); Ann is still in the game, away.
        #expect(
            await bobEvents.output.waitForLine(timeout: .seconds(5)) {
                $0.contains("\"kind\":\"leader\"") && $0.contains("\"name\":\"Bob\"")
            } != nil, "\(bobEvents.output.text.suffix(1_500))")
        #expect(ContinuousClock.now - started < .seconds(8))
        for device in [bob, cy] {
            let status = try JSONValue.parse(try await device.hearth(["turn", "status", code]).stdout)
            #expect(status["leader_name"] == "Bob", "\(device.name): \(status)")
            let players = status["players"]?.arrayValue ?? []
            #expect(players.compactMap { $0["name"]?.stringValue } == ["Ann", "Bob", "Cy"], "\(device.name)")
            #expect(players.first { $0["name"] == "Ann" }?["present"] == false, "\(device.name): \(status)")
        }
        // Ann's turn service comes back: it finds the game in Bob's beacon and Ann is present again.
        let restarted = try await TestStack.start(.turn, environment: ann.stack.environment)
        #expect(
            try await SeveralDevices.eventually(timeout: .seconds(15)) {
                let status = try JSONValue.parse(try await bob.hearth(["turn", "status", code]).stdout)
                return status["players"]?.arrayValue?.first { $0["name"] == "Ann" }?["present"] == true
            }, "Ann never came back")
        #expect(!bobEvents.output.text.contains("\"kind\":\"left\""), "a stop showed a player leaving")
        bobEvents.signal(SIGTERM)
        _ = await bobEvents.waitForExit(timeout: .seconds(3))
        restarted.signal(SIGTERM)
        _ = await restarted.waitForExit(timeout: .seconds(3))
        await ann.stop()
        await bob.stop()
        await cy.stop()
    }
}
