import HearthBus
import HearthCore
import HearthNotify

/// The catalog's sync and device popups: a sync's outcome, cards another device changed, a
/// pairing request with Confirm and Reject, and a copied device.
extension NotificationCatalog {
    /// A brief, quiet "Synced with Mum — 3 received, 1 sent"; normal urgency for conflicts or a failure.
    func synced(_ event: SyncCompletedEvent) -> NotificationPlan {
        let (received, sent, conflicts) = (event.received, event.sent, event.conflicts)
        // A sync that moved nothing is no news: no popup (the sync log has it).
        if received == 0 && sent == 0 && conflicts == 0 { return .ignore }
        let summary = "Synced with \(event.peer.name) — \(received) received, \(sent) sent"
        let notification =
            conflicts > 0
            ? DesktopNotification(
                summary: summary,
                body: "\(conflicts) conflict\(conflicts == 1 ? "" : "s") to look at: hearth conflicts",
                icon: "dialog-warning", urgency: .normal, category: "hearth.sync", timeout: 10_000)
            : DesktopNotification(
                summary: summary, icon: "emblem-synchronizing", urgency: .low, category: "hearth.sync",
                timeout: 3_000)
        return .show(Popup(key: "sync.\(event.peer.device)", category: .sync, notification: notification, buttons: [:]))
    }

    /// "Sync with Mum failed", with why.
    func syncFailed(_ event: SyncFailedEvent) -> NotificationPlan {
        let notification = DesktopNotification(
            summary: "Sync with \(event.peer.name) failed", body: event.reason, icon: "dialog-warning",
            urgency: .normal, category: "hearth.sync", timeout: 10_000)
        return .show(Popup(key: "sync.\(event.peer.device)", category: .sync, notification: notification, buttons: [:]))
    }

    /// "Mum changed August: Beach day → Beach weekend": the cards another device's operations
    /// changed, one popup per sync (the first change named, the rest counted).
    func remoteChanges(_ event: CardsChangedEvent) -> NotificationPlan {
        let changes = event.changes
        guard let first = changes.first, (1...12).contains(first.month) else { return .ignore }
        let monthName = YearPlanner.monthName(first.month)
        let before = first.before ?? "(empty)"
        let after = first.after ?? "(cleared)"
        let more = changes.count > 1 ? " and \(changes.count - 1) more card\(changes.count == 2 ? "" : "s")" : ""
        return .show(
            Popup(
                key: "sync.changed.\(event.peer.device)", category: .sync,
                notification: DesktopNotification(
                    summary: "\(first.by.name) changed \(monthName): \(before) → \(after)",
                    body: "Year planner \(first.year)\(more)", icon: "x-office-calendar",
                    urgency: .normal, category: "hearth.sync", timeout: 10_000),
                buttons: [:]))
    }

    /// "Refused 3 changes from Dad's laptop": operations a paired device brought that this device
    /// refused (forged, unverifiable or against the rules), named once; the rest of the sync went on.
    func refused(_ event: OperationsRefusedEvent) -> NotificationPlan {
        let first = event.refused.first.map { "'\($0.field)' \($0.rule)" } ?? ""
        return .show(
            Popup(
                key: "sync.refused.\(event.peer.device)", category: .sync,
                notification: DesktopNotification(
                    summary:
                        "Refused \(event.count) change\(event.count == 1 ? "" : "s") from \(event.peer.name)",
                    body: first + "\nThe rest was synced. Details: hearth sync diag", icon: "dialog-warning",
                    urgency: .normal, category: "hearth.sync", timeout: 0),
                buttons: [:]))
    }

    /// "Pair with Dad's laptop? Code 123 456" with Confirm and Reject, on the asked device.
    func pairing(_ event: PairingView) -> NotificationPlan {
        guard let code = event.code else { return .ignore }
        let (device, name) = (event.device, event.name)
        let notification = DesktopNotification(
            summary: "Pair with \(name)? Code \(code)",
            body: "Confirm only if \(name) shows the same code. Key \(event.fingerprint)",
            icon: "dialog-password", urgency: .critical, category: "hearth.sync", timeout: 0,
            actions: [(key: "confirm", label: "Confirm"), (key: "reject", label: "Reject")])
        return .show(
            Popup(
                key: "pairing.\(device)", category: .sync, notification: notification,
                buttons: [
                    "confirm": Button(.sync, PairingCommands.Confirm(device: device)),
                    "reject": Button(.sync, PairingCommands.Reject(device: device)),
                ]))
    }

    /// "Two signing keys for device 3f2a9c1e": this device pinned a key (pairing, or a fingerprint
    /// typed with `--trust`) where another device had vouched for a different one (issue 62: a
    /// paired device could squat a key). The pin is in force; a person settles which is real.
    func keyConflict(_ change: DeviceKeyChange) -> NotificationPlan {
        guard let conflict = change.keyConflict else { return .ignore }
        let device = change.device.prefix(8)
        return .show(
            Popup(
                key: "device.key.\(change.device)", category: .sync,
                notification: DesktopNotification(
                    summary: "Two signing keys for device \(device)",
                    body: "Device \(conflict.vouchedBy.prefix(8)) vouched for \(conflict.vouchedFingerprint); "
                        + "this device pinned \(conflict.pinnedFingerprint), which is in use. "
                        + "Compare with the device itself: hearth device list; then hearth device trust \(device) --key … "
                        + "or hearth device distrust \(device)",
                    icon: "dialog-warning", urgency: .critical, category: "hearth.sync", timeout: 0),
                buttons: [:]))
    }

    /// "No free time for a check-in": a subscribed calendar's new busy times clash with planned
    /// check-ins that the planner could move nowhere (each named with its clash).
    func unplaced(_ event: PlanUnplacedEvent) -> NotificationPlan {
        guard let first = event.unplaced.first else { return .ignore }
        let more = event.unplaced.count > 1 ? "\n… and \(event.unplaced.count - 1) more" : ""
        return .show(
            Popup(
                key: "plan.unplaced", category: .reminders,
                notification: DesktopNotification(
                    summary: "No free time for \(first.event)",
                    body: "\(first.reason) (\(event.source)).\(more)\nhearth plan reschedule ID, or plan week",
                    icon: "dialog-warning", urgency: .normal, category: "hearth.plan", timeout: 0),
                buttons: [:]))
    }

    /// "Another device is using this device's identity": a copied home announcing this id.
    func clone(_ event: DeviceCloneEvent) -> NotificationPlan {
        .show(
            Popup(
                key: "device.clone", category: .sync,
                notification: DesktopNotification(
                    summary: "Another device is using this device's identity",
                    body: event.detail, icon: "dialog-error", urgency: .critical,
                    category: "hearth.sync", timeout: 0),
                buttons: [:]))
    }
}
