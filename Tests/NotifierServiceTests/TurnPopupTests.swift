import Foundation
import HearthBus
import HearthCore
import HearthNotify
import Testing

@testable import NotifierService

/// The game popups beyond "Your turn": the timer's warning and time's up, pause, sitting out,
/// the end with statistics, and the sounds each carries, as pure logic.
@Suite("Notification catalog: the timer, pause, sitting out, the end and sounds", .timeLimit(.minutes(1)))
struct TurnPopupTests {
    static let here = "device-here"
    var catalog = NotificationCatalog(device: here, timeZone: TimeZone(identifier: "UTC")!)

    /// Ann (here, leading) and Bob (another device), playing; Ann's turn unless `current` says.
    static func session(
        seq: Int64, current: String = "id-Ann", stage: TurnClock.Stage = .running, paused: Bool = false,
        turnStartSeq: Int64 = 3, statistics: TurnStatistics = .init(), state: TurnSession.State = .playing
    ) throws -> TurnSession {
        var clock = TurnClock(timer: try TurnTimer(limit: 90_000))
        clock.used = 80_500
        clock.stage = stage
        clock.paused = paused
        return TurnSession(
            id: "s", code: "J7X-3", seq: seq, state: state,
            players: [
                .init(id: "id-Ann", name: "Ann", device: here), .init(id: "id-Bob", name: "Bob", device: "other"),
            ], current: state == .playing ? current : nil, leader: "id-Ann", turn: 4, turnStartSeq: turnStartSeq,
            clock: clock, statistics: statistics)
    }

    mutating func plan(
        _ session: TurnSession, _ kind: TurnSession.Change.Kind?, _ player: String? = nil
    ) throws -> NotificationPlan {
        let change = kind.map { TurnSession.Change(kind: $0, player: player.flatMap { session.player($0) }) }
        let event = TurnChangedEvent(session: session, change: change, clockNow: nil)
        let envelope = Envelope(
            source: "turn", device: "d", seq: 1, type: "turn.changed", data: try JSONValue(encoding: event))
        return catalog.plan(topic: "turn.J7X-3.changed", envelope: envelope)
    }

    @Test("your turn rings the bell; with a timer it says the time to play; someone else's turn is silent")
    mutating func yourTurnSound() throws {
        let event = YourTurnEvent(
            code: "J7X-3", seq: 5, turn: 4, player: .init(id: "id-Ann", name: "Ann", device: Self.here),
            timerLeft: 90_000)
        let envelope = Envelope(
            source: "turn", device: "d", seq: 1, type: "turn.your-turn", data: try JSONValue(encoding: event))
        let popup = try NotificationCatalogTests.popup(catalog.plan(topic: "t", envelope: envelope))
        #expect(popup.notification.sound == "bell")
        #expect(popup.notification.body == "Game J7X-3 · turn 4 · 1:30 to play")
        let other = YourTurnEvent(code: "J7X-3", seq: 6, turn: 5, player: .init(id: "b", name: "Bob", device: "x"))
        let quiet = try NotificationCatalogTests.popup(
            catalog.plan(
                topic: "t",
                envelope: Envelope(
                    source: "turn", device: "d", seq: 2, type: "turn.your-turn", data: try JSONValue(encoding: other))))
        #expect(quiet.notification.sound == nil)
    }

