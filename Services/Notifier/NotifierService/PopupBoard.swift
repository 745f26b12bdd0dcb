import Foundation
import HearthBus
import HearthCore
import HearthNotify

/// Where the board's popups go: the desktop's notification server (`DesktopNotifications`), or a
/// recorder in tests. Shows and closes take effect in the order they are queued.
protocol PopupSink: Sendable {
    /// Queues a popup under `key`, replacing what that key showed; `completion` reports the
    /// server's id or why no server took it.
    func show(
        _ notification: DesktopNotification, key: String,
        completion: @escaping @Sendable (Result<UInt32, NotificationError>) -> Void)
    /// Queues closing the popup under `key`, if any.
    func close(key: String, completion: (@Sendable () -> Void)?)
    /// Takes over popups an earlier run showed, by key and server id.
    func adopt(_ popups: [String: UInt32])
}

extension DesktopNotifications: PopupSink {}

/// The notifier's whole state in one actor: what is on screen and its buttons, what no server
/// has taken yet, what quiet hours hold, the catalog's newest `seq` per game, and the settings in
/// force.
///
/// No method suspends: each decides on the state as it is and queues its shows and closes on
/// the sink before another can run, so a close can never fall between a release's decision and
/// its show (the race the notifier's earlier lock-per-map design had). Delivery results come
/// back as `delivered(…)` calls and are checked against the state they find.
actor PopupBoard {
    /// A popup not shown yet (no server took it, or quiet hours hold it) and the event it is from.
    struct Pending: Sendable {
        let notification: DesktopNotification
        let envelope: Envelope
    }

    /// Kicked when a delivery failed: the retry loop wakes.
    nonisolated let retries: AsyncStream<Void>
    /// Kicked when something was held or the settings changed: the release loop wakes.
    nonisolated let holds: AsyncStream<Void>

    private(set) var settings: NotifySettings
    private var catalog: NotificationCatalog
    /// The popups on screen (or queued for it) by key, with what each button does.
    private var shown: [String: [String: Button]] = [:]
    /// The latest popup per key that no server has taken yet: only the latest state is shown
    /// when a server comes back, never a flood of stale ones.
    private var undelivered: [String: Pending] = [:]
    /// Popups kept back by quiet hours, latest per key.
    private var held: [String: Pending] = [:]
    /// Keys whose last show failed: a failure is reported once, not on every retry.
    private var failing: Set<String> = []
    /// Each popup a server took: its id (kept so a restarted notifier can take it over) and
    /// what it shows with its event (`nil` for one taken over from an earlier run), so the same
    /// popup is not shown twice, and one lost with its server can be shown again.
    private var onScreen: [String: (id: UInt32, item: Pending?)] = [:]
    private let record: @Sendable ([String: UInt32]) -> Void
    private let sink: any PopupSink
    private let now: @Sendable () -> Date
    private let report: @Sendable (_ type: String, _ data: JSONValue) -> Void
    private let retryKick: AsyncStream<Void>.Continuation
    private let holdKick: AsyncStream<Void>.Continuation

    /// - Parameters:
    ///   - now: the wall clock (quiet hours); injected by tests.
    ///   - report: publishes the notifier's own `notify.*` events.
    init(
        catalog: NotificationCatalog, settings: NotifySettings, sink: any PopupSink,
        now: @escaping @Sendable () -> Date = Date.init,
        record: @escaping @Sendable ([String: UInt32]) -> Void = { _ in },
        report: @escaping @Sendable (_ type: String, _ data: JSONValue) -> Void
    ) {
        self.record = record
        self.catalog = catalog
        self.settings = settings
        self.sink = sink
        self.now = now
        self.report = report
        (retries, retryKick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (holds, holdKick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: - Events in

    /// Shows, replaces, holds or closes whatever the catalog plans for one bus event.
    func take(topic: String, envelope: Envelope) {
        follow(catalog.plan(topic: topic, envelope: envelope), envelope)
    }

    /// Brings the popups of one owning service in line with what it says is current: closes
    /// every popup under its prefix that is over, then takes the events that show what is live.
    func reconcile(_ snapshot: OwnerSnapshot) {
        let known = Set(shown.keys).union(held.keys).union(undelivered.keys)
        for key in known where key.hasPrefix(snapshot.keyPrefix) && !snapshot.isLive(key) { close(key) }
        if let turnSeqs = snapshot.turnSeqs { catalog.adoptTurnSeqs(turnSeqs) }
        for (topic, envelope) in snapshot.events { take(topic: topic, envelope: envelope) }
    }

    /// What a pressed button does, if its popup is still current.
    func button(for press: NotificationAction) -> Button? {
        shown[press.key]?[press.action]
    }

    /// Puts new settings in force and lets the release loop look at the held popups again.
    func apply(_ settings: NotifySettings) {
        self.settings = settings
        holdKick.yield()
    }

    /// Takes over the popups an earlier run left on screen (key → server id): they count as
    /// shown (without buttons until shown again), so reconciling closes those that are over.
    func adopt(_ popups: [String: UInt32]) {
        guard !popups.isEmpty else { return }
        sink.adopt(popups)
        for (key, id) in popups where shown[key] == nil {
            shown[key] = [:]
            onScreen[key] = (id, nil)
        }
    }

    /// Wakes the release loop (its timer at the end of quiet hours).
    nonisolated func wakeRelease() { holdKick.yield() }

    /// The keys on screen or waiting for it (for tests and diagnostics).
    var keys: (shown: Set<String>, held: Set<String>, undelivered: Set<String>) {
        (Set(shown.keys), Set(held.keys), Set(undelivered.keys))
    }

    private func follow(_ plan: NotificationPlan, _ envelope: Envelope) {
        switch plan {
        case .ignore:
            return
        case .all(let plans):
            for plan in plans { follow(plan, envelope) }
        case .close(let keys):
            for key in keys { close(key) }
        case .show(var popup):
            let key = popup.key
            popup.notification = settings.audible(popup.notification, at: now())
            let item = Pending(notification: popup.notification, envelope: envelope)
            switch settings.gate(popup.category, popup.notification, at: now()) {
            case .show:
                held.removeValue(forKey: key)
                // The same popup that stays until acted on, again (a snapshot and the live event
                // both bringing it), is not shown twice; a brief notice may well have expired.
                if popup.notification.timeout == 0, shown[key] == popup.buttons,
                    onScreen[key]?.item?.notification == popup.notification, undelivered[key] == nil
                {
                    return
                }
                shown[key] = popup.buttons
                present(key, item)
            case .hold(let reason, let until):
                // The older state under this key is stale: off the screen until the newer one shows.
                close(key)
                shown[key] = popup.buttons
                held[key] = item
                report(
                    "notify.suppressed",
                    JSONValue(
                        wire:
                            NotifySuppressedEvent(
                                key: key, category: popup.category.rawValue, reason: reason,
                                heldUntil: Timestamp.format(until))))
                holdKick.yield()
            case .drop(let reason):
                close(key)
                report(
                    "notify.suppressed",
                    JSONValue(wire: NotifySuppressedEvent(key: key, category: popup.category.rawValue, reason: reason)))
            }
        }
    }

    /// Closes the popup under `key` and forgets everything pending for it.
    private func close(_ key: String) {
        shown.removeValue(forKey: key)
        undelivered.removeValue(forKey: key)
        held.removeValue(forKey: key)
        failing.remove(key)
        sink.close(key: key, completion: nil)
        if onScreen.removeValue(forKey: key) != nil { record(onScreen.mapValues(\.id)) }
    }

    // MARK: - Showing and retrying

    /// Queues a popup; until a server takes it, it stays undelivered (latest per key).
    private func present(_ key: String, _ item: Pending) {
        undelivered[key] = item
        sink.show(item.notification, key: key) { [weak self] result in
            guard let self else { return }
            Task { await self.delivered(key, item, result) }
        }
    }

    /// A server's answer to one show: on success the popup is no longer undelivered (unless a
    /// newer state for its key came meanwhile) and `notify.shown` reports the latency from the
    /// event; a first failure for a key is reported and wakes the retry loop.
    private func delivered(_ key: String, _ item: Pending, _ result: Result<UInt32, NotificationError>) {
        switch result {
        case .success(let id):
            failing.remove(key)
            let current = undelivered[key] == nil || undelivered[key]?.envelope.id == item.envelope.id
            // (Closed meanwhile, it is not on screen: the close queued after this show took it off.)
            if shown[key] != nil {
                let known = onScreen.updateValue((id, current ? item : nil), forKey: key)?.id
                if known != id { record(onScreen.mapValues(\.id)) }
            }
            if current { undelivered.removeValue(forKey: key) }
            let latency = now().timeIntervalSince(item.envelope.timestamp) * 1_000
            report(
                "notify.shown",
                JSONValue(
                    wire:
                        NotifyShownEvent(
                            key: key, id: Int(id), event: item.envelope.id, summary: item.notification.summary,
                            latencyMs: (latency * 1_000).rounded() / 1_000)))
        case .failure(let error):
            guard undelivered[key]?.envelope.id == item.envelope.id else { return }
            if failing.insert(key).inserted {
                report("notify.failed", JSONValue(wire: NotifyFailedEvent(key: key, reason: "\(error)")))
            }
            retryKick.yield()
        }
    }

    /// The notification server was replaced (it crashed and came back, or another took over):
    /// what it showed went with it. Each popup that stays until acted on (a turn, a reminder) is
    /// shown again with its buttons, without its sound, oldest event first; a brief notice, or one taken over from an
    /// earlier run (its contents unknown here), is forgotten.
    func serverReplaced() {
        let lost = onScreen
        onScreen.removeAll()
        var again: [(String, Pending)] = []
        for (key, entry) in lost {
            guard let item = entry.item, item.notification.timeout == 0, shown[key] != nil else {
                // Still undelivered or held, it is shown from there; otherwise it is gone.
                if undelivered[key] == nil && held[key] == nil { shown.removeValue(forKey: key) }
                continue
            }
            again.append((key, item))
        }
        record(onScreen.mapValues(\.id))
        for (key, item) in again.sorted(by: { $0.1.envelope.timestamp < $1.1.envelope.timestamp }) {
            // Shown again, not new: silently.
            var quiet = item.notification
            quiet.sound = nil
            present(key, Pending(notification: quiet, envelope: item.envelope))
        }
    }

    /// Queues every undelivered popup again, oldest event first.
    /// - Returns: whether there was any.
    func redeliver() -> Bool {
        let pending = undelivered.sorted { $0.value.envelope.timestamp < $1.value.envelope.timestamp }
        for (key, item) in pending { present(key, item) }
        return !pending.isEmpty
    }

    /// Shows the held popups, oldest event first, unless it is still quiet hours.
    /// - Returns: how long to wait before looking again (the end of quiet hours, or a minute to
    ///   follow a changed clock), or `nil` when nothing is held.
    func releaseHeld() -> Duration? {
        guard !held.isEmpty else { return nil }
        let date = now()
        if let quiet = settings.quietHours, quiet.contains(date) {
            return .seconds(max(min(quiet.end(after: date).timeIntervalSince(date), 60), 0.05))
        }
        let release = held.sorted { $0.value.envelope.timestamp < $1.value.envelope.timestamp }
        held.removeAll()
        for (key, item) in release { present(key, item) }
        return nil
    }
}
