import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthNotify

/// The popups of board games: whose turn it is, the timer, pause, sitting out and the end.
///
/// Every game's popups live under keys made from its code (`turn.CODE`, `.roster`, `.skipped`,
/// `.leader`, `.timer`, `.paused`, `.out`); the end closes them all. A skip has a key of its own:
/// under `.roster`, "Dad, you are skipped" was replaced by the next notice 0.1 s later (issue 63). The statistics shown at the end go
/// under `turn.over`, a key without the code: the notifier's record of popups on screen
/// (`PopupRecord`) keeps keys, and nothing of a game may stay on disk after it ends.
extension NotificationCatalog {
    /// Every key a game's popups use.
    static func turnKeys(_ code: String) -> [String] {
        [
            "turn.\(code)", "turn.\(code).roster", "turn.\(code).skipped", "turn.\(code).leader", "turn.\(code).timer",
            "turn.\(code).paused", "turn.\(code).out",
        ]
    }

    /// One of a game's popups: in the turns category, `hearth.turn`, each button with its label
    /// and the command it sends.
    private func gamePopup(
        _ key: String, _ summary: String, _ body: String, icon: String = "applications-games",
        urgency: DesktopNotification.Urgency, timeout: Int32, sound: String? = nil,
        buttons: [(key: String, label: String, button: Button)] = []
    ) -> NotificationPlan {
        .show(
            Popup(
                key: key, category: .turns,
                notification: DesktopNotification(
                    summary: summary, body: body, icon: icon, urgency: urgency, category: "hearth.turn",
                    timeout: timeout, actions: buttons.map { (key: $0.key, label: $0.label) }, sound: sound),
                buttons: Dictionary(uniqueKeysWithValues: buttons.map { ($0.key, $0.button) })))
    }

    /// "Your turn, NAME" with Done to the player's device (with the `bell` sound); a quiet
    /// "NAME is playing" elsewhere. Both under the game's key, so a game never piles up popups.
    func yourTurn(_ event: YourTurnEvent) -> NotificationPlan {
        let (code, player) = (event.code, event.player)
        var body = "Game \(code) · turn \(event.turn)"
        if let left = event.timerLeft { body += " · \(TurnClock.text(milliseconds: left)) to play" }
        guard player.device == device else {
            return gamePopup("turn.\(code)", "\(player.name) is playing", body, urgency: .low, timeout: 5_000)
        }
        return gamePopup(
            "turn.\(code)", "Your turn, \(player.name)", body, urgency: .critical, timeout: 0, sound: "bell",
            buttons: [("done", "Done", doneButton(code, player.id, event.seq))])
    }

    /// The same command the CLI's `hearth turn done` sends, for the state the popup shows.
    private func doneButton(_ code: String, _ player: String, _ seq: Int64) -> Button {
        Button(.turn, TurnCommands.Done(code: code, player: player, seq: seq))
    }

    mutating func turnChanged(_ event: TurnChangedEvent) -> NotificationPlan {
        let session = event.session
        let code = session.code
        if event.change?.kind == .ended || session.state == .ended {
            timerShown.removeValue(forKey: code)
            let over = gameOver(session)
            return over == .ignore ? .close(Self.turnKeys(code)) : .all([.close(Self.turnKeys(code)), over])
        }
        if let timer = timerPopup(event) { return timer }
        let player = event.change?.player
        let name = player?.name ?? "A player"
        let players = session.players.count
        func notice(_ key: String, _ summary: String, urgency: DesktopNotification.Urgency = .low) -> NotificationPlan {
            gamePopup(
                key, summary, "Game \(code) · \(players) player\(players == 1 ? "" : "s")", urgency: urgency,
                timeout: 5_000)
        }
        let here = player?.device == device
        let leaderHere = session.leaderPlayer?.device == device
        switch event.change?.kind {
        case .joined where !here:
            return notice("turn.\(code).roster", "\(name) joined the game")
        case .left where !here:
            return notice("turn.\(code).roster", "\(name) left the game")
        case .left where !session.players.contains(where: { $0.device == device }):
            // Out (left, or removed with this device when it was out of reach and the lead passed
            // on): the game's popups here go, its "Your turn" with them.
            let out = gamePopup(
                "turn.\(code).left", "\(name), you are out of the game", "Game \(code) · the others play on",
                urgency: .normal, timeout: 10_000)
            return .all([.close(Self.turnKeys(code)), out])
        case .leader where here:
            return notice("turn.\(code).leader", "You are the leader now", urgency: .normal)
        case .leader:
            return notice("turn.\(code).leader", "\(name) leads the game now")
        case .skipped where here:
            return notice("turn.\(code).skipped", "\(name), you are skipped this round", urgency: .normal)
        case .skipped:
            return notice("turn.\(code).skipped", "\(name) is skipped this round")
        case .reversed:
            return notice("turn.\(code).roster", "\(name) reversed the order")
        case .timer:
            let limit = session.clock.timer.map { TurnClock.text(milliseconds: $0.limit) }
            return notice("turn.\(code).roster", limit.map { "Turn timer: \($0) a turn" } ?? "Turn timer off")
        case .sittingOut where here:
            let back = Button(.turn, TurnCommands.Back(code: code, player: player?.id ?? ""))
            return gamePopup(
                "turn.\(code).out", "You are sitting out, \(name)", "Game \(code) · the turn passes you by",
                urgency: .normal, timeout: 0, buttons: [("back", "I'm back", back)])
        case .sittingOut:
            return notice("turn.\(code).roster", "\(name) is sitting out")
        case .returned where here:
            return .close(["turn.\(code).out"])
        case .returned:
            return notice("turn.\(code).roster", "\(name) is back")
        case .paused:
            let resume = Button(.turn, TurnCommands.Resume(code: code, seq: session.seq))
            return gamePopup(
                "turn.\(code).paused", "Game paused", "Game \(code) · \(pausedBody(event))", urgency: .normal,
                timeout: leaderHere ? 0 : 5_000, buttons: leaderHere ? [("resume", "Resume", resume)] : [])
        case .resumed:
            return .close(["turn.\(code).paused"])
        default:
            return .ignore
        }
    }

