/// The notifier's own events on the bus: what it showed, held back, failed to show, and which
/// button a person pressed. `hearth monitor`, the tests and the benchmarks read them.

/// `notify.shown`: a notification server took a popup. `latencyMs`: from the event that caused
/// it to the server's answer.
public struct NotifyShownEvent: Codable, Sendable, Equatable {
    public let key: String
    /// The server's id for the popup.
    public let id: Int
    /// The id of the event that caused it.
    public let event: String
    public let summary: String
    public let latencyMs: Double

    public init(key: String, id: Int, event: String, summary: String, latencyMs: Double) {
        (self.key, self.id, self.event, self.summary, self.latencyMs) = (key, id, event, summary, latencyMs)
    }

    enum CodingKeys: String, CodingKey {
        case key, id, event, summary
        case latencyMs = "latency_ms"
    }
}

/// `notify.suppressed`: a popup held back by quiet hours (until `heldUntil`) or dropped (its
/// category off, or a brief notice inside quiet hours), and why.
public struct NotifySuppressedEvent: Codable, Sendable, Equatable {
    public let key: String
    public let category: String
    public let reason: String
    @OmittedWhenNil public var heldUntil: String?

    public init(key: String, category: String, reason: String, heldUntil: String? = nil) {
        (self.key, self.category, self.reason, self.heldUntil) = (key, category, reason, heldUntil)
    }

    enum CodingKeys: String, CodingKey {
        case key, category, reason
        case heldUntil = "held_until"
    }
}

/// `notify.failed`: a popup no server took (reported once per popup until one does), or a
/// button's command its service refused.
public struct NotifyFailedEvent: Codable, Sendable, Equatable {
    public let key: String
    public let reason: String

    public init(key: String, reason: String) { (self.key, self.reason) = (key, reason) }
}

/// `notify.action`: a person pressed `action` on the popup under `key`; the notifier sends
/// `command` to `service`.
public struct NotifyActionEvent: Codable, Sendable, Equatable {
    public let key: String
    public let action: String
    public let service: String
    public let command: String

    public init(key: String, action: String, service: String, command: String) {
        (self.key, self.action, self.service, self.command) = (key, action, service, command)
    }
}
