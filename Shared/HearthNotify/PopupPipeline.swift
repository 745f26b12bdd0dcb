/// The state of `DesktopNotifications`' pipelined calls, per key: the id the server gave the
/// key's popup, whether a `Notify` for it is in flight, and what waits for that answer. Pure
/// bookkeeping, kept on the GLib thread; it makes no call itself.
///
/// The rule: calls for different keys go out at once, one after another; for one key, a show
/// or close queued while its show is in flight waits for that answer (a replace needs the id it
/// brings, and a close must close that popup, never an id about to be stale).
struct PopupPipeline {
    enum Job {
        case show(DesktopNotification, @Sendable (Result<UInt32, NotificationError>) -> Void)
        case close((@Sendable () -> Void)?)
    }

    struct Popup {
        /// The server's id for the key's popup; 0 for none (never shown, or closed).
        var id: UInt32 = 0
        var inFlight = false
        var waiting: [Job] = []
    }

    private var popups: [String: Popup] = [:]
    /// The key of each id the server gave (for its button presses).
    private var keys: [UInt32: String] = [:]

    /// `job`, to be run now; `nil` when it waits behind the key's show in flight.
    mutating func admit(_ key: String, _ job: Job) -> Job? {
        guard popups[key]?.inFlight == true else { return job }
        popups[key]?.waiting.append(job)
        return nil
    }

    /// A show of `key` is about to go out: the id it replaces (0 for a new popup).
    mutating func sending(_ key: String) -> UInt32 {
        popups[key, default: Popup()].inFlight = true
        return popups[key]?.id ?? 0
    }

    /// The answer to the key's show: the id the server gave, or `nil` when none answered (the id
    /// it had is kept: a server that comes back may still show that popup).
    mutating func answered(_ key: String, id: UInt32?) {
        popups[key, default: Popup()].inFlight = false
        guard let id else { return }
        if let old = popups[key]?.id, old != id, keys[old] == key { keys[old] = nil }
        popups[key]?.id = id
        keys[id] = key
    }

    /// The next job that waited for the key's answer, while no show of it is in flight.
    mutating func next(_ key: String) -> Job? {
        guard let popup = popups[key], !popup.inFlight, !popup.waiting.isEmpty else { return nil }
        return popups[key]?.waiting.removeFirst()
    }

    /// Forgets the key (it is being closed): its popup's id, if it had one. Nothing waits for it.
    mutating func forget(_ key: String) -> UInt32? {
        guard let popup = popups[key] else { return nil }
        if popup.waiting.isEmpty {
            popups[key] = nil
        } else {
            popups[key]?.id = 0
        }
        guard popup.id != 0 else { return nil }
        if keys[popup.id] == key { keys[popup.id] = nil }
        return popup.id
    }

    /// Another server took over: the ids the old one gave name nothing now. A key's next show is
    /// a new popup (its buttons' presses come under the new id); shows in flight keep their keys.
    mutating func serverReplaced() {
        keys.removeAll()
        for key in popups.keys { popups[key]?.id = 0 }
    }

    /// The key of the popup the server calls `id`.
    func key(of id: UInt32) -> String? { keys[id] }

    /// Popups an earlier process showed, by key and id, for keys this one has not shown.
    mutating func adopt(_ shown: [String: UInt32]) {
        for (key, id) in shown where popups[key] == nil && id != 0 {
            popups[key] = Popup(id: id)
            keys[id] = key
        }
    }
}