    private func pausedBody(_ event: TurnChangedEvent) -> String {
        guard let current = event.session.currentPlayer else { return "nobody's turn" }
        guard let left = event.clockNow?.left ?? event.session.clock.left else { return "\(current.name)'s turn" }
        return "\(current.name)'s turn, \(TurnClock.text(milliseconds: left)) left"
    }

    /// The warning and "Time's up", read from the clock's stage as well as the change (a copy
    /// brought up to date by a whole state carries no change), each once a turn. The warning
    /// replaces "Your turn" (keeping Done) with the `dialog-warning` sound; time's up goes to
    /// everyone, with Done for the player and Skip at the leader's device.
    private mutating func timerPopup(_ event: TurnChangedEvent) -> NotificationPlan? {
        let session = event.session
        let code = session.code
        var shown = timerShown[code] ?? (nil, nil)
        defer { timerShown[code] = shown }
        if event.change?.kind == .timeUp, let player = event.change?.player, session.current != player.id {
            // The timer passed the turn on: everyone hears whose time ran out ("Your turn" follows).
            return gamePopup(
                "turn.\(code).timer", "Time's up, \(player.name)", "Game \(code) · the turn passes on",
                icon: "appointment-missed", urgency: .normal, timeout: 5_000,
                sound: player.device == device ? "dialog-warning" : nil)
        }
        guard session.state == .playing, let player = session.currentPlayer else { return nil }
        let turn = session.turnStartSeq
        let mine = player.device == device
        let left = event.clockNow?.left ?? session.clock.left ?? 0
        switch session.clock.stage {
        case .warned where shown.warned != turn && mine:
            shown.warned = turn
            let seconds = max(1, (left + 999) / 1_000)
            return gamePopup(
                "turn.\(code)", "\(seconds) seconds left, \(player.name)", "Game \(code) · turn \(session.turn)",
                icon: "appointment-soon", urgency: .critical, timeout: 0, sound: "dialog-warning",
                buttons: [("done", "Done", doneButton(code, player.id, session.seq))])
        case .expired where shown.up != turn:
            shown.up = turn
            let leaderHere = session.leaderPlayer?.device == device
            let skip = Button(.turn, TurnCommands.Skip(code: code, player: player.id, seq: session.seq))
            let buttons =
                mine
                ? [("done", "Done", doneButton(code, player.id, session.seq))]
                : leaderHere ? [("skip", "Skip \(player.name)", skip)] : []
            return gamePopup(
                mine ? "turn.\(code)" : "turn.\(code).timer", "Time's up, \(player.name)",
                "Game \(code) · turn \(session.turn)", icon: "appointment-missed", urgency: mine ? .critical : .normal,
                timeout: mine || leaderHere ? 0 : 5_000, sound: mine ? "dialog-warning" : nil, buttons: buttons)
        default:
            return nil
        }
    }

    /// "Game over" with each player's turns, average, longest and total, and who took longest.
    private func gameOver(_ session: TurnSession) -> NotificationPlan {
        let statistics = session.statistics
        guard !statistics.tallies.isEmpty else { return .ignore }
        let body = ([statistics.longestLine].compactMap { $0 } + statistics.shortLines).joined(separator: "\n")
        return gamePopup(
            "turn.over", "Game over · \(statistics.summary)",
            body, urgency: .normal, timeout: 60_000)
    }
}
