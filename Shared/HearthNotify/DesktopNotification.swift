import Foundation

/// One desktop notification to show, in the terms of the freedesktop specification.
public struct DesktopNotification: Sendable, Equatable {
    public enum Urgency: Int32, Sendable { case low = 0, normal = 1, critical = 2 }

    public var summary: String
    public var body: String
    public var icon: String
    public var urgency: Urgency
    public var category: String?
    /// Milliseconds on screen; 0 keeps it until acted on, -1 uses the server's default.
    public var timeout: Int32
    /// Buttons: action key and label, in order.
    public var actions: [(key: String, label: String)]
    /// The sound to play, as the freedesktop `sound-name` hint: a name from the XDG sound naming
    /// specification (`bell`, `dialog-warning`, `message-new-instant`); `nil` for none.
    public var sound: String?

    public init(
        summary: String, body: String = "", icon: String = "", urgency: Urgency = .normal, category: String? = nil,
        timeout: Int32 = -1, actions: [(key: String, label: String)] = [], sound: String? = nil
    ) {
        self.sound = sound
        self.summary = summary
        self.body = body
        self.icon = icon
        self.urgency = urgency
        self.category = category
        self.timeout = timeout
        self.actions = actions
    }

    /// The longest summary, body and button label a popup shows, in characters: text from other
    /// devices (a 7,000-character "name") must never fill the screen.
    public static let maximumSummary = 120
    public static let maximumBody = 600
    public static let maximumLabel = 40

    /// The notification as a server is given it: each text cut to its maximum (ending in "…"
    /// where it was cut), and summary and body with markup escaped (`&`, `<`, `>`), since servers
    /// that render markup (dunst's default) would otherwise turn a title from another device
    /// into a link or styling.
    public var clipped: DesktopNotification {
        // Both run for every popup, so the common case costs a scan of bytes: no more bytes than
        // the limit means no more characters, and text without `&<>` is returned as it is. (Three
        // Foundation `replacingOccurrences` calls per text were 5% of the notifier's CPU under
        // `hearth-bench notify`, measured with perf.)
        func clip(_ text: String, _ limit: Int) -> String {
            text.utf8.count <= limit || text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
        }
        func escaped(_ text: String) -> String {
            let markup: (UInt8) -> Bool = {
                $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">")
            }
            guard text.utf8.contains(where: markup) else { return text }
            var out = ""
            out.reserveCapacity(text.utf8.count + 16)
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
        var copy = self
        copy.summary = escaped(clip(summary, Self.maximumSummary))
        copy.body = escaped(clip(body, Self.maximumBody))
        copy.actions = actions.map { ($0.key, clip($0.label, Self.maximumLabel)) }
        return copy
    }

    public static func == (lhs: DesktopNotification, rhs: DesktopNotification) -> Bool {
        lhs.summary == rhs.summary && lhs.body == rhs.body && lhs.icon == rhs.icon && lhs.urgency == rhs.urgency
            && lhs.category == rhs.category && lhs.timeout == rhs.timeout && lhs.sound == rhs.sound
            && lhs.actions.map(\.key) == rhs.actions.map(\.key) && lhs.actions.map(\.label) == rhs.actions.map(\.label)
    }
}

/// A button pressed on a notification.
public struct NotificationAction: Sendable, Equatable {
    /// The key the notification was shown under (see `show(_:key:)`).
    public let key: String
    /// The action key of the button.
    public let action: String
}

/// Why a notification could not be shown.
public struct NotificationError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(message: String) { self.message = message }

    public var description: String { message }
}
