import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthNotify
import Testing

@testable import NotifierService

/// The table from events to popups, and the settings gate, as pure logic.
@Suite("Notification catalog", .timeLimit(.minutes(1)))
struct NotificationCatalogTests {
    static let here = "device-here"
    var catalog = NotificationCatalog(device: here, timeZone: TimeZone(identifier: "UTC")!)

    static func event(_ type: String, _ data: JSONValue) -> Envelope {
        Envelope(source: "test", device: "device-test", seq: 1, type: type, data: data)
    }

    static func yourTurn(_ name: String, device: String, seq: Int64, code: String = "J7X-3") -> Envelope {
        event(
            "turn.your-turn",
            [
                "code": .string(code), "seq": .int(seq), "turn": .int(seq),
                "player": ["id": .string("id-\(name)"), "name": .string(name), "device": .string(device)],
            ])
    }

    static func popup(_ plan: NotificationPlan) throws -> Popup {
        guard case .show(let popup) = plan else {
            Issue.record("expected a popup, got \(plan)")
            throw CancellationError()
        }
        return popup
    }

    @Test(
        "a pinned key over a vouched one: a critical 'Two signing keys' popup naming both; a key change without a conflict shows nothing"
    )
    mutating func keyConflict() throws {
        let device = "3f2a9c1e-0000-4000-8000-000000000001"
        let conflict = DeviceList.KeyConflict(
            vouchedFingerprint: "AAAA-BBBB", vouchedBy: "7c1d0e2f-0000-4000-8000-000000000002",
            pinnedFingerprint: "CCCC-DDDD", at: "2026-12-06T20:00:00Z")
        let data = try JSONValue(
            reply: DeviceKeyChange.Event(
                deviceKey: DeviceKeyChange(
                    device: device, fingerprint: "CCCC-DDDD", vouchedBy: Self.here, keyConflict: conflict)))
        let popup = try Self.popup(
            catalog.plan(topic: "store.device_key.changed", envelope: Self.event("store.changed", data)))
        #expect(popup.key == "device.key.\(device)")
        #expect(popup.category == .sync)
        #expect(popup.notification.summary == "Two signing keys for device 3f2a9c1e")
        #expect(popup.notification.body.contains("7c1d0e2f vouched for AAAA-BBBB"))
        #expect(popup.notification.body.contains("pinned CCCC-DDDD"))
        #expect(popup.notification.urgency == .critical)
        let quiet = try JSONValue(
            reply: DeviceKeyChange.Event(
                deviceKey: DeviceKeyChange(
                    device: device, fingerprint: "CCCC-DDDD", vouchedBy: Self.here, keyConflict: nil)))
        guard
            case .ignore = catalog.plan(topic: "store.device_key.changed", envelope: Self.event("store.changed", quiet))
        else {
            Issue.record("a key change without a conflict showed a popup")
            return
        }
    }

