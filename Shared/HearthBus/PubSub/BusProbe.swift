/// Readiness probes: a subscriber asks `hearth-bus` to publish a one-frame message on a topic
/// only it subscribed to; when that arrives, its subscription is live end to end.
public enum BusProbe {
    /// The topic prefix reserved for probes; probes are single frames, never envelopes.
    public static let prefix = "_probe."

    /// A fresh probe topic for one subscriber.
    public static func makeTopic() -> String {
        prefix + UUIDText.make().replacingOccurrences(of: "-", with: "")
    }

    /// Whether a received message is a probe (one frame starting with the reserved prefix).
    static func isProbe(_ message: borrowing ReceivedMessage) -> Bool {
        message.count == 1 && message[0].starts(with: prefix.utf8)
    }
}
