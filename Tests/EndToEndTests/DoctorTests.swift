import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// `hearth doctor` against real stacks: what it says when all is well, and with a stopped
/// service, no notification server, and a wrong time zone, each with its fix.
@Suite("End to end: hearth doctor", .serialized, .timeLimit(.minutes(2)))
struct DoctorTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    struct Report: Decodable {
        struct Check: Decodable {
            let name: String
            let status: String
            let verdict: String
            let fix: String?
        }
        let checks: [Check]
        let healthy: Bool
        let version: String
        let commit: String

        func check(_ name: String) throws -> Check { try #require(checks.first { $0.name == name }, "\(name)") }
    }

    /// Runs `hearth doctor --json` on the stack; checks that its exit status says what its
    /// report does (1 exactly when a check found a problem).
    func doctor(_ stack: TestStack, _ extra: [String: String] = [:]) async throws -> Report {
        let run = try await ChildProcess.run(
            "hearth", ["doctor", "--json", "--timeout", "1000"], environment: stack.environment.merging(extra) { $1 },
            timeout: .seconds(60))
        let report = try JSONValue.parse(run.stdout).decode(Report.self)
        #expect(run.status == (report.healthy ? 0 : 1), "\(run.stdout)\n\(run.stderr)")
        #expect(report.healthy == !report.checks.contains { $0.status == "problem" })
        return report
    }

    /// The household's zone named as this machine's, so the zone check has nothing to say.
    var sameZone: [String: String] { ["HEARTH_TIME_ZONE": TimeZone.current.identifier] }

    @Test(
        "every service up on one version, the notification server named, the data directory private; then one service stopped is named with its unit"
    )
    func stackAndStoppedService() async throws {
        let session = try await DBusSession(notificationServer: true)
        let stack = try await TestStack(
            HearthService.launched, environment: session.environment.merging(sameZone) { $1 }, context: context)
        let report = try await doctor(stack)
        #expect(
            report.checks.map(\.name).prefix(5) == ["configuration", "services", "notifications", "home", "time zone"])
        let services = try report.check("services")
        #expect(services.status == "ok")
        #expect(services.verdict.contains("all 7 up, each running \(report.version) (commit \(report.commit))"))
        let notifications = try report.check("notifications")
        #expect(notifications.status == "ok")
        #expect(notifications.verdict.contains("hearth-notification-test-server 1.0 by hearth, specification 1.2"))
        #expect(try report.check("home").status == "ok")
        #expect(try report.check("time zone").status == "ok")
        #expect(try report.check("paired devices").verdict.contains("none paired"))
        #expect(try report.check("device keys").verdict.hasPrefix("one signing key for each of"))
        #expect(try report.check("databases").verdict.contains("hearth.sqlite passes SQLite's integrity check"))
        #expect(try report.check("disk").status != "skipped")

        // A file of the data directory opened to others is a problem with its fix. (The
        // directory itself is made 0700 again by every process that loads the configuration.)
        chmod(stack.home.file("hearth.sqlite"), 0o644)
        // And one inside a folder: every one is named, not the first alone.
        try FileManager.default.createDirectory(
            atPath: stack.home.file("calendars"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        #expect(
            FileManager.default.createFile(
                atPath: stack.home.file("calendars/work.ics"), contents: Data(), attributes: [.posixPermissions: 0o644])
        )
        let opened = try await doctor(stack)
        #expect(try opened.check("home").status == "problem")
        let verdict = try opened.check("home").verdict
        #expect(verdict.contains("2 entries: calendars/work.ics (mode 644), hearth.sqlite (mode 644)"), "\(verdict)")
        #expect(try opened.check("home").fix == "chmod -R go-rwx \(stack.home.path)")
        chmod(stack.home.file("hearth.sqlite"), 0o600)
        chmod(stack.home.file("calendars/work.ics"), 0o600)

        let scheduler = try #require(stack.processes[.scheduler])
        scheduler.signal(SIGTERM)
        #expect(await scheduler.waitForExit(timeout: .seconds(5)) == 0)
        let stopped = try await doctor(stack)
        #expect(!stopped.healthy)
        let down = try stopped.check("services")
        #expect(down.status == "problem")
        #expect(down.verdict == "hearth-scheduler is not running (no answer)")
        #expect(down.fix?.hasPrefix("systemctl --user start hearth-scheduler.service") == true)
        for (service, status) in await stack.stop() where service != .scheduler { #expect(status == 0, "\(service)") }
    }

    @Test("no notification server on the session: said, with what to run")
    func noNotificationServer() async throws {
        let session = try await DBusSession(notificationServer: false)
        let stack = try await TestStack(
            [.bus, .notifier], environment: session.environment.merging(sameZone) { $1 }, context: context)
        let report = try await doctor(stack)
        #expect(!report.healthy)
        let notifications = try report.check("notifications")
        #expect(notifications.status == "problem")
        #expect(notifications.verdict == "no notification server answers on the D-Bus session bus")
        #expect(notifications.fix?.contains("run a notification daemon") == true)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test(
        "a time zone that is no zone is a problem naming the key; one that differs from the system's is said, not failed"
    )
    func timeZones() async throws {
        let stack = try await TestStack([.bus], environment: sameZone, context: context)
        let wrong = try await doctor(stack, ["HEARTH_TIME_ZONE": "Mars/Olympus"])
        #expect(!wrong.healthy)
        let configuration = try wrong.check("configuration")
        #expect(configuration.status == "problem")
        #expect(configuration.verdict.contains("household.time_zone (environment variable HEARTH_TIME_ZONE)"))
        #expect(configuration.verdict.contains("\"Mars/Olympus\""))
        #expect(configuration.fix?.contains("unset HEARTH_TIME_ZONE") == true)
        // The other checks still ran, on the rest of the configuration.
        #expect(try wrong.check("services").verdict.contains("not running"))
        #expect(try wrong.check("time zone").status != "skipped")

        // A real zone other than this machine's (never the same offsets all year as UTC's or London's).
        let other = TimeZone.current.identifier == "Pacific/Chatham" ? "Asia/Kathmandu" : "Pacific/Chatham"
        let differs = try await doctor(stack, ["HEARTH_TIME_ZONE": other])
        let zone = try differs.check("time zone")
        #expect(zone.status == "warning")
        #expect(zone.verdict.contains("the household's zone is \(other)"))
        #expect(zone.fix?.contains("timedatectl set-timezone \(other)") == true)
        #expect(try differs.check("configuration").status == "ok")
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
