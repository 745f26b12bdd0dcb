/// `ping`, which every service answers (its command server does, before its own commands): who
/// answered and which build it runs. The reply carries more (counters, the service's own
/// figures); this reads what `hearth doctor` compares.
public struct PingReply: Codable, Sendable, Equatable {
    public let service: String
    public let pid: Int
    /// The package version and git commit of the running executable (`HearthVersion`).
    public let version: String?
    public let commit: String?

    public init(service: String, pid: Int, version: String?, commit: String?) {
        (self.service, self.pid, self.version, self.commit) = (service, pid, version, commit)
    }
}
