// libFuzzer target: one frame from another device's turn service, as hearth-turn reads it: JSON,
// then the `PeerMessage` read strictly (a typed `PeerMessageError` otherwise), then what a device
// does with it under the session rules: a state's or a reply's session validated, a step applied
// to the copy at its base, a member's request run on the leader's copy, a member's heartbeat seq
// continued above; and each result moved on by the transitions a device makes next (a turn
// passed, a reorder, a device away or gone, the lead taken over, the game ended). Every input is
// refused with a typed error or accepted; never a trap (a seq of `Int64.max` trapped the first
// transition after it, and in a heartbeat the leader's `theirs + 1`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPeerMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let frame = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? PeerMessage.decode(frame) else { return 0 }
    _ = message.bytes  // what a device sends on is written from the same value
    guard var game = try? heldGame() else { return 0 }
    switch message {
    case .heartbeat(let heartbeat):
        // The leader's side (`heartbeatReplies`): a copy that saw more, continued above.
        if let theirs = heartbeat.seqs?[game.code], theirs > game.seq { game.raiseSeq(to: theirs + 1) }
        moveOn(game)
    case .request(let request):
        let arguments = request.args ?? .init()
        switch request.cmd {
        case .join:
            _ = try? game.join(.init(id: "fuzz-player", name: arguments.name ?? "", device: request.device))
        case .done: _ = try? game.done(by: arguments.player ?? "", seq: arguments.seq)
        case .leave: _ = try? game.leave(arguments.player ?? "")
        case .reverse: _ = try? game.reverse(by: arguments.player ?? "", seq: arguments.seq)
        case .back: _ = try? game.comeBack(arguments.player ?? "")
        }
        moveOn(game)
    case .reply(let reply):
        if let session = reply.session, (try? session.validate()) != nil { moveOn(session) }
    case .state(let state):
        if (try? state.session.validate()) != nil { moveOn(state.session) }
    case .step(let step):
        if let (session, _) = try? step.applied(to: game) { moveOn(session) }
    case .gone:
        break
    }
    return 0
}

/// The copy a device holds: Ann (device-one) leads, Bob and Cy (device-two) joined, play
/// started; seq 4, Ann's turn (the corpus's step is from base 4).
func heldGame() throws(TurnError) -> TurnSession {
    var game = try TurnSession(
        id: "5f0c2a8e-2d4b-4a8f-9a51-0c6d1e2f3a4b", code: "KQ7-D",
        leader: .init(id: "p1", name: "Ann", device: "device-one"))
    _ = try game.join(.init(id: "p2", name: "Bob", device: "device-two"))
    _ = try game.join(.init(id: "p3", name: "Cy", device: "device-two"))
    _ = try game.start(by: "p1")
    return game
}

/// What a device may do next with a copy it holds; each either refuses or moves it on.
func moveOn(_ session: TurnSession) {
    var next = session
    // The table's rules on whatever clock and statistics the frame brought (the clock as far
    // as a take-over after a long silence moves it, then a turn's worth).
    _ = try? next.setTimer(try TurnTimer(limit: 5_000, passes: true), by: next.leader, seq: nil)
    next.advanceClock(by: Int64.max)
    _ = next.checkTimer()
    next.advanceClock(by: 5_000)
    _ = next.checkTimer()
    _ = next.timerDue
    _ = try? next.skip(nil, untilBack: true, by: next.leader, seq: next.seq)
    _ = try? next.skip(next.players.last?.id, untilBack: false, by: next.leader, seq: nil)
    _ = try? next.reverse(by: next.leader, seq: nil)
    _ = try? next.pause(by: next.leader, seq: nil)
    _ = try? next.resume(by: next.leader, seq: nil)
    _ = try? next.done(by: next.current ?? "", seq: next.seq)
    _ = try? next.reorder(next.players.map(\.name).reversed(), by: next.leader)
    _ = next.setPresence(device: "device-two", present: false)
    _ = next.setPresence(device: "device-two", present: true)
    _ = next.handOver(from: "device-one")
    _ = next.remove(device: "device-two")
    _ = try? next.end(by: next.leader)
    _ = next.statistics.lines
    _ = PeerMessage.state(.init(session: next, change: nil, keys: nil)).bytes
}
