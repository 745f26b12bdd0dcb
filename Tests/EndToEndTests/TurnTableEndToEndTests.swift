import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Testing

/// A timed game between two real stacks, each with its own notifier and notification server:
/// the sounds the popups carry, as the server receives them, and nothing of the game left in
/// either `HEARTH_HOME` once it ends.
extension SeveralDevices {
    @Suite("End to end: a timed game, its sounds, its statistics and no trace", .serialized, .timeLimit(.minutes(2)))
    struct TurnTableEndToEndTests {
        typealias Device = SeveralDevices.TurnTests.Device
        let context: ZMQContext

        init() throws { context = try ZMQContext() }

        /// A Notify call at a test server: what the popup said and the hints it carried.
        struct NotifyCall: Decodable {
            let call: String
            let summary: String?
            let body: String?
            let hints: [String: JSONValue]?
            var sound: String? { hints?["sound-name"].flatMap { try? $0.decode(String.self) } }
        }

        /// Waits for the first Notify call at `device`'s server whose summary satisfies `match`.
        static func popup(
            _ device: Device, timeout: Duration = .seconds(15), _ match: @escaping @Sendable (String) -> Bool
        ) async throws -> NotifyCall {
            let line = try #require(
                await device.server.output.waitForLine(timeout: timeout) { line in
                    guard let call = try? JSONValue.parse(line).decode(NotifyCall.self), call.call == "Notify" else {
                        return false
                    }
                    return match(call.summary ?? "")
                }, "\(device.name): \(device.server.output.text.suffix(1_500))")
            return try JSONValue.parse(line).decode(NotifyCall.self)
        }

        /// Every file under `home` whose bytes contain one of `needles`, with the needle found.
        static func traces(under home: String, of needles: [String]) -> [String] {
            guard let files = FileManager.default.enumerator(atPath: home) else { return ["cannot list \(home)"] }
            var found: [String] = []
            for case let relative as String in files {
                let path = (home as NSString).appendingPathComponent(relative)
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                for needle in needles where data.range(of: Data(needle.utf8)) != nil {
                    found.append("\(relative) holds \(needle)")
                }
            }
            return found
        }

        @Test(
            "a 6 s timer with pass: Your turn rings (bell), the warning and time's up carry dialog-warning, sounds off stay silent; at the end both devices show the statistics and keep nothing"
        )
        func timedGame() async throws {
            let environment = LoopbackTurns.environment(port: LoopbackTurns.randomPort())
            // Names no key, id or file of a fresh home could hold by chance.
            let ann = try await Device("Zephyrine", turnEnvironment: environment, context: context)
            let bob = try await Device("Quillon", turnEnvironment: environment, context: context)
            let quiet = try await bob.stack.hearth(["notify", "settings", "--sounds", "false"])
            #expect(quiet.status == 0, "\(quiet.stderr)")

            let created = try await ann.hearth(["turn", "create", "--name", ann.name, "--timer", "6s", "--timer-pass"])
            #expect(created.status == 0, "\(created.stderr)")
            let joined = try JSONValue.parse(created.stdout).decode(SessionJoined.self)
            let code = joined.session.code
            #expect(
                try await SeveralDevices.eventually {
                    try await bob.hearth(["turn", "sessions"]).stdout.contains("\"code\":\"\(code)\"")
                })
            let bobJoined = try await bob.hearth(["turn", "join", code, "--name", bob.name])
            #expect(bobJoined.status == 0, "\(bobJoined.stderr)")
            let started = try await ann.hearth(["turn", "start", code])
            #expect(started.status == 0, "\(started.stderr)")

            let yourTurn = try await Self.popup(ann) { $0 == "Your turn, Zephyrine" }
            #expect(yourTurn.sound == "bell")
            #expect(yourTurn.body?.hasSuffix("0:06 to play") == true, "\(String(describing: yourTurn.body))")
            let warning = try await Self.popup(ann) { $0.hasSuffix("seconds left, Zephyrine") }
            #expect(warning.sound == "dialog-warning")
            let timeUp = try await Self.popup(ann) { $0 == "Time's up, Zephyrine" }
            #expect(timeUp.sound == "dialog-warning")
            // The timer passed the turn: Quillon's popup, silent as his settings say.
            let bobsTurn = try await Self.popup(bob) { $0 == "Your turn, Quillon" }
            #expect(bobsTurn.sound == nil, "sounds = false, yet \(String(describing: bobsTurn.hints))")

            let ended = try await ann.hearth(["turn", "end", code])
            #expect(ended.status == 0, "\(ended.stderr)")
            for device in [ann, bob] {
                let over = try await Self.popup(device) { $0.hasPrefix("Game over") }
                #expect(over.body?.contains("Zephyrine: 1 turn 0:0") == true, "\(String(describing: over.body))")
                #expect(over.body?.contains("took longest") == true)
            }
            let status = try await bob.stack.hearth(["turn", "status", code])
            #expect(status.stdout.contains("took longest"), "\(status.stdout)")

            // Nothing of the game on disk: its code, players, ids or statistics.
            let final = try JSONValue.parse(try await ann.hearth(["turn", "status", code]).stdout)
                .decode(TurnSession.self)
            let needles =
                [code, ann.name, bob.name, final.id, "took longest"] + final.statistics.tallies.map(\.player)
            var left: [String] = []
            let clean = await Polling.eventually {
                left = [ann, bob].flatMap { Self.traces(under: $0.stack.home.path, of: needles) }
                return left.isEmpty
            }
            #expect(clean, "\(left)")
            await ann.stop()
            await bob.stop()
        }
    }
}
