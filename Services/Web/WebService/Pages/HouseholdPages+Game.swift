import Foundation
import HearthBus
import HearthCore

/// The game view: for a session code, a full-screen "YOUR TURN" when the player whose turn it
/// is sits at this device (with a Done button), else "Ann is playing"; without a code, the
/// games this device can see.
extension HouseholdPages {
    func game(_ query: Query) async throws -> [String: Any] {
        guard let code = query["code"]?.uppercased(), !code.isEmpty else {
            let listing = try await turn.request("sessions")
            let sessions = listing["sessions"]?.mustacheArray ?? []
            return ["list": true, "sessions": sessions, "no_sessions": sessions.isEmpty]
        }
        let session = try await turn.request("status", args: ["code": .string(code)])
        let players = session["players"]?.arrayValue ?? []
        let current = session["current"]?.stringValue
        let playing = players.first { $0["id"]?.stringValue == current }
        let state = session["state"]?.stringValue ?? "open"
        let mine = state == "playing" && playing?["device"]?.stringValue == device
        return [
            "code": session["code"]?.stringValue ?? code, "state": state, "seq": session["seq"]?.intValue ?? 0,
            "open": state == "open", "ended": state == "ended", "playing": state == "playing",
            "mine": mine, "current_name": playing?["name"]?.stringValue ?? false,
            "current_id": current ?? "", "leader_name": session["leader_name"]?.stringValue ?? false,
            "path": Self.address("/game", ["code": code]),
            "players": players.map { player -> [String: Any] in
                var values = player.mustacheObject
                if player.stringValue != nil { values = ["name": player.stringValue ?? ""] }
                values["current"] = player["id"]?.stringValue == current && current != nil
                values["here"] = player["device"]?.stringValue == device
                return values
            },
        ]
    }
}
