import Foundation
import HearthBus
import HearthTesting
import Testing

/// The stack as `make run` launches it: supervisord configured from the Procfile.
@Suite("End to end: supervised launch", .serialized, .timeLimit(.minutes(2)))
struct SupervisorTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// The repository root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func supervisord() -> String? {
        ["/usr/bin/supervisord", "/usr/local/bin/supervisord"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    func ping(_ endpoint: String) async -> Int64? {
        let client = CommandClient(context: context, endpoint: endpoint, timeout: .milliseconds(100), attempts: 1)
        let pid = try? await client.request("ping")["pid"]?.intValue
        await client.close()
        return pid
    }

    @Test("the Procfile runs exactly the services `hearth status` pings (HearthService.launched)")
    func procfileMatchesLaunched() throws {
        let procfile = try String(contentsOfFile: "\(Self.root)/Procfile", encoding: .utf8)
        let names = procfile.split(separator: "\n").compactMap { line -> String? in
            guard !line.hasPrefix("#"), let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[..<colon])
        }
        #expect(names.sorted() == HearthService.launched.map(\.rawValue).sorted())
    }

    @Test("supervisord starts every Procfile process and restarts a killed one within about a second")
    func restartsKilledProcess() async throws {
        let supervisord = try #require(Self.supervisord(), "supervisord is missing: `make test` installs it")
        let home = try TemporaryHome()
        let environment = ["HEARTH_HOME": home.path, "HEARTH_BIN_DIR": ChildProcess.binaryDirectory]
        let generated = try await ChildProcess.run("\(Self.root)/deploy/supervisord-conf", [], environment: environment)
        #expect(generated.status == 0, "\(generated.stderr)")
        let conf = home.file("run/supervisord.conf")
        try generated.stdout.write(toFile: conf, atomically: true, encoding: .utf8)

        let supervisor = try await ChildProcess(supervisord, ["-c", conf], environment: environment)
        let endpoint = try home.configuration().commandEndpoint(.bus)
        #expect(await TestStack.waitUntilAnswering(endpoint, context: context, timeout: .seconds(10)))
        let firstPID = try #require(await ping(endpoint))

        kill(Int32(firstPID), SIGKILL)
        let clock = ContinuousClock()
        let killed = clock.now
        var secondPID: Int64?
        while clock.now - killed < .seconds(5) {
            if let pid = await ping(endpoint), pid != firstPID {
                secondPID = pid
                break
            }
        }
        let downtime = clock.now - killed
        #expect(secondPID != nil, "hearth-bus was not restarted")
        // supervisord reaps and respawns on its one-second poll tick, so a restart takes one or
        // two ticks (1.0–2.0 s measured); more than that means it did not restart promptly.
        #expect(downtime < .milliseconds(2_500), "restarted after \(downtime)")

        supervisor.signal(SIGTERM)
        // Every service exits within a second of the SIGTERM, but supervisord reaps and reports
        // one child per one-second tick (seen: five services stopped over 3.0 s, then its own
        // exit), so with five services its exit takes 4–5 s; the bound leaves room above that.
        #expect(await supervisor.waitForExit(timeout: .seconds(10)) == 0)
        #expect(await ping(endpoint) == nil)
    }
}
