import HearthTesting
import Testing

/// The suites that run a whole stack per device (turns, sync): each of their tests starts two or
/// three stacks, and running several of them side by side loaded a 2-core CI machine enough to
/// break the timing of turn take-overs, so each runs its tests one at a time (`.serialized` holds
/// for the nested suites too). `make test` runs the sync chain and the turn chain in processes of
/// their own beside the rest (deploy/run-tests says why).
@Suite("End to end: several devices on one machine", .serialized)
enum SeveralDevices {
    /// Polls `condition` (a command answer, not an event: beacons are not on the bus) every
    /// 100 ms for up to `timeout`.
    static func eventually(
        timeout: Duration = .seconds(10), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        try await Polling.eventually(timeout: timeout, condition)
    }
}