    @Test("the warning: once a turn, on the player's device, replacing Your turn, Done kept, dialog-warning")
    mutating func warning() throws {
        let popup = try NotificationCatalogTests.popup(
            plan(try Self.session(seq: 6, stage: .warned), .warning, "id-Ann"))
        #expect(popup.key == "turn.J7X-3")
        #expect(popup.notification.summary == "10 seconds left, Ann")
        #expect(popup.notification.sound == "dialog-warning")
        #expect(popup.notification.urgency == .critical)
        #expect(popup.buttons["done"]?.arguments["seq"] == 6)
        // A later state of the same turn (a presence change, a resync) does not warn again.
        #expect(try plan(try Self.session(seq: 7, stage: .warned), .away, "id-Bob") == .ignore)
        // A copy brought up to date by a whole state (no change) still warns for a new turn.
        let resynced = try plan(try Self.session(seq: 12, stage: .warned, turnStartSeq: 10), nil)
        #expect(try NotificationCatalogTests.popup(resynced).notification.sound == "dialog-warning")
        // Bob's turn warned: not on this device.
        #expect(
            try plan(try Self.session(seq: 20, current: "id-Bob", stage: .warned, turnStartSeq: 18), nil) == .ignore)
    }

    @Test("time's up: the player gets Done and the sound, the leader's device Skip with the seq, once a turn")
    mutating func timeUp() throws {
        let mine = try NotificationCatalogTests.popup(
            plan(try Self.session(seq: 8, stage: .expired), .timeUp, "id-Ann"))
        #expect(mine.key == "turn.J7X-3" && mine.notification.summary == "Time's up, Ann")
        #expect(mine.notification.sound == "dialog-warning" && mine.buttons["done"] != nil)
        #expect(try plan(try Self.session(seq: 9, stage: .expired), .back, "id-Bob") == .ignore)

        // Bob's time is up: Ann's device leads, so it offers Skip, for this state only.
        let bobs = try NotificationCatalogTests.popup(
            plan(try Self.session(seq: 14, current: "id-Bob", stage: .expired, turnStartSeq: 12), .timeUp, "id-Bob"))
        #expect(bobs.key == "turn.J7X-3.timer" && bobs.notification.sound == nil)
        #expect(
            bobs.buttons["skip"]
                == Button(
                    service: .turn, command: "skip", arguments: ["code": "J7X-3", "player": "id-Bob", "seq": 14]))

        // With pass: the turn moved on; everyone hears whose time ran out.
        let passed = try NotificationCatalogTests.popup(
            plan(try Self.session(seq: 16, current: "id-Ann", turnStartSeq: 16), .timeUp, "id-Bob"))
        #expect(passed.notification.summary == "Time's up, Bob" && passed.key == "turn.J7X-3.timer")
    }

    @Test("paused: Resume at the leader's device (with the seq); resumed closes it")
    mutating func paused() throws {
        let popup = try NotificationCatalogTests.popup(
            plan(try Self.session(seq: 10, paused: true), .paused, "id-Ann"))
        #expect(popup.key == "turn.J7X-3.paused")
        #expect(popup.notification.body == "Game J7X-3 · Ann's turn, 0:10 left")
        #expect(popup.buttons["resume"]?.arguments == ["code": "J7X-3", "seq": 10])
        #expect(try plan(try Self.session(seq: 11), .resumed, "id-Ann") == .close(["turn.J7X-3.paused"]))
    }

    @Test("a skip is a popup of its own: the next notice (a reverse, a timer) no longer replaces it (issue 63)")
    mutating func skipKeepsItsPopup() throws {
        let skipped = try NotificationCatalogTests.popup(plan(try Self.session(seq: 12), .skipped, "id-Ann"))
        #expect(
            skipped.key == "turn.J7X-3.skipped" && skipped.notification.summary == "Ann, you are skipped this round")
        let reversed = try NotificationCatalogTests.popup(plan(try Self.session(seq: 13), .reversed, "id-Bob"))
        #expect(reversed.key == "turn.J7X-3.roster" && reversed.notification.summary == "Bob reversed the order")
        #expect(NotificationCatalog.turnKeys("J7X-3").contains("turn.J7X-3.skipped"), "the end closes it too")
    }

    @Test("sitting out: I'm back on the player's device, a notice elsewhere; back closes it")
    mutating func sittingOut() throws {
        var session = try Self.session(seq: 12)
        let popup = try NotificationCatalogTests.popup(plan(session, .sittingOut, "id-Ann"))
        #expect(popup.key == "turn.J7X-3.out" && popup.notification.summary == "You are sitting out, Ann")
        #expect(popup.buttons["back"]?.command == "back" && popup.buttons["back"]?.arguments["player"] == "id-Ann")
        session = try Self.session(seq: 13)
        #expect(try plan(session, .returned, "id-Ann") == .close(["turn.J7X-3.out"]))
        let notice = try NotificationCatalogTests.popup(plan(try Self.session(seq: 14), .sittingOut, "id-Bob"))
        #expect(notice.notification.summary == "Bob is sitting out")
    }

    @Test(
        "out of the game (left, or removed with this device while the lead passed on): the game's popups here close, Your turn with them, and the player is told"
    )
    mutating func outOfTheGame() throws {
        let ann = TurnSession.Player(id: "id-Ann", name: "Ann", device: Self.here)
        let bob = TurnSession.Player(id: "id-Bob", name: "Bob", device: "other")
        let without = TurnSession(
            id: "s", code: "J7X-3", seq: 9, state: .playing, players: [bob, .init(id: "c", name: "Cy", device: "x")],
            current: "id-Bob", leader: "id-Bob", turn: 5, turnStartSeq: 9)
        let event = TurnChangedEvent(session: without, change: .init(kind: .left, player: ann), clockNow: nil)
        let envelope = Envelope(
            source: "turn", device: "d", seq: 1, type: "turn.changed", data: try JSONValue(encoding: event))
        let plan = catalog.plan(topic: "turn.J7X-3.changed", envelope: envelope)
        guard case .all(let plans) = plan, plans.count == 2, case .show(let popup) = plans[1] else {
            Issue.record("expected the game's popups closed and a notice, got \(plan)")
            return
        }
        #expect(plans[0] == .close(NotificationCatalog.turnKeys("J7X-3")))
        #expect(popup.notification.summary == "Ann, you are out of the game")
        #expect(popup.notification.body == "Game J7X-3 · the others play on")
        // Someone else leaving is a notice only.
        let other = TurnChangedEvent(session: without, change: .init(kind: .left, player: ann), clockNow: nil)
        var elsewhere = NotificationCatalog(device: "other", timeZone: TimeZone(identifier: "UTC")!)
        let notice = try NotificationCatalogTests.popup(
            elsewhere.plan(
                topic: "t",
                envelope: Envelope(
                    source: "turn", device: "d", seq: 2, type: "turn.changed", data: try JSONValue(encoding: other))))
        #expect(notice.notification.summary == "Ann left the game")
    }

    @Test("the end: the game's popups close and the statistics show under a key without the game's code")
    mutating func gameOver() throws {
        let statistics = TurnStatistics(tallies: [
            .init(player: "id-Ann", name: "Ann", turns: 2, total: 40_000, longest: 30_000),
            .init(player: "id-Bob", name: "Bob", turns: 2, total: 135_000, longest: 90_000),
        ])
        let plan = try plan(try Self.session(seq: 30, statistics: statistics, state: .ended), .ended, "id-Ann")
        guard case .all(let plans) = plan, plans.count == 2, case .show(let popup) = plans[1] else {
            Issue.record("expected the keys closed and the statistics shown, got \(plan)")
            return
        }
        #expect(plans[0] == .close(NotificationCatalog.turnKeys("J7X-3")))
        #expect(popup.key == "turn.over")
        #expect(popup.notification.summary == "Game over · 4 turns in 2 min 55 s")
        #expect(
            popup.notification.body
                == "Bob took longest: 1 min 30 s\nAnn: 2 turns 0:40, avg 0:20, max 0:30\n"
                + "Bob: 2 turns 2:15, avg 1:07, max 1:30")
    }

    @Test("sounds off, or quiet hours (even for a popup that breaks them), take the sound off")
    func soundsGate() throws {
        let ring = DesktopNotification(summary: "Your turn, Ann", urgency: .critical, timeout: 0, sound: "bell")
        var settings = NotifySettings()
        let noon = try #require(Timestamp.parse("2026-11-28T12:00:00Z"))
        let utc = Calendar(identifier: .gregorian).settingTimeZone(try #require(TimeZone(identifier: "UTC")))
        #expect(settings.audible(ring, at: noon, calendar: utc).sound == "bell")
        settings.sounds = false
        #expect(settings.audible(ring, at: noon, calendar: utc).sound == nil)
        settings.sounds = true
        settings.quietHours = try QuietHours(parsing: "11:00-13:00")
        settings.criticalBreaksQuietHours = true
        #expect(settings.audible(ring, at: noon, calendar: utc).sound == nil)
        #expect(settings.gate(.turns, ring, at: noon, calendar: utc) == .show)
    }
}

extension Calendar {
    fileprivate func settingTimeZone(_ zone: TimeZone) -> Calendar {
        var copy = self
        copy.timeZone = zone
        return copy
    }
}