    @Test("a check-in with no free time after a calendar's read: one popup naming it, its clash and the calendar")
    mutating func unplacedCheckIn() throws {
        let data = try JSONValue(
            reply: PlanUnplacedEvent(
                source: "https://nas.local/family.ics",
                unplaced: [
                    .init(
                        event: "check-in with Ann at Mon 23 Nov 18:00", reason: "it clashes with a busy time ('Class')"),
                    .init(
                        event: "check-in with Bo at Tue 24 Nov 18:00", reason: "it clashes with a busy time ('Class')"),
                ]))
        let popup = try Self.popup(catalog.plan(topic: "plan.unplaced", envelope: Self.event("plan.unplaced", data)))
        #expect(popup.key == "plan.unplaced")
        #expect(popup.category == .reminders)
        #expect(popup.notification.summary == "No free time for check-in with Ann at Mon 23 Nov 18:00")
        #expect(
            popup.notification.body.contains("it clashes with a busy time ('Class') (https://nas.local/family.ics)"))
        #expect(popup.notification.body.contains("… and 1 more"))
    }

    @Test("your turn: critical, stays, Done sends done (as the CLI does) with the game, player and seq")
    mutating func yourTurnHere() throws {
        let popup = try Self.popup(
            catalog.plan(topic: "turn.J7X-3.your-turn", envelope: Self.yourTurn("Ann", device: Self.here, seq: 7)))
        #expect(popup.key == "turn.J7X-3")
        #expect(popup.category == .turns)
        #expect(popup.notification.summary == "Your turn, Ann")
        #expect(popup.notification.body == "Game J7X-3 · turn 7")
        #expect(popup.notification.urgency == .critical)
        #expect(popup.notification.timeout == 0)
        #expect(popup.notification.actions.map(\.label) == ["Done"])
        #expect(
            popup.buttons["done"]
                == Button(
                    service: .turn, command: "done", arguments: ["code": "J7X-3", "player": "id-Ann", "seq": 7]))
    }

    @Test("someone else's turn: a quiet 'NAME is playing' under the same key, no buttons")
    mutating func yourTurnElsewhere() throws {
        let popup = try Self.popup(
            catalog.plan(topic: "turn.J7X-3.your-turn", envelope: Self.yourTurn("Bob", device: "other", seq: 8)))
        #expect(popup.key == "turn.J7X-3")
        #expect(popup.notification.summary == "Bob is playing")
        #expect(popup.notification.urgency == .low)
        #expect(popup.buttons.isEmpty)
    }

    @Test("a turn event older than the newest seen for its game is ignored; another game is not affected")
    mutating func staleTurn() throws {
        _ = try Self.popup(catalog.plan(topic: "t", envelope: Self.yourTurn("Ann", device: Self.here, seq: 9)))
        #expect(catalog.plan(topic: "t", envelope: Self.yourTurn("Bob", device: "other", seq: 8)) == .ignore)
        _ = try Self.popup(catalog.plan(topic: "t", envelope: Self.yourTurn("Bob", device: "other", seq: 9)))
        _ = try Self.popup(
            catalog.plan(topic: "t", envelope: Self.yourTurn("Cy", device: "other", seq: 1, code: "K4M-7")))
        let noSeq = Self.event("turn.your-turn", ["code": "J7X-3", "player": ["id": "x", "name": "X", "device": "d"]])
        #expect(catalog.plan(topic: "t", envelope: noSeq) == .ignore)
    }

    @Test("the turn service's own seqs, taken on catching up, replace a wild newest seq")
    mutating func adoptOwnerSeqs() throws {
        _ = try Self.popup(catalog.plan(topic: "t", envelope: Self.yourTurn("Mallory", device: "x", seq: 1_000_000)))
        #expect(catalog.plan(topic: "t", envelope: Self.yourTurn("Ann", device: Self.here, seq: 5)) == .ignore)
        catalog.adoptTurnSeqs(["J7X-3": 5])
        let ann = try Self.popup(catalog.plan(topic: "t", envelope: Self.yourTurn("Ann", device: Self.here, seq: 5)))
        #expect(ann.notification.summary == "Your turn, Ann")
    }

    @Test("joined, left, leader and ended")
    mutating func turnChanges() throws {
        // As the turn service publishes it: the whole session and the change (`TurnChangedEvent`).
        func changed(_ kind: String, _ name: String, device: String, seq: Int64) throws -> Envelope {
            let players: [TurnSession.Player] = [
                .init(id: "id-Ann", name: "Ann", device: Self.here), .init(id: "id-Bob", name: "Bob", device: "other"),
            ]
            let session = TurnSession(
                id: "s", code: "J7X-3", seq: seq, state: .open, players: players, current: nil, leader: "id-Ann",
                turn: 0, turnStartSeq: 0)
            let player = TurnSession.Player(id: "id-\(name)", name: name, device: device)
            let change = TurnSession.Change(kind: try #require(.init(rawValue: kind)), player: player)
            return Self.event(
                "turn.changed", try JSONValue(encoding: TurnChangedEvent(session: session, change: change)))
        }
        let joined = try Self.popup(
            catalog.plan(topic: "t", envelope: try changed("joined", "Bob", device: "other", seq: 1)))
        #expect(joined.notification.summary == "Bob joined the game")
        #expect(joined.notification.body == "Game J7X-3 · 2 players")
        #expect(joined.notification.urgency == .low)
        // A player's own join is not news to their device.
        #expect(catalog.plan(topic: "t", envelope: try changed("joined", "Ann", device: Self.here, seq: 2)) == .ignore)
        let left = try Self.popup(
            catalog.plan(topic: "t", envelope: try changed("left", "Bob", device: "other", seq: 3)))
        #expect(left.notification.summary == "Bob left the game")
        let leader = try Self.popup(
            catalog.plan(topic: "t", envelope: try changed("leader", "Ann", device: Self.here, seq: 4)))
        #expect(leader.notification.summary == "You are the leader now")
        #expect(leader.notification.urgency == .normal)
        #expect(
            catalog.plan(topic: "t", envelope: try changed("ended", "Ann", device: Self.here, seq: 5))
                == .close(NotificationCatalog.turnKeys("J7X-3")))
    }

    @Test("next class: 'Next: SUBJECT in ROOM at HH:MM · TEACHER', normal and brief, one popup per member")
    mutating func nextClass() throws {
        var london = NotificationCatalog(device: Self.here, timeZone: TimeZone(identifier: "Europe/London")!)
        let lesson: JSONValue = [
            "class": [
                "id": "e1@2026-06-15", "member": ["id": "m1", "name": "Ann"], "subject": "Maths", "room": "R12",
                "teacher": "Mr S", "period": "2", "start": "2026-06-15T09:00:00.000Z",
            ]
        ]
        let popup = try Self.popup(london.plan(topic: "class.next", envelope: Self.event("class.next", lesson)))
        #expect(popup.key == "class.m1")
        #expect(popup.category == .classes)
        #expect(popup.notification.summary == "Next: Maths in R12 at 10:00 · Mr S")  // BST
        #expect(popup.notification.body == "Ann · period 2")
        #expect(popup.notification.urgency == .normal)
        #expect(popup.notification.timeout == 10_000)
        #expect(popup.buttons.isEmpty)
        var noTeacher = lesson
        noTeacher = [
            "class": [
                "id": "e2@2026-06-15", "member": ["id": "m1", "name": "Ann"], "subject": "Registration", "room": "R1",
                "teacher": .null, "period": "AM Registration", "start": "2026-06-15T07:40:00.000Z",
            ]
        ]
        let registration = try Self.popup(
            london.plan(topic: "class.next", envelope: Self.event("class.next", noTeacher)))
        #expect(registration.notification.summary == "Next: Registration in R1 at 08:40")
        #expect(registration.notification.body == "Ann · AM Registration")
        #expect(
            london.plan(topic: "class.next", envelope: Self.event("class.next", ["class": ["subject": "x"]])) == .ignore
        )
    }

    @Test("a reminder shows title and local time with Done and Snooze, Reschedule only when offered")
    mutating func reminder() throws {
        let plain = try Self.popup(
            catalog.plan(
                topic: "reminder.due",
                envelope: Self.event(
                    "reminder.due",
                    ["reminder": ["id": "r1", "title": "Feed the cat", "due": "2026-11-22T18:00:00.000Z"]])))
        #expect(plain.key == "reminder.r1")
        #expect(plain.category == .reminders)
        #expect(plain.notification.summary == "Feed the cat")
        #expect(plain.notification.body == "Due 18:00")
        #expect(plain.notification.actions.map(\.label) == ["Done", "Snooze"])
        #expect(
            plain.buttons["snooze"] == Button(service: .scheduler, command: "reminder.snooze", arguments: ["id": "r1"]))

        let offered = try Self.popup(
            catalog.plan(
                topic: "reminder.due",
                envelope: Self.event(
                    "reminder.due",
                    [
                        "reminder": [
                            "id": "r2", "title": "Maths", "due": "2026-11-23T08:50:00.000Z", "detail": "Room 12",
                            "reschedule": "2026-11-24T08:50:00.000Z",
                        ]
                    ])))
        #expect(offered.notification.body == "Due 08:50 · Room 12")
        #expect(offered.notification.actions.map(\.label) == ["Done", "Snooze", "Reschedule"])
        #expect(offered.buttons["reschedule"]?.arguments["to"] == "2026-11-24T08:50:00.000Z")
        #expect(
            catalog.plan(topic: "reminder.done", envelope: Self.event("reminder.done", ["reminder": ["id": "r2"]]))
                == .close(["reminder.r2"]))
    }

    @Test("a snooze replaces its reminder with a brief 'Snoozed until 18:30'")
    mutating func snooze() throws {
        let popup = try Self.popup(
            catalog.plan(
                topic: "reminder.snoozed",
                envelope: Self.event(
                    "reminder.snoozed",
                    ["reminder": ["id": "r1", "title": "Feed the cat"], "until": "2026-11-22T18:30:00.000Z"])))
        #expect(popup.key == "reminder.r1")
        #expect(popup.category == .snoozes)
        #expect(popup.notification.summary == "Snoozed until 18:30")
        #expect(popup.notification.urgency == .low)
        #expect(popup.notification.timeout > 0)
    }

    @Test("sync: quiet when clean, normal with conflicts or on failure, none when nothing moved")
    mutating func sync() throws {
        let peer = PeerRef(device: "d-mum", name: "Mum")
        func completed(_ received: Int, _ sent: Int, _ conflicts: Int) throws -> Envelope {
            Self.event(
                "sync.completed",
                try JSONValue(
                    encoding: SyncCompletedEvent(
                        peer: peer, received: received, sent: sent, conflicts: conflicts, bytes: 900, durationMs: 40,
                        detail: "")))
        }
        let clean = try Self.popup(catalog.plan(topic: "sync.completed", envelope: try completed(3, 1, 0)))
        #expect(clean.notification.summary == "Synced with Mum — 3 received, 1 sent")
        #expect(clean.notification.urgency == .low)
        #expect(clean.key == "sync.d-mum")
        let conflicted = try Self.popup(catalog.plan(topic: "sync.completed", envelope: try completed(2, 0, 1)))
        #expect(conflicted.notification.urgency == .normal)
        #expect(conflicted.notification.body == "1 conflict to look at: hearth conflicts")
        // A sync that moved nothing is no news.
        #expect(catalog.plan(topic: "sync.completed", envelope: try completed(0, 0, 0)) == .ignore)
        let failed = try Self.popup(
            catalog.plan(
                topic: "sync.failed",
                envelope: Self.event(
                    "sync.failed", try JSONValue(encoding: SyncFailedEvent(peer: peer, reason: "wrong key")))))
        #expect(failed.notification.summary == "Sync with Mum failed")
        #expect(failed.notification.body == "wrong key")
        #expect(failed.notification.urgency == .normal)
        // An event that is not its type (a field missing) shows nothing rather than a guess.
        let partial = Self.event("sync.completed", ["peer": ["device": "d-mum", "name": "Mum"], "received": 3])
        #expect(catalog.plan(topic: "sync.completed", envelope: partial) == .ignore)
    }

    @Test("operations a paired device brought and this one refused: one alert naming that device and the first reason")
    mutating func refusedOperations() throws {
        let event = OperationsRefusedEvent(
            peer: .init(device: "e7e00000-0000-4000-8000-0000000000e7", name: "Eve's tablet"), count: 3,
            refused: [
                .init(
                    id: "dadd:50", field: "operations[0].sig", rule: "does not verify with the key of device dadd0000")
            ])
        let popup = try Self.popup(
            catalog.plan(topic: "sync.refused", envelope: Self.event("sync.refused", try JSONValue(encoding: event))))
        #expect(popup.notification.summary == "Refused 3 changes from Eve's tablet")
        #expect(popup.notification.body.contains("'operations[0].sig' does not verify"))
        #expect(popup.key == "sync.refused.e7e00000-0000-4000-8000-0000000000e7")
        #expect(popup.notification.urgency == .normal)
        #expect(catalog.plan(topic: "sync.refused", envelope: Self.event("sync.refused", ["peer": "x"])) == .ignore)
    }

    @Test("every text a popup shows is cut to its limit: a 7,000-character name never fills the screen")
    mutating func clipped() throws {
        let name = String(repeating: "A", count: 7_000)
        let popup = try Self.popup(catalog.plan(topic: "t", envelope: Self.yourTurn(name, device: Self.here, seq: 1)))
        let shown = popup.notification.clipped
        #expect(shown.summary.count == DesktopNotification.maximumSummary)
        #expect(shown.summary.hasSuffix("A…"))
        #expect(shown.body == popup.notification.body)
        let long = DesktopNotification(
            summary: "ok", body: String(repeating: "b", count: 5_000),
            actions: [(key: "done", label: String(repeating: "c", count: 100))])
        #expect(long.clipped.body.count == DesktopNotification.maximumBody)
        #expect(long.clipped.actions.map(\.label.count) == [DesktopNotification.maximumLabel])
        #expect(long.clipped.summary == "ok")
        // Markup from another device is shown as text, not rendered.
        let markup = DesktopNotification(
            summary: "<a href=\"http://evil.example/\">click</a>", body: "<b>bold</b> & more")
        #expect(markup.clipped.summary == "&lt;a href=\"http://evil.example/\"&gt;click&lt;/a&gt;")
        #expect(markup.clipped.body == "&lt;b&gt;bold&lt;/b&gt; &amp; more")
    }

    @Test("events it does not know, or missing what they need, show nothing")
    mutating func ignored() {
        #expect(catalog.plan(topic: "health.bus", envelope: Self.event("health.bus", [:])) == .ignore)
        #expect(
            catalog.plan(topic: "reminder.due", envelope: Self.event("reminder.due", ["reminder": ["id": "x"]]))
                == .ignore)
        #expect(catalog.plan(topic: "sync.completed", envelope: Self.event("sync.completed", [:])) == .ignore)
    }
}

