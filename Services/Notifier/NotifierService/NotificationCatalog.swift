import HearthBus
import HearthNotify

/// What the notifier does with one bus event: show (or replace) a popup under a key, close one,
/// or nothing. Keyed by event type, so later services only need to publish.
enum NotificationPlan: Equatable {
    case show(key: String, notification: DesktopNotification, buttons: [String: Button])
    case close(key: String)
    case ignore
}

/// What pressing a button does: a command to the service that owns the thing shown.
struct Button: Equatable, Sendable {
    let service: HearthService
    let command: String
    let arguments: [String: JSONValue]
}

/// The table from event types to notifications.
enum NotificationCatalog {
    static func plan(topic: String, envelope: Envelope) -> NotificationPlan {
        switch envelope.type {
        case "store.changed" where topic == "store.suggestion.changed":
            return suggestion(envelope.data["suggestion"] ?? .null)
        default:
            return .ignore
        }
    }

    /// "Mum suggested 'Beach day' for August", with Accept and Decline; closed once decided.
    static func suggestion(_ suggestion: JSONValue) -> NotificationPlan {
        guard let id = suggestion["id"]?.stringValue else { return .ignore }
        let key = "suggestion.\(id)"
        guard suggestion["status"] == "open" else { return .close(key: key) }
        let who = suggestion["suggested_by_name"]?.stringValue ?? "Someone"
        let month = suggestion["month_name"]?.stringValue ?? "a month"
        var what: [String] = []
        if let title = suggestion["title"]?.stringValue { what.append("'\(title)'") }
        if let location = suggestion["location"]?.stringValue { what.append("at \(location)") }
        if let day = suggestion["day"]?.intValue { what.append("on the \(day)\(ordinalSuffix(day))") }
        let notification = DesktopNotification(
            summary: "\(who) suggested \(what.isEmpty ? "a change" : what.joined(separator: " ")) for \(month)",
            body: "Year planner, \(month) \(suggestion["year"]?.intValue ?? 0)",
            icon: "x-office-calendar", urgency: .normal, category: "hearth.suggestion", timeout: 0,
            actions: [(key: "accept", label: "Accept"), (key: "decline", label: "Decline")])
        return .show(
            key: key, notification: notification,
            buttons: [
                "accept": Button(service: .store, command: "event.accept", arguments: ["id": .string(id)]),
                "decline": Button(service: .store, command: "event.decline", arguments: ["id": .string(id)]),
            ])
    }

    static func ordinalSuffix(_ day: Int64) -> String {
        if (11...13).contains(day % 100) { return "th" }
        switch day % 10 {
        case 1: return "st"
        case 2: return "nd"
        case 3: return "rd"
        default: return "th"
        }
    }
}
