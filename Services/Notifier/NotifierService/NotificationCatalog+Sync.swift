import HearthBus
import HearthCore
import HearthNotify

/// The catalog's sync and device popups: a sync's outcome, cards another device changed, a
/// pairing request with Confirm and Reject, and a copied device.
extension NotificationCatalog {
    /// A brief, quiet "Synced with Mum — 3 received, 1 sent"; normal urgency for conflicts or a failure.
    func sync(_ type: String, _ data: JSONValue) -> NotificationPlan {
        let peer = data["peer"] ?? .null
        guard let peerDevice = peer["device"]?.stringValue else { return .ignore }
        let name = peer["name"]?.stringValue ?? "a device"
        let notification: DesktopNotification
        if type == "sync.failed" {
            notification = DesktopNotification(
                summary: "Sync with \(name) failed", body: data["reason"]?.stringValue ?? "",
                icon: "dialog-warning", urgency: .normal, category: "hearth.sync", timeout: 10_000)
        } else {
            let received = data["received"]?.intValue ?? 0
            let sent = data["sent"]?.intValue ?? 0
            let conflicts = data["conflicts"]?.intValue ?? 0
            // A sync that moved nothing is no news: no popup (the sync log has it).
            if received == 0 && sent == 0 && conflicts == 0 { return .ignore }
            let summary = "Synced with \(name) — \(received) received, \(sent) sent"
            notification =
                conflicts > 0
                ? DesktopNotification(
                    summary: summary,
                    body: "\(conflicts) conflict\(conflicts == 1 ? "" : "s") to look at: hearth conflicts",
                    icon: "dialog-warning", urgency: .normal, category: "hearth.sync", timeout: 10_000)
                : DesktopNotification(
                    summary: summary, icon: "emblem-synchronizing", urgency: .low, category: "hearth.sync",
                    timeout: 3_000)
        }
        return .show(Popup(key: "sync.\(peerDevice)", category: .sync, notification: notification, buttons: [:]))
    }

    /// "Mum changed August: Beach day → Beach weekend": the cards another device's operations
    /// changed, one popup per sync (the first change named, the rest counted).
    func remoteChanges(_ data: JSONValue) -> NotificationPlan {
        let changes = data["changes"]?.arrayValue ?? []
        guard let first = changes.first, let peer = data["peer"]?["device"]?.stringValue,
            let month = first["month"]?.intValue, (1...12).contains(month)
        else { return .ignore }
        let who = first["by"]?["name"]?.stringValue ?? data["peer"]?["name"]?.stringValue ?? "Another device"
        let monthName = YearPlanner.monthName(Int(month))
        let before = first["before"]?.stringValue ?? "(empty)"
        let after = first["after"]?.stringValue ?? "(cleared)"
        let more = changes.count > 1 ? " and \(changes.count - 1) more card\(changes.count == 2 ? "" : "s")" : ""
        return .show(
            Popup(
                key: "sync.changed.\(peer)", category: .sync,
                notification: DesktopNotification(
                    summary: "\(who) changed \(monthName): \(before) → \(after)",
                    body: "Year planner \(first["year"]?.intValue ?? 0)\(more)", icon: "x-office-calendar",
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
    func pairing(_ data: JSONValue) -> NotificationPlan {
        guard let device = data["device"]?.stringValue, let code = data["code"]?.stringValue else { return .ignore }
        let name = data["name"]?.stringValue ?? "a device"
        let notification = DesktopNotification(
            summary: "Pair with \(name)? Code \(code)",
            body: "Confirm only if \(name) shows the same code. Key \(data["fingerprint"]?.stringValue ?? "")",
            icon: "dialog-password", urgency: .critical, category: "hearth.sync", timeout: 0,
            actions: [(key: "confirm", label: "Confirm"), (key: "reject", label: "Reject")])
        return .show(
            Popup(
                key: "pairing.\(device)", category: .sync, notification: notification,
                buttons: [
                    "confirm": Button(
                        service: .sync, command: "device.confirm", arguments: ["device": .string(device)]),
                    "reject": Button(service: .sync, command: "device.reject", arguments: ["device": .string(device)]),
                ]))
    }

    /// "Another device is using this device's identity": a copied home announcing this id.
    func clone(_ data: JSONValue) -> NotificationPlan {
        .show(
            Popup(
                key: "device.clone", category: .sync,
                notification: DesktopNotification(
                    summary: "Another device is using this device's identity",
                    body: data["detail"]?.stringValue ?? "", icon: "dialog-error", urgency: .critical,
                    category: "hearth.sync", timeout: 0),
                buttons: [:]))
    }
}
