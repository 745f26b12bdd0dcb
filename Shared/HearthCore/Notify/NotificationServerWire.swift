/// `server` (hearth-notifier's): which desktop notification server its popups go to, asked
/// afresh (`GetServerInformation` on the session bus), or why there is none.
public struct NotificationServerReply: Codable, Sendable, Equatable {
    /// The server's own name for itself (`dunst`, `gnome-shell`, `Plasma`); nil when none answered.
    public let name: String?
    public let vendor: String?
    public let version: String?
    /// The Desktop Notifications specification version it implements (`1.2`).
    public let specVersion: String?
    /// Why none answered (no D-Bus session, or no server on it); nil when one did.
    public let problem: String?

    public init(name: String?, vendor: String?, version: String?, specVersion: String?, problem: String?) {
        (self.name, self.vendor, self.version, self.specVersion, self.problem) = (
            name, vendor, version, specVersion, problem
        )
    }

    enum CodingKeys: String, CodingKey {
        case name, vendor, version, problem
        case specVersion = "spec_version"
    }
}
