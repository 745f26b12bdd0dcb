import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// The turn service against what a hostile or broken peer sends (split from `TurnTests`).
extension SeveralDevices.TurnTests {
    @Test(
        "a wrong code, malformed joins, a wrong key and a flood of joins are refused; the game goes on (static peer, no broadcast)"
    )
    func badJoins() async throws {
        let annPort = LoopbackTurns.randomPort()
        let bobPort = annPort + 1
        // No broadcast between them: Ann's beacon goes straight to Bob's port, Bob answers.
        let ann = try await Device(
            "Ann", turnEnvironment: LoopbackTurns.environment(port: annPort, peers: [bobPort], broadcast: false),
            context: context)
        let bob = try await Device(
            "Bob", turnEnvironment: LoopbackTurns.environment(port: bobPort, broadcast: false), context: context)
        let code = try await Self.game(ann, [bob])
        #expect(try await ann.hearth(["turn", "start", code]).status == 0)
        try await ann.pressDone(turn: 1)

        let wrong = try await bob.hearth(["turn", "join", code == "ZZZ-9" ? "ZZZ-8" : "ZZZ-9", "--name", "Mallory"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("code: no session"))
        let badName = try await bob.hearth(["turn", "join", code, "--name", "  "])
        #expect(badName.status == 2)
        #expect(badName.stderr.contains("name"))

        // A rogue device straight at Ann's peer socket: garbage, malformed and wrong-code joins, and a flood.
        let rogue = try await Self.rogue(at: ann, context: context)
        var requests: [JSONValue] = [
            ["t": "req", "id": "m1", "cmd": "join", "device": "rogue", "code": .string(code)],  // no name
            ["t": "req", "id": "m2", "cmd": "join", "device": "rogue", "code": "nonsense", "args": ["name": "M"]],
            ["t": "bogus", "device": "rogue"],
            [
                "t": "req", "id": "m3", "cmd": "done", "device": "rogue", "code": .string(code),
                "args": ["player": "x"],
            ],
        ]
        for index in 0..<200 {
            requests.append([
                "t": "req", "id": .string("f\(index)"), "cmd": "join", "device": "rogue",
                "code": index % 2 == 0 ? "ZZZ-9" : .string(code), "args": ["name": "Ann"],
            ])
        }
        try rogue.send([Array("not json".utf8)])
        for request in requests { try rogue.send([request.jsonBytes]) }
        let replies = await Self.answers(on: rogue, count: requests.count + 1, timeout: .seconds(10))
        #expect(replies.count == requests.count + 1)
        #expect(replies.allSatisfy { $0["ok"] == false }, "\(replies.filter { $0["ok"] != false })")
        #expect(replies.contains { $0["error"]?.stringValue?.contains("not JSON") == true })
        #expect(replies.contains { $0["error"]?.stringValue?.contains("too many join requests") == true })
        #expect(replies.contains { $0["error"]?.stringValue?.contains("name") == true })

        // The rogue claims to be Bob's device: to pass his turn, and to take his state pushes.
        let before = try JSONValue.parse(try await ann.hearth(["turn", "status", code]).stdout)
        let bobPlayer = try #require(
            before["players"]?.arrayValue?.first { $0["name"] == "Bob" }?["id"]?.stringValue)
        let impersonations: [JSONValue] = [
            [
                "t": "req", "id": "i1", "cmd": "done", "device": .string(bob.id), "code": .string(code),
                "args": ["player": .string(bobPlayer), "seq": before["seq"] ?? 0],
            ],
            ["t": "hb", "device": .string(bob.id), "seqs": [code: 0]],
        ]
        for message in impersonations { try rogue.send([message.jsonBytes]) }
        let refusals = await Self.answers(on: rogue, count: 2)
        #expect(refusals.count == 2)
        #expect(refusals.allSatisfy { $0["error"]?.stringValue?.contains("known here by another key") == true })
        await rogue.close()

        // Bob's own device (his key) with a heartbeat past the largest seq: the leader continues
        // above a member's seq, and `Int64.max + 1` trapped its turn service. Refused by name now.
        let member = try await Self.rogue(
            at: ann, keys: try DeviceIdentity.keyPair(home: bob.stack.home.path), context: context)
        try member.send([
            (["t": "hb", "device": .string(bob.id), "seqs": [code: .int(.max)]] as JSONValue).jsonBytes
        ])
        let overflow = await Self.answers(on: member, count: 1)
        #expect(
            overflow.first?["error"]?.stringValue?.hasPrefix("seqs: \(code): \(Int64.max)") == true, "\(overflow)")
        await member.close()

