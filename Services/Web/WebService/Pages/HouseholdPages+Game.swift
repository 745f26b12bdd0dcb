import Foundation
import HearthBus
import HearthCore

/// The game view: for a session code, a full-screen "YOUR TURN" when the player whose turn it
/// is sits at this device (with a Done button), else "Ann is playing"; without a code, the
/// games this device can see.
extension HouseholdPages {
    func game(_ query: Query) async throws -> [String: Any] {
        guard let code = query["code"]?.uppercased(), !code.isEmpty else {
            let listing = try await turn.request(TurnCommands.Sessions.name)
            let sessions = listing["sessions"]?.mustacheArray ?? []
            return ["list": true, "sessions": sessions, "no_sessions": sessions.isEmpty]
        }
        let reply = try await turn.send(TurnCommands.Status(code: code))
        let path = Self.address("/game", ["code": code])
        let session: TurnSession
        switch reply.game {
        case .held(let held): session = held
        case .glimpse(let glimpse):
            // A game heard of (its players by name) or one that has ended.
            return [
                "code": glimpse.code, "state": glimpse.state, "seq": 0, "open": glimpse.state == "open",
                "ended": glimpse.state == "ended", "playing": glimpse.state == "playing", "mine": false,
                "current_name": false, "current_id": "", "leader_name": glimpse.heard?.leaderName ?? false,
                "path": path,
                "players": (glimpse.heard?.players ?? []).map { ["name": $0, "current": false, "here": false] },
            ]
        }
        let playing = session.players.first { $0.id == session.current }
        let state = session.state.rawValue
        let mine = session.state == .playing && playing?.device == device
        let clock = reply.clockNow
        let statistics = session.statistics
        return [
            "code": session.code, "state": state, "seq": Int(session.seq), "open": state == "open",
            "ended": state == "ended", "playing": state == "playing", "mine": mine,
            "current_name": playing?.name ?? false, "current_id": session.current ?? "",
            "leader_name": session.leaderPlayer?.name ?? false, "path": path,
            "paused": session.state == .playing && session.clock.paused,
            // The time left, counted down by the page's script from `left_ms` (and shown as it
            // was read without script); the limit for the words around it.
            "timer": (session.state == .playing ? clock?.left ?? session.clock.left : nil).map { left in
                [
                    "left_ms": Int(max(0, left)), "left": TurnClock.text(milliseconds: left),
                    "limit": TurnClock.text(milliseconds: session.clock.timer?.limit ?? 0), "up": left <= 0,
                    "running": !session.clock.paused,
                ] as [String: Any]
            } ?? false,
            // Shown once the game is over (during play they would only distract).
            "statistics": session.state != .ended || statistics.tallies.isEmpty
                ? false
                : [
                    "summary": statistics.summary,
                    "longest": statistics.longestLine ?? "",
                    "players": statistics.tallies.map { tally -> [String: Any] in
                        func time(_ milliseconds: Int64) -> String {
                            TurnClock.text(milliseconds: milliseconds, roundingUp: false)
                        }
                        return [
                            "name": tally.name, "turns": Int(tally.turns), "average": time(tally.average),
                            "longest": time(tally.longest), "total": time(tally.total),
                        ]
                    },
                ] as Any,
            "players": try session.players.map { player -> [String: Any] in
                var values = try JSONValue(encoding: player).mustacheObject
                values["current"] = player.id == session.current
                values["here"] = player.device == device
                values["sitting_out"] = session.sittingOut.contains(player.id)
                values["skipped"] = session.skipped.contains(player.id)
                return values
            },
        ]
    }
}
