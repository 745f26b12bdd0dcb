import Foundation
import HearthBus
import HearthCore

/// A board game across `LANDevice`s with notifiers: their popups read off each device's
/// notification test server and their Done pressed there, as a person presses it.
public enum LANGame {
    /// A "Your turn" or "… is playing" popup: its turn number, summary, server id and when the
    /// server had the call (its `arrived`, seconds since 1970).
    public struct Popup: Sendable {
        public let turn: Int
        public let summary: String
        public let id: UInt32
        public let arrived: Double
    }

    /// The turn popups `device`'s notification server was asked to show, from line `start` on.
    public static func popups(_ device: LANDevice, from start: Int = 0) -> [Popup] {
        guard let server = device.session?.server else { return [] }
        return server.output.lines.dropFirst(start).compactMap { line in
            guard line.contains("\"call\": \"Notify\""),
                let call = try? JSONDecoder().decode(NotifyCall.self, from: Data(line.utf8)),
                call.summary.hasPrefix("Your turn") || call.summary.hasSuffix(" is playing"),
                let turn = call.body.split(separator: " ").last.flatMap({ Int($0) })
            else { return nil }
            return Popup(turn: turn, summary: call.summary, id: call.id, arrived: call.arrived ?? call.t)
        }
    }

    /// A `Notify` line of the notification test server (`hearth-notification-test-server`).
    private struct NotifyCall: Decodable {
        let id: UInt32
        let summary: String
        let body: String
        /// When the call reached the server; `t`, when it was printed.
        let arrived: Double?
        let t: Double
    }

    /// What `turn create` answers.
    private struct Created: Decodable {
        let session: TurnSession
    }

    /// What playing some turns gave.
    public struct Play: Sendable {
        /// Turns whose "Your turn" did not come within the wait (played with `hearth turn done`).
        public var missed: [Int] = []
        /// Seconds from each Done pressed to the next player's popup at its server.
        public var latencies: [Double] = []
    }

    /// Waits for the "Your turn" popup of `turn` at `device`: the popup, or `nil` after `timeout`.
    public static func yourTurn(_ turn: Int, at device: LANDevice, timeout: Duration = .seconds(5)) async -> Popup? {
        guard let server = device.session?.server else { return nil }
        let mine = "\"summary\": \"Your turn, \(device.name)\""
        let line = await server.output.waitForLine(timeout: timeout) {
            $0.contains(mine) && $0.contains("turn \(turn)\"")
        }
        guard let line, let index = server.output.lines.lastIndex(of: line) else { return nil }
        return popups(device, from: index).first
    }

    /// Plays `turns` in `order` (the first is the player of the first turn): each player's
    /// popup awaited (5 s at most) and its Done pressed; a popup that never came is counted and
    /// the turn ended with `hearth turn done`.
    public static func play(_ turns: ClosedRange<Int>, order: [LANDevice], code: String) async throws -> Play {
        var play = Play()
        var pressed: Double?
        for turn in turns {
            let device = order[(turn - turns.lowerBound) % order.count]
            if let popup = await yourTurn(turn, at: device) {
                if let pressed { play.latencies.append(popup.arrived - pressed) }
                pressed = Date().timeIntervalSince1970
                _ = try await device.session?.press(id: popup.id, action: "done")
            } else {
                play.missed.append(turn)
                pressed = Date().timeIntervalSince1970
                _ = try await device.stack.hearth(["turn", "done", code, "--name", device.name, "--json"])
            }
        }
        return play
    }

    /// Ann's device creates a game; every other device joins it once it is seen; it starts.
    /// - Returns: the session code.
    public static func start(_ devices: [LANDevice]) async throws -> String {
        let leader = devices[0]
        let code = try await leader.json(["turn", "create", "--name", leader.name]).decode(Created.self).session.code
        for device in devices.dropFirst() {
            let seen = await Polling.eventually(timeout: .seconds(15)) {
                let listed = try? await device.stack.hearth(["turn", "sessions", "--json"])
                return listed?.stdout.contains("\"code\":\"\(code)\"") == true
            }
            guard seen else { throw LANError("\(device.name) never saw the game \(code)") }
            try await join(device, code)
        }
        _ = try await leader.json(["turn", "start", code])
        return code
    }

    /// `device` joins `code`, trying again as a person would when the leader's device does not
    /// answer in time: at 5% loss a join on a link just opened can take longer than the turn
    /// service's 3 s (a lost SYN costs 1 s, two cost 3 s; seen once in about ten runs). A join
    /// whose reply was lost shows in the device's own copy of the game, so that is looked at first.
    static func join(_ device: LANDevice, _ code: String) async throws {
        for attempt in 1...3 {
            do {
                _ = try await device.json(["turn", "join", code, "--name", device.name])
                return
            } catch {
                let joined = await Polling.eventually(timeout: .seconds(5)) {
                    guard let status = try? await device.stack.hearth(["turn", "status", code, "--json"]),
                        let session = try? JSONValue.parse(status.stdout).decode(TurnSession.self)
                    else { return false }
                    return session.player(named: device.name) != nil
                }
                if joined { return }
                if attempt == 3 { throw error }
            }
        }
    }

    /// The `q` quantile (0…1) of `values`, sorted or not.
    public static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
    }
}
