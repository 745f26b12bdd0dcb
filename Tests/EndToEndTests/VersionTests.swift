import Foundation
import HearthBus
import HearthTesting
import Testing

/// `--version` on every executable: the package version and the commit it was built from.
@Suite("End to end: --version on every executable", .timeLimit(.minutes(1)))
struct VersionTests {
    static let executables = [
        "hearth", "hearth-bus", "hearth-store", "hearth-sync", "hearth-turn", "hearth-scheduler", "hearth-notifier",
        "hearth-web", "hearth-bench",
    ]

    @Test("each says its name, VERSION's version and this tree's commit; a service refuses any other argument")
    func versions() async throws {
        let root = SupervisorTests.root
        let version = try String(contentsOfFile: "\(root)/VERSION", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let head = try await ChildProcess.run("/usr/bin/git", ["-C", root, "rev-parse", "--short=12", "HEAD"])
        let commit = head.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(HearthVersion.version == version)
        #expect(HearthVersion.commit.hasPrefix(commit), "built from \(HearthVersion.commit), HEAD is \(commit)")
        for executable in Self.executables {
            let run = try await ChildProcess.run(executable, ["--version"])
            #expect(run.status == 0, "\(executable): \(run.stderr)")
            #expect(run.stdout == "\(executable) \(version) (commit \(HearthVersion.commit))", "\(run.stdout)")
        }
        let refused = try await ChildProcess.run("hearth-store", ["--port", "1"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("hearth-store: '--port' is not an option (it takes --version or --help only)"))
        let help = try await ChildProcess.run("hearth-turn", ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("hearth-turn runs board-game sessions between devices"))
    }
}
