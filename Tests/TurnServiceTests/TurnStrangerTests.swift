import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import TurnService

/// A stranger on the LAN who joined a game in progress, then tries to take it over (issue 62):
/// its frames go to the leader's engine as its peer socket hands them over.
@Suite("hearth-turn: a stranger who joined cannot take the game over", .serialized, .timeLimit(.minutes(1)))
struct TurnStrangerTests {
    static let stranger = "0badf00d-0000-4000-8000-000000000bad"

    /// A frame from the stranger's device to `leader`'s engine: `[its CURVE key, a route, JSON]`.
    static func send(_ message: PeerMessage, to leader: TurnDevice) async {
        await leader.engine?.fromMember([
            Array("stranger-curve-key-0000000000000000000000".utf8), Array("route".utf8), message.bytes,
        ])
    }

    static func status(_ device: TurnDevice, _ code: String) async throws -> TurnSession {
        try await device.command("status", ["code": .string(code)]).decode(TurnSession.self)
    }

    @Test("a forged copy that removes a player, renames the leader or leaps ahead is not taken; nor a seq near 2^53")
    func forgedCopies() async throws {
        let port = LoopbackTurns.randomPort()
        let ann = try await TurnDevice(beaconPort: port, timing: .standard)
        let bob = try await TurnDevice(beaconPort: port, timing: .standard)
        let code = try await TurnServiceTests().game(ann, [(bob, "Bob")])
        await Self.send(
            .request(.init(id: "j1", cmd: .join, device: Self.stranger, code: code, args: .init(name: "Mallory"))),
            to: ann)
        let joined = try await Self.status(ann, code)
        #expect(joined.players.map(\.name) == ["Ann", "Bob", "Mallory"], "\(joined.players)")

        func forged(_ players: [TurnSession.Player], seq: Int64) -> TurnSession {
            TurnSession(
                id: joined.id, code: code, seq: seq, term: joined.term, state: joined.state, players: players,
                current: joined.current, leader: joined.leader, turn: joined.turn, turnStartSeq: joined.turnStartSeq,
                clock: joined.clock, statistics: joined.statistics)
        }
        let renamed = joined.players.map {
            $0.name == "Ann" ? TurnSession.Player(id: $0.id, name: "Mallory's puppet", device: $0.device) : $0
        }
        for copy in [
            forged(joined.players.filter { $0.name != "Bob" }, seq: joined.seq + 2),  // Bob removed
            forged(renamed, seq: joined.seq + 2),  // the leader renamed
            forged(joined.players, seq: TurnSession.maximumSeq - 10),  // a leap to near 2^53
        ] {
            await Self.send(.state(.init(session: copy, change: nil, keys: nil, device: Self.stranger)), to: ann)
        }
        // A heartbeat far ahead, twice (a leader raises its seq after a second one).
        for _ in 0..<2 {
            await Self.send(.heartbeat(.init(device: Self.stranger, seqs: [code: TurnSession.maximumSeq - 5])), to: ann)
        }
        let after = try await Self.status(ann, code)
        #expect(after.players.map(\.name) == ["Ann", "Bob", "Mallory"], "\(after.players)")
        #expect(after.seq < joined.seq + 100, "the game's seq leapt to \(after.seq)")
        // The game goes on: Ann's Done passes the turn.
        _ = try await ann.command("done", ["code": .string(code), "player": "Ann"])
        #expect(try await Self.status(ann, code).currentPlayer?.name == "Bob")
        await ann.close()
        await bob.close()
    }
}