@Suite("Notification settings", .timeLimit(.minutes(1)))
struct NotifySettingsTests {
    static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    static func at(_ text: String) -> Date { Timestamp.parse(text)! }

    @Test("quiet hours parse strictly and wrap past midnight")
    func quietHours() throws {
        let night = try QuietHours(parsing: "22:00-07:00")
        #expect(night.description == "22:00-07:00")
        #expect(night.contains(Self.at("2026-11-22T23:30:00.000Z"), calendar: Self.utc))
        #expect(night.contains(Self.at("2026-11-22T06:59:00.000Z"), calendar: Self.utc))
        #expect(!night.contains(Self.at("2026-11-22T07:00:00.000Z"), calendar: Self.utc))
        #expect(!night.contains(Self.at("2026-11-22T12:00:00.000Z"), calendar: Self.utc))
        #expect(
            night.end(after: Self.at("2026-11-22T23:30:00.000Z"), calendar: Self.utc)
                == Self.at("2026-11-23T07:00:00.000Z"))
        let lunch = try QuietHours(parsing: "12:30-13:15")
        #expect(lunch.contains(Self.at("2026-11-22T12:30:00.000Z"), calendar: Self.utc))
        #expect(!lunch.contains(Self.at("2026-11-22T13:15:00.000Z"), calendar: Self.utc))
        for bad in ["", "22:00", "22-07", "24:00-07:00", "22:60-07:00", "7:5-8:00", "08:00-08:00", "22:00-07:00-09:00"]
        {
            #expect(throws: QuietHours.ParseError.self, "\(bad)") { try QuietHours(parsing: bad) }
        }
    }

    @Test(
        "the gate: a category off drops; quiet hours hold what stays, drop what is brief, and let critical through only if allowed"
    )
    func gate() throws {
        let reminder = DesktopNotification(summary: "Feed the cat", urgency: .normal, timeout: 0)
        let yourTurn = DesktopNotification(summary: "Your turn, Ann", urgency: .critical, timeout: 0)
        let synced = DesktopNotification(summary: "Synced", urgency: .low, timeout: 3_000)
        let night = Self.at("2026-11-22T23:30:00.000Z")
        let day = Self.at("2026-11-22T12:00:00.000Z")
        var settings = NotifySettings()
        #expect(settings.gate(.reminders, reminder, at: night, calendar: Self.utc) == .show)
        settings.quietHours = try QuietHours(parsing: "22:00-07:00")
        #expect(settings.gate(.reminders, reminder, at: day, calendar: Self.utc) == .show)
        #expect(
            settings.gate(.reminders, reminder, at: night, calendar: Self.utc)
                == .hold(
                    reason: "quiet hours 22:00-07:00, held until 07:00", until: Self.at("2026-11-23T07:00:00.000Z")))
        #expect(settings.gate(.sync, synced, at: night, calendar: Self.utc) == .drop(reason: "quiet hours 22:00-07:00"))
        #expect(settings.gate(.turns, yourTurn, at: night, calendar: Self.utc) != .show)
        settings.criticalBreaksQuietHours = true
        #expect(settings.gate(.turns, yourTurn, at: night, calendar: Self.utc) == .show)
        settings.enabled.remove(.turns)
        #expect(
            settings.gate(.turns, yourTurn, at: day, calendar: Self.utc) == .drop(reason: "turns notifications are off")
        )
    }

    @Test("settings round-trip through hearth.toml, keeping other tables; bad values name the key")
    func file() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-notify-\(UUIDText.make())"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/hearth.toml"
        try "# our family's settings\n[bus]\nheartbeat_ms = 500  # fast, for the wall display\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        var settings = NotifySettings()
        settings.enabled.remove(.sync)
        settings.quietHours = try QuietHours(parsing: "21:30-06:45")
        settings.criticalBreaksQuietHours = true
        try settings.write(toConfigFile: path)
        #expect(try NotifySettings.load(configFile: path) == settings)
        // Written again: still one [notify] table, and the person's comments are where they were.
        settings.quietHours = nil
        try settings.write(toConfigFile: path)
        #expect(try NotifySettings.load(configFile: path) == settings)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# our family's settings\n[bus]\nheartbeat_ms = 500  # fast, for the wall display\n"))
        #expect(text.components(separatedBy: "[notify]").count == 2)
        let configuration = try HearthConfiguration.load(home: directory, environment: [:])
        #expect(configuration.heartbeatMilliseconds == 500)
        #expect(configuration.notify == settings)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Settings kept as dotted keys cannot be edited in place: refused, file untouched.
        try "notify.turns = false\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try NotifySettings().write(toConfigFile: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "notify.turns = false\n")

        for (text, key, rule) in [
            ("[notify]\nquiet_hours = \"late\"\n", "notify.quiet_hours", "24-hour"),
            ("[notify]\nturns = \"yes\"\n", "notify.turns", "true or false"),
            ("[notify]\nloud = true\n", "notify.loud", "is not a Hearth setting"),
        ] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: ConfigurationError.self) { try NotifySettings.load(configFile: path) }
            #expect(error?.key == key)
            #expect(error?.rule.contains(rule) == true, "\(error?.rule ?? "")")
        }
    }
}
