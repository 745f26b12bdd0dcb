import Foundation
import HearthTesting
import Testing

/// Runs `body` on a LAN of `count` devices (`HouseholdLAN.with`). When this machine cannot build
/// one (not root, no `ip netns`), says why in one line and returns: under `CI=true` that is a
/// failure, not a skip.
func withLAN(devices count: Int, _ body: (HouseholdLAN) async throws -> Void) async throws {
    do {
        try await HouseholdLAN.with(devices: count, body)
    } catch let unavailable as LANUnavailable {
        if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("\(unavailable)") }
        print("NetworkTests skipped: \(unavailable)")
    }
}

/// Waits until each of `devices` hears every other by beacon.
func everyoneHears(_ devices: [LANDevice], timeout: Duration = .seconds(10)) async {
    for listener in devices {
        let heard = await Polling.eventually(timeout: timeout) {
            let nearby = (try? await listener.nearby()) ?? [:]
            return devices.allSatisfy { $0 === listener || nearby[$0.id] != nil }
        }
        #expect(heard, "\(listener.name) never heard the others")
    }
}