        // A peer with the wrong server key never completes the handshake: no answer at all.
        let impostor = try await Self.rogue(
            at: ann, serverKey: try CurveKeyPair.generate().publicKey, context: context)
        try impostor.send([(requests[0]).jsonBytes])
        #expect(await Self.answers(on: impostor, count: 1, timeout: .seconds(1)).isEmpty)
        await impostor.close()

        // The game is as it was, and goes on.
        let status = try JSONValue.parse(try await ann.hearth(["turn", "status", code]).stdout)
        #expect(status["players"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Ann", "Bob"])
        try await bob.pressDone(turn: 2)
        try await ann.pressDone(turn: 3)
        _ = try #require(
            await bob.server.output.waitForLine { $0.contains("Your turn, Bob") && $0.contains("turn 4\"") })
        #expect(bob.yourTurns.map(\.turn) == [2, 4])
        // Bob's glanceable view: a snapshot first, then every newer state.
        let watch = try await ChildProcess(
            "hearth", ["turn", "watch", code, "--json"], environment: bob.stack.environment)
        let snapshot = try JSONValue.parse(try #require(await watch.output.waitForLine(containing: "headline")))
        #expect(snapshot["headline"] == "YOUR TURN, Bob")
        try await bob.pressDone(turn: 4)
        let next = try JSONValue.parse(try #require(await watch.output.waitForLine(containing: "Ann is playing")))
        #expect(try #require(next["seq"]?.intValue) > snapshot["seq"]?.intValue ?? .max)
        watch.signal(SIGTERM)
        #expect(await watch.waitForExit(timeout: .seconds(3)) == 0)

        // Ann, the leader, leaves on her turn: Bob's device leads, Bob plays on; he ends the game,
        // and nothing of it is left on either device.
        let left = try await ann.hearth(["turn", "leave", code])
        #expect(left.status == 0, "\(left.stderr)")
        try #require(await bob.server.output.waitForLine(containing: "You are the leader now") != nil)
        let handedOn = try JSONValue.parse(try await bob.hearth(["turn", "status", code]).stdout)
        #expect(handedOn["leader_name"] == "Bob")
        #expect(handedOn["leader_device"]?.stringValue == bob.id)
        // Ann's device holds nothing of the game now; once Bob's beacon reaches it, it tells what
        // it hears of it (`joined: false`, Bob leading, Ann not among the players), as `status`
        // does for any game nearby. Which of the two comes first is a race, so both are allowed.
        let annStatus = try await ann.hearth(["turn", "status", code])
        if annStatus.status == 0 {
            let heard = try JSONValue.parse(annStatus.stdout)
            #expect(heard["joined"] == false && heard["leader_device"]?.stringValue == bob.id, "\(heard)")
            #expect(heard["players"]?.arrayValue?.contains("Ann") == false, "\(heard)")
        } else {
            #expect(annStatus.status == 2, "\(annStatus.stderr)")
        }
        let ended = try await bob.hearth(["turn", "end", code])
        #expect(ended.status == 0, "\(ended.stderr)")
        // Its statistics stay a few minutes, in memory (`TurnTableTests` sees them forgotten).
        let over = try JSONValue.parse(try await bob.hearth(["turn", "status", code]).stdout)
        #expect(over["state"] == "ended")
        #expect(
            try await SeveralDevices.eventually {
                try await ann.hearth(["turn", "sessions"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    == "{\"sessions\":[]}"
            })
        await ann.stop()
        await bob.stop()
    }
}
