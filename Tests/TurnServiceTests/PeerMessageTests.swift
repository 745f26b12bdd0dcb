import HearthBus
import HearthCore
import Testing

@testable import TurnService

/// Peer frames as a device receives them from others: every frame is a message or a
/// `PeerMessageError` naming what is wrong, and a step that decodes either moves a copy on to a
/// consistent session or is refused with a `TurnError`; nothing traps.
@Suite("hearth-turn: peer messages in and out", .timeLimit(.minutes(1)))
struct PeerMessageTests {
    /// Ann and Bob playing, Ann's turn, and the step that passes it to Bob.
    static func game() throws -> (TurnSession, TurnSession.Step) {
        var session = try TurnSession(
            id: "5f0c2a8e-2d4b-4a8f-9a51-0c6d1e2f3a4b", code: "KQ7-D",
            leader: .init(id: "p1", name: "Ann", device: "device-one"))
        _ = try session.join(.init(id: "p2", name: "Bob", device: "device-two"))
        _ = try session.start(by: "p1")
        var next = session
        let done = try next.done(by: "p1", seq: next.seq)
        return (session, try #require(TurnSession.Step(from: session, to: next, change: done)))
    }

    @Test("a step and a state survive the wire unchanged")
    func roundTrip() throws {
        let (session, step) = try Self.game()
        for message in [
            PeerMessage.step(step), .state(.init(session: session, change: nil, keys: ["device-one": "k"])),
        ] {
            #expect(try PeerMessage.decode(message.bytes) == message)
        }
        #expect(try JSONValue.parse(PeerMessage.step(step).bytes)["t"] == "step")
    }

    @Test(
        "every field of a step missing, of another type or out of range: an error naming it, or a step that applies or is refused"
    )
    func mangledSteps() throws {
        let (session, step) = try Self.game()
        let members = try #require(try JSONValue.parse(PeerMessage.step(step).bytes).objectValue)
        let replacements: [JSONValue?] = [
            nil, .null, true, "", "p2", "playing", "ended", 0, -1, .int(Int64.max), .int(Int64.min), 1.5, 1e300,
            [], ["p2"], [:], ["kind": "done"],
        ]
        var decoded = 0
        var refusals = Set<String>()
        for key in members.keys.sorted() where key != "t" {
            for replacement in replacements {
                var mangled = members
                mangled[key] = replacement
                let frame = JSONValue.object(mangled).jsonBytes
                let message: PeerMessage
                do {
                    message = try PeerMessage.decode(frame)
                } catch {
                    #expect(error.reason.hasPrefix(key), "\(key) = \(String(describing: replacement)): \(error.reason)")
                    continue
                }
                guard case .step(let read) = message else {
                    Issue.record("\(key) = \(String(describing: replacement)) read as \(message)")
                    continue
                }
                decoded += 1
                let moved: TurnSession
                do {
                    moved = try read.applied(to: session).session
                } catch {
                    refusals.insert(error.field)
                    continue
                }
                #expect(moved.seq == read.seq && moved.code == session.code)
                #expect(throws: Never.self) { try moved.validate() }
                // What a device may do next with the copy it took (pass a turn, lose a device,
                // take the lead) refuses or moves it on; it never traps (a seq taken at
                // `Int64.max` did, until `validate` bounded it).
                var next = moved
                _ = try? next.done(by: next.current ?? "", seq: next.seq)
                _ = next.setPresence(device: "device-two", present: false)
                _ = next.handOver(from: "device-one")
                _ = next.remove(device: "device-two")
            }
        }
        // Some mangled steps still decode (a different current player, turn or leader); those
        // that break the session are refused.
        #expect(decoded > 0)
        #expect(refusals == ["session"])
    }

    @Test("frames that are not messages: not JSON, another t, truncated")
    func notMessages() throws {
        let (_, step) = try Self.game()
        let bytes = PeerMessage.step(step).bytes
        for cut in stride(from: 0, to: bytes.count, by: 7) {
            #expect(throws: PeerMessageError.self) { try PeerMessage.decode(Array(bytes[..<cut])) }
        }
        do {
            _ = try PeerMessage.decode(Array(#"{"t":"stop","code":"KQ7-D"}"#.utf8))
            Issue.record("t: stop was read")
        } catch {
            #expect(error.reason.hasPrefix("t"))
        }
    }

    @Test("a member's heartbeat with a seq out of range is refused, naming seqs, before a leader counts on it")
    func heartbeatSeqs() throws {
        for seq in [Int64.max, TurnSession.maximumSeq + 1, -1] {
            let frame = (["t": "hb", "device": "device-two", "seqs": ["KQ7-D": .int(seq)]] as JSONValue).jsonBytes
            do {
                _ = try PeerMessage.decode(frame)
                Issue.record("seq \(seq) was read")
            } catch {
                #expect(error.reason.hasPrefix("seqs: KQ7-D: \(seq)"), "\(error.reason)")
            }
        }
        let largest =
            (["t": "hb", "device": "device-two", "seqs": ["KQ7-D": .int(TurnSession.maximumSeq)]] as JSONValue)
        #expect(
            try PeerMessage.decode(largest.jsonBytes)
                == .heartbeat(.init(device: "device-two", seqs: ["KQ7-D": TurnSession.maximumSeq])))
    }
}
