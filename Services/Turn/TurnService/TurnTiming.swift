/// The turn protocol's intervals; tests shorten them to run away, take-over and resync in
/// milliseconds.
public struct TurnTiming: Sendable {
    /// How often heartbeats and the beacon go out, and the engine ticks.
    public var heartbeat: Duration
    /// Silence after which a member device shows as away.
    public var awayAfter: Duration
    /// Silence after which the next player's device takes over from the leader's.
    public var takeOverAfter: Duration
    /// How long a request to a leader's device waits (checked on each tick).
    public var requestTimeout: Duration
    /// Join requests one connection may make per second; the rest are refused.
    public var joinsPerSecond: Int
    /// How long `status` still shows a game that ended here (its statistics), in memory; then
    /// it is forgotten.
    public var endedKept: Duration

    /// One second heartbeats, away after 5 s, take-over after 10 s, requests wait 3 s. The
    /// take-over waits twice the time to be shown away, and the lead reaches the next player's
    /// device within 15 s of the leader's going (`LANTurnTests`: an unplugged leader on a LAN at
    /// 5% loss); at 15 s of silence, as before, it took 15.6 s.
    public static let standard = TurnTiming()

    public init(
        heartbeat: Duration = .seconds(1), awayAfter: Duration = .seconds(5), takeOverAfter: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(3), joinsPerSecond: Int = 5, endedKept: Duration = .seconds(300)
    ) {
        self.endedKept = endedKept
        self.heartbeat = heartbeat
        self.awayAfter = awayAfter
        self.takeOverAfter = takeOverAfter
        self.requestTimeout = requestTimeout
        self.joinsPerSecond = joinsPerSecond
    }
}
