import Foundation
import HearthTesting
import Testing

/// The test kit's `ChildProcess.run`, which the end-to-end tests use to run scripts that start
/// whole stacks.
@Suite("Test kit: a child process run to a timeout", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("a script still running at its timeout is stopped so that its EXIT trap runs")
    func exitTrapRunsAtTimeout() async throws {
        let home = try TemporaryHome()
        let script = home.file("long.sh")
        let marker = home.file("cleaned")
        // `wait` (not a foreground sleep) lets bash take a signal at once. The 3 s timeout is the
        // thing under test; bash sets its trap long before it.
        try """
        #!/usr/bin/env bash
        trap 'kill $! 2>/dev/null; echo cleaned > "$1"' EXIT
        sleep 30 >/dev/null 2>&1 &
        echo started
        wait
        """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)

        let result = try await ChildProcess.run(script, [marker], timeout: .seconds(3))

        #expect(result.status == nil)
        #expect(result.stdout.contains("started"))
        // Killed outright (SIGKILL), bash runs no trap: the marker is the proof of SIGTERM first.
        let written = try? String(contentsOfFile: marker, encoding: .utf8)
        #expect(written == "cleaned\n")
    }
}
