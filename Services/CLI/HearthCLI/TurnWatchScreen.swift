import Foundation
import HearthBus
import HearthCore
import Synchronization

/// The watch view: redraws the terminal with a large line a player can read across a table.
final class WatchScreen: Sendable {
    private let device: String
    private let json: Bool
    /// The household's time zone: "out of date since" is on its wall clock.
    private let zone: TimeZone
    private let shown = Atomic<Int64>(0)
    /// Why the view may be out of date, and since when; `nil` while the turn service answers.
    private let stale = Mutex<(reason: String, since: Date)?>(nil)
    /// The session shown, its clock as read, and when it was read (the countdown goes on from it).
    private let last = Mutex<(session: TurnSession, clock: TurnClockReading?, read: ContinuousClock.Instant)?>(nil)
    /// Ring the terminal bell when it becomes this device's turn (`--bell`).
    private let bell: Bool
    /// The `turn_start_seq` of the last turn the bell rang for.
    private let rung = Atomic<Int64>(-1)

    init(device: String, json: Bool, zone: TimeZone = .current, bell: Bool = false) {
        self.device = device
        self.json = json
        self.zone = zone
        self.bell = bell
        if !json { Output.write("\u{1B}[?25l") }  // hide the cursor
    }

    /// The turn service answered: the view is current again (redrawn if it was marked stale).
    func answered(_ session: TurnSession, clock: TurnClockReading? = nil) {
        let wasStale = stale.withLock { state in
            defer { state = nil }
            return state != nil
        }
        if wasStale {
            if json { Output.json(["stale": false]) }
            draw(session, clock: clock)
        } else {
            show(session, clock: clock)
        }
    }

    /// The turn service stopped answering (or lost the game): say so on the screen.
    func markStale(_ reason: String) {
        let first = stale.withLock { state -> Bool in
            guard state == nil else { return false }
            state = (reason, Date())
            return true
        }
        guard first else { return }
        if json {
            Output.json(["stale": true, "reason": .string(reason)])
        } else if let shown = last.withLock({ $0 }) {
            draw(shown.session, clock: shown.clock, read: shown.read)
        }
    }

    func show(_ session: TurnSession, clock: TurnClockReading? = nil) {
        guard session.seq > shown.load(ordering: .relaxed) else { return }
        draw(session, clock: clock)
    }

    /// Redraws what is shown while its timer counts down (once a second).
    func refresh() {
        guard let shown = last.withLock({ $0 }), shown.session.state == .playing,
            shown.session.clock.timer != nil, !shown.session.clock.paused
        else { return }
        draw(shown.session, clock: shown.clock, read: shown.read)
    }

    private func draw(_ session: TurnSession, clock: TurnClockReading?, read: ContinuousClock.Instant = .now) {
        shown.store(max(session.seq, shown.load(ordering: .relaxed)), ordering: .relaxed)
        last.withLock { $0 = (session, clock, read) }
        let current = session.currentPlayer
        let mine = current?.device == device
        let name = current?.name ?? ""
        // The clock as read, moved on by the time since (not while paused).
        let since = (ContinuousClock.now - read).milliseconds
        let live = clock.map { reading in
            let moved = reading.paused ? 0 : since
            return TurnClockReading(
                used: reading.used + moved, left: reading.left.map { $0 - moved }, paused: reading.paused)
        }
        if bell, !json, mine, session.state == .playing,
            rung.exchange(session.turnStartSeq, ordering: .relaxed) != session.turnStartSeq
        {
            Output.write("\u{07}")
        }
        let headline: String
        switch session.state {
        case .open: headline = "Waiting to start"
        case .ended: headline = "Game over"
        case .playing: headline = mine ? "YOUR TURN, \(name)" : "\(current?.name ?? "Nobody") is playing"
        }
        if json {
            let encoded = (try? JSONValue(encoding: session)) ?? .null
            var line: [String: JSONValue] = [
                "seq": .int(session.seq), "headline": .string(headline), "session": encoded,
            ]
            if let left = live?.left { line["left_ms"] = .int(left) }
            Output.json(.object(line))
            return
        }
        // The big line: block capitals when the terminal is wide enough ("YOUR TURN" / the name),
        // with the rest of the sentence in bold underneath; plain bold otherwise.
        let (big, small): (String, String) =
            switch session.state {
            case .playing: mine ? ("Your turn", name) : (name, "is playing")
            default: (headline, "")
            }
        let style = "\u{1B}[1m" + (mine ? "\u{1B}[32m" : "")
        var lines = ["\u{1B}[2J\u{1B}[H", ""]
        if let rows = BlockLetters.render(big, width: BlockLetters.terminalWidth - 4) {
            lines += rows.map { "  " + style + $0 + "\u{1B}[0m" }
            if !small.isEmpty { lines += ["", "  " + style + small + "\u{1B}[0m"] }
        } else {
            lines.append("  " + style + headline + "\u{1B}[0m")
        }
        lines.append("")
        var game = "  Game \(session.code)  ·  turn \(session.turn)"
        if let clockLine = Turn.clockLine(session, live) { game += "  ·  " + clockLine }
        lines.append(game)
        lines.append("")
        lines += Turn.playerLines(session).map { " " + $0 }
        if session.state == .ended { lines += Turn.statisticsLines(session.statistics) }
        if let (reason, since) = stale.withLock({ $0 }) {
            let time = Dates.timeOfDay(since, zone, milliseconds: false)
            lines += ["", "  \u{1B}[1;33m⚠ Out of date since \(time): \(reason)\u{1B}[0m"]
        }
        Output.write(lines.joined(separator: "\n") + "\n")
    }

    func finish() {
        if !json { Output.write("\u{1B}[?25h\n") }
    }
}
