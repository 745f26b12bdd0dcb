import HearthBus
import HearthCore
import Testing

/// Each service's typed commands (todos, the store's own, the scheduler's, hearth-sync's, the bus's,
/// the notifier's) encode to the arguments their senders built by hand, and the replies and
/// events typed with them keep their keys (`HearthCommandTests.expectWire`).
@Suite("Service commands: the same bytes on the wire")
struct ServiceCommandWireTests {
    @Test("each todo command encodes to the arguments the CLI, the page and the scheduler built by hand")
    func todoCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (
                TodoCommands.Add(
                    title: "Swim", collection: "Habits", due: "2026-12-08", time: "07:00", repeating: "weekly",
                    until: "2027-06-30", monthEnd: "clamp", remind: true, showInCalendar: false, assignee: "Ann"),
                "todo.add",
                [
                    "title": "Swim", "collection": "Habits", "due": "2026-12-08", "time": "07:00", "repeat": "weekly",
                    "until": "2027-06-30", "month_end": "clamp", "remind": true, "show_in_calendar": false,
                    "for": "Ann",
                ]
            ),
            (
                TodoCommands.Edit(id: "4f2a", description: "", completed: true, assignee: ""), "todo.edit",
                ["id": "4f2a", "description": "", "completed": true, "for": ""]
            ),
            (TodoCommands.Remove(id: "4f2a"), "todo.remove", ["id": "4f2a"]),
            (TodoCommands.Done(id: "4f2a", date: "2026-12-08"), "todo.done", ["id": "4f2a", "date": "2026-12-08"]),
            (TodoCommands.Undone(id: "4f2a"), "todo.undone", ["id": "4f2a"]),
            (
                TodoCommands.Skip(id: "4f2a", date: "2026-12-08", skipped: false), "todo.skip",
                ["id": "4f2a", "date": "2026-12-08", "skipped": false]
            ),
            (TodoCommands.Pause(id: "4f2a", resume: true), "todo.pause", ["id": "4f2a", "resume": true]),
            (TodoCommands.Show(id: "4f2a", today: "2026-12-08"), "todo.show", ["id": "4f2a", "today": "2026-12-08"]),
            (
                TodoCommands.List(collection: "Home", today: "2026-12-08", assignee: "Ann"), "todo.list",
                ["collection": "Home", "today": "2026-12-08", "for": "Ann"]
            ),
            (TodoCommands.Day(date: "2026-12-08"), "todo.day", ["date": "2026-12-08"]),
            (
                TodoCommands.Occurrences(id: "4f2a", from: "2026-12-01", to: "2026-12-31"), "todo.occurrences",
                ["id": "4f2a", "from": "2026-12-01", "to": "2026-12-31"]
            ),
            (TodoCommands.History(id: "4f2a"), "todo.history", ["id": "4f2a"]),
            (
                TodoCommands.Calendar(from: "2026-12-01", to: "2026-12-31", status: "open", assignee: "Ann"),
                "todo.calendar", ["from": "2026-12-01", "to": "2026-12-31", "status": "open", "for": "Ann"]
            ),
            (TodoCommands.Export(), "todo.export", [:]),
            (
                TodoCommands.Import(path: "/tmp/t.ics", collection: "Home", confirm: true), "todo.import",
                ["path": "/tmp/t.ics", "collection": "Home", "confirm": true]
            ),
            (TodoCommands.Stats(weeks: 4), "todo.stats", ["weeks": 4]),
            (
                TodoCommands.ApplyTemplate(name: "Morning routine", start: "2026-12-08", collectionName: "Mornings"),
                "template.apply", ["name": "Morning routine", "start": "2026-12-08", "collection_name": "Mornings"]
            ),
        ]
        try HearthCommandTests.expectWire(cases)
        // The keys Swift cannot spell ('repeat', 'for') decode back into their fields.
        let request = CommandRequest(
            command: "todo.add", arguments: ["title": "Swim", "collection": "Habits", "repeat": "daily", "for": "Ann"])
        let add = try request.decode(TodoCommands.Add.self)
        #expect(add.repeating == "daily" && add.assignee == "Ann")
        #expect(throws: CommandError.invalidArgument("collection", "is required")) {
            try CommandRequest(command: "todo.add", arguments: ["title": "Swim"]).decode(TodoCommands.Add.self)
        }
        #expect(throws: CommandError.invalidArgument("date", "is required")) {
            try CommandRequest(command: "todo.skip", arguments: ["id": "4f2a"]).decode(TodoCommands.Skip.self)
        }
    }

    @Test("each history, device, exchange and search command encodes to the arguments its senders built by hand")
    func storeCoreCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (
                HistoryCommands.History(year: 2026, month: 8, device: "Mum", since: "2026-08-01T00:00:00Z"), "history",
                ["year": 2026, "month": 8, "device": "Mum", "since": "2026-08-01T00:00:00Z"]
            ),
            (HistoryCommands.Conflicts(), "conflicts", [:]),
            (
                HistoryCommands.Resolve(id: "2026-08/title", keep: "Mum"), "conflicts.resolve",
                ["id": "2026-08/title", "keep": "Mum"]
            ),
            (HistoryCommands.Changes(since: 7, limit: 1_000), "changes", ["since": 7, "limit": 1_000]),
            (HistoryCommands.Undo(), "undo", [:]), (HistoryCommands.Redo(), "redo", [:]),
            (HistoryCommands.UndoSteps(limit: 1), "undo.list", ["limit": 1]),
            (DeviceCommands.List(), "device.list", [:]),
            (DeviceCommands.Rename(id: "0f0f", name: "Mum"), "device.rename", ["id": "0f0f", "name": "Mum"]),
            (
                DeviceCommands.Synced(id: "0f0f", at: "2026-11-23T09:00:00Z"), "device.synced",
                ["id": "0f0f", "at": "2026-11-23T09:00:00Z"]
            ),
            (
                DeviceCommands.Trust(device: "0f0f", key: "a2V5", via: "sync"), "device.trust",
                ["device": "0f0f", "key": "a2V5", "via": "sync"]
            ),
            (DeviceCommands.Distrust(device: "0f0f"), "device.distrust", ["device": "0f0f"]),
            (DeviceCommands.Revoke(device: "0f0f"), "device.revoke", ["device": "0f0f"]),
            (ExchangeCommands.Vector(), "ops.vector", [:]), (ExchangeCommands.Quarantine(), "ops.quarantine", [:]),
            (ExchangeCommands.PurgeQuarantine(), "ops.quarantine.purge", [:]),
            (ExchangeCommands.Forks(), "ops.forks", [:]), (ExchangeCommands.Resume(), "ops.resume", [:]),
            (ExchangeCommands.Backup(path: "/tmp/b.sqlite"), "backup", ["path": "/tmp/b.sqlite"]),
            (
                SearchCommands.Search(text: "dentist", kind: "todo", limit: 50), "search",
                ["text": "dentist", "kind": "todo", "limit": 50]
            ),
        ]
        try HearthCommandTests.expectWire(cases)
        // The trust reply says how the key came except for a key already known, as before.
        let known = try JSONValue(reply: DeviceTrusted(device: "0f0f", fingerprint: "ab:cd", pinned: "known"))
        #expect(known == ["device": "0f0f", "fingerprint": "ab:cd", "pinned": "known"])
        let replaced = try JSONValue(
            reply: DeviceTrusted(
                device: "0f0f", fingerprint: "ab:cd", pinned: "replaced", via: "pairing", replacedFingerprint: "ef:01"))
        #expect(
            replaced == [
                "device": "0f0f", "fingerprint": "ab:cd", "pinned": "replaced", "via": "pairing",
                "replaced_fingerprint": "ef:01",
            ])
    }

    @Test("each scheduler command encodes to the arguments a reminder's buttons and the CLI built by hand")
    func schedulerCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (ReminderActions.Done(id: "t1@2026-12-08"), "reminder.done", ["id": "t1@2026-12-08"]),
            (ReminderActions.Snooze(id: "t1"), "reminder.snooze", ["id": "t1"]),
            (
                ReminderActions.Snooze(id: "plan:p1", minutes: 1440), "reminder.snooze",
                ["id": "plan:p1", "minutes": 1440]
            ),
            (ReminderActions.Reschedule(id: "plan:p1"), "reminder.reschedule", ["id": "plan:p1"]),
            (
                ReminderActions.Reschedule(id: "plan:p1", to: "2026-12-08T18:00:00Z"), "reminder.reschedule",
                ["id": "plan:p1", "to": "2026-12-08T18:00:00Z"]
            ),
            (SchedulerQueries.Reminders(), "reminder.list", [:]), (SchedulerQueries.Showing(), "reminder.showing", [:]),
            (SchedulerQueries.Reload(), "reminder.reload", [:]), (SchedulerQueries.Classes(), "class.list", [:]),
            (SchedulerQueries.CheckIns(), "plan.reminders", [:]), (SchedulerQueries.ReadBusy(), "busy.read", [:]),
            (
                SchedulerQueries.ReadBusy(url: "https://nas.local/cal"), "busy.read",
                ["url": "https://nas.local/cal"]
            ),
        ]
        try HearthCommandTests.expectWire(cases)
        // A button's reply says what it did, and nothing it did not.
        #expect(
            try JSONValue(reply: ReminderActed(id: "t1", until: "2026-12-08T18:10:00Z")) == [
                "id": "t1", "until": "2026-12-08T18:10:00Z",
            ])
        #expect(throws: CommandError.invalidArgument("id", "is required")) {
            try CommandRequest(command: "reminder.done", arguments: [:]).decode(ReminderActions.Done.self)
        }
    }

    @Test(
        "each pairing and sync command encodes to the arguments the CLI, the page and the pairing popup built by hand")
    func pairingAndSyncCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (PairingCommands.Nearby(), "device.nearby", [:]),
            (PairingCommands.Pair(device: "Mum"), "device.pair", ["device": "Mum"]),
            (PairingCommands.Pending(), "device.pairing", [:]),
            (
                PairingCommands.Confirm(device: "Mum", code: "123 456", name: "Mum's laptop"), "device.confirm",
                ["device": "Mum", "code": "123 456", "name": "Mum's laptop"]
            ),
            (PairingCommands.Confirm(device: "0f0f"), "device.confirm", ["device": "0f0f"]),
            (PairingCommands.Reject(device: "0f0f"), "device.reject", ["device": "0f0f"]),
            (PairingCommands.Paired(), "device.paired", [:]),
            (PairingCommands.Forget(device: "Mum"), "device.forget", ["device": "Mum"]),
            (SyncCommands.Now(), "sync.now", [:]), (SyncCommands.Now(device: "Mum"), "sync.now", ["device": "Mum"]),
            (
                SyncCommands.Log(device: "Mum", since: "2026-11-27T00:00:00Z", limit: 30), "sync.log",
                ["device": "Mum", "since": "2026-11-27T00:00:00Z", "limit": 30]
            ),
            (SyncCommands.Diag(), "sync.diag", [:]),
        ]
        try HearthCommandTests.expectWire(cases)
        #expect(throws: CommandError.invalidArgument("device", "is required")) {
            try CommandRequest(command: "device.pair", arguments: [:]).decode(PairingCommands.Pair.self)
        }
    }

    @Test("the bus's and the notifier's commands, and their replies, keep the keys they had")
    func busAndNotifierCommandsMatchTheWire() throws {
        let cases: [(any HearthCommand, String, [String: JSONValue])] = [
            (BusCommands.Probe(topic: "_probe.a1"), "probe", ["topic": "_probe.a1"]),
            (BusCommands.Stats(), "stats", [:]), (NotifierCommands.Server(), "server", [:]),
            (NotifierCommands.Settings(), "settings", [:]), (NotifierCommands.ReloadSettings(), "settings.reload", [:]),
            (ServiceCommands.Ping(), "ping", [:]), (WebCommands.ReloadToken(), "token.reload", [:]),
            (ServiceCommands.Progress(token: "t1"), "progress", ["token": "t1"]),
        ]
        try HearthCommandTests.expectWire(cases)
        let stats = BusStats(
            forwarded: 5, dropped: 3, malformed: 1, oversized: 1, protocolErrors: 1, subscriptions: 2,
            droppedSubscribers: 0)
        #expect(
            try JSONValue(reply: stats) == [
                "forwarded": 5, "dropped": 3, "malformed": 1, "oversized": 1, "protocol_errors": 1, "subscriptions": 2,
                "dropped_subscribers": 0,
            ])
        let ping = PingReply(
            service: "bus", pid: 7, version: "0.4.0", commit: "abc", uptimeSeconds: 1.5,
            commands: .init(handled: 3, malformed: 0, duplicates: 1, busy: 0))
        #expect(
            try JSONValue(reply: ping) == [
                "service": "bus", "pid": 7, "version": "0.4.0", "commit": "abc", "uptime_s": 1.5,
                "commands": ["handled": 3, "malformed": 0, "duplicates": 1, "busy": 0],
            ])
        let settings = NotifySettingsView(
            categories: ["turns": true, "sync": false], quietHours: nil, criticalBreaksQuietHours: false, sounds: true)
        #expect(
            try JSONValue(reply: settings) == [
                "categories": ["turns": true, "sync": false], "quiet_hours": .null,
                "critical_breaks_quiet_hours": false, "sounds": true,
            ])
    }

    @Test("the notifier's events keep the keys they were built with by hand")
    func notifierEventsKeepTheirKeys() throws {
        #expect(
            try JSONValue(
                encoding: NotifyShownEvent(key: "turn.AB12", id: 4, event: "e1", summary: "Your turn", latencyMs: 1.25))
                == ["key": "turn.AB12", "id": 4, "event": "e1", "summary": "Your turn", "latency_ms": 1.25])
        #expect(
            try JSONValue(
                encoding: NotifySuppressedEvent(
                    key: "reminder.t1", category: "reminders", reason: "quiet hours",
                    heldUntil: "2026-12-08T07:00:00Z"))
                == [
                    "key": "reminder.t1", "category": "reminders", "reason": "quiet hours",
                    "held_until": "2026-12-08T07:00:00Z",
                ])
        #expect(
            try JSONValue(encoding: NotifySuppressedEvent(key: "sync.x", category: "sync", reason: "off"))
                == ["key": "sync.x", "category": "sync", "reason": "off"])
        #expect(
            try JSONValue(encoding: NotifyActionEvent(key: "k", action: "done", service: "turn", command: "done"))
                == ["key": "k", "action": "done", "service": "turn", "command": "done"])
        #expect(try JSONValue(encoding: NotifyFailedEvent(key: "k", reason: "r")) == ["key": "k", "reason": "r"])
    }
}
