/// `ping`, which every service answers (its command server does, before its own commands): who
/// answered, which build it runs, how long it has run and what its command server has handled.
/// The reply carries more beside these, each service's own figures (the bus's counters, the
/// page's url, the scheduler's reminders), which `hearth status` prints as they come.
public struct PingReply: Codable, Sendable, Equatable {
    /// What a command server has done since it started.
    public struct Commands: Codable, Sendable, Equatable {
        public let handled: Int
        /// Requests that did not parse.
        public let malformed: Int
        /// Repeated request ids answered from the reply kept.
        public let duplicates: Int
        /// Requests refused because too many were running.
        public let busy: Int

        public init(handled: Int, malformed: Int, duplicates: Int, busy: Int) {
            (self.handled, self.malformed, self.duplicates, self.busy) = (handled, malformed, duplicates, busy)
        }
    }

    public let service: String
    public let pid: Int
    /// The package version and git commit of the running executable (`HearthVersion`).
    public let version: String?
    public let commit: String?
    @OmittedWhenNil public var uptimeSeconds: Double?
    @OmittedWhenNil public var commands: Commands?

    public init(
        service: String, pid: Int, version: String?, commit: String?, uptimeSeconds: Double? = nil,
        commands: Commands? = nil
    ) {
        (self.service, self.pid, self.version, self.commit) = (service, pid, version, commit)
        (self.uptimeSeconds, self.commands) = (uptimeSeconds, commands)
    }

    enum CodingKeys: String, CodingKey {
        case service, pid, version, commit, commands
        case uptimeSeconds = "uptime_s"
    }
}
