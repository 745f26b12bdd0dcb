import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthHost

/// `hearth doctor`: checks what a household's stack needs, each with a plain verdict and a fix.
struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the stack, this device and its household links; say what is wrong and how to fix it.",
        discussion: """
            Checks, in order: the configuration; every service up, and all on one version; the \
            D-Bus session and its notification server; the data directory's permissions; the \
            household's time zone against this system's; the beacon ports and broadcast; each \
            paired device's last sync; clock skew against paired devices; disk space; the \
            databases' integrity. Exits 1 when any check finds a problem (a warning alone is 0).
            """
    )

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let report = await DoctorExamination(options: options).run()
        if options.json {
            try Output.reply(report)
        } else {
            for check in report.checks {
                Output.line("\(check.status.mark) \(check.name): \(check.verdict)")
                if let fix = check.fix { Output.line("    fix: \(fix)") }
            }
            let problems = report.checks.filter { $0.status == .problem }.count
            let warnings = report.checks.filter { $0.status == .warning }.count
            Output.line(
                problems == 0 && warnings == 0
                    ? "All \(report.checks.count) checks passed."
                    : "\(Output.count(problems, "problem")), \(Output.count(warnings, "warning"))."
            )
        }
        if !report.healthy { throw ExitCode(1) }
    }
}

/// What `hearth doctor` found (`--json` prints it).
struct DoctorReport: Encodable, Sendable {
    let checks: [DoctorCheck]
    /// No check found a problem (warnings allowed).
    let healthy: Bool
    let version: String
    let commit: String
}

/// One check: its verdict in a sentence, and what to do when it is not fine.
struct DoctorCheck: Encodable, Sendable, Equatable {
    enum Status: String, Encodable, Sendable {
        case ok, warning, problem, skipped

        /// The mark a terminal line starts with.
        var mark: String {
            switch self {
            case .ok: "ok  "
            case .warning: "warn"
            case .problem: "FAIL"
            case .skipped: "skip"
            }
        }
    }

    let name: String
    let status: Status
    let verdict: String
    let fix: String?

    static func ok(_ name: String, _ verdict: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .ok, verdict: verdict, fix: nil)
    }
    static func warning(_ name: String, _ verdict: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .warning, verdict: verdict, fix: fix)
    }
    static func problem(_ name: String, _ verdict: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .problem, verdict: verdict, fix: fix)
    }
    static func skipped(_ name: String, _ verdict: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .skipped, verdict: verdict, fix: nil)
    }
}

/// One run of the checks. Services are asked with one attempt each, within `--timeout`.
struct DoctorExamination: Sendable {
    let options: GlobalOptions

    func run() async -> DoctorReport {
        var checks: [DoctorCheck] = []
        let (configuration, configurationCheck) = loadConfiguration()
        checks.append(configurationCheck)
        guard let configuration else {
            let after = [
                "services", "notifications", "home", "time zone", "beacon", "paired devices", "clocks", "disk",
                "databases",
            ]
            checks += after.map { .skipped($0, "needs a configuration that loads") }
            return DoctorReport(
                checks: checks, healthy: false, version: HearthVersion.version, commit: HearthVersion.commit)
        }
        let calls = ServiceCalls(configuration: configuration, timeout: options.timeoutDuration)
        let pings = await calls.pingAll()
        // The fixes name the commands of what runs this stack (runit under `make run`, systemd).
        let home = configuration.home
        let supervisor = await offPool { StackSupervisor.detect(home: home) }
        checks.append(Self.services(pings, supervisor: supervisor))
        let up = Set(pings.compactMap { service, reply in reply == nil ? nil : service })
        checks.append(await notifications(calls, up: up, supervisor: supervisor))
        // The checks that read the file system and /proc run off the cooperative pool.
        checks.append(await offPool { DoctorChecks.home(home) })
        checks.append(DoctorChecks.timeZone(household: configuration.household.timeZone, system: .current))
        let nearby =
            up.contains(.sync)
            ? try? await calls.call(.sync, PairingCommands.Nearby()) : nil
        let discovery = configuration.discovery
        checks.append(await offPool { DoctorChecks.beacon(discovery, nearby: nearby?.devices.count) })
        if up.contains(.sync),
            let paired = try? await calls.call(.sync, PairingCommands.Paired())
        {
            let devices = paired.devices.filter { !$0.forgotten }
            checks.append(DoctorChecks.lastSyncs(devices, now: Date()))
            checks.append(DoctorChecks.clocks(devices))
        } else {
            checks.append(.skipped("paired devices", "hearth-sync is not running: it keeps the paired devices"))
            checks.append(.skipped("clocks", "hearth-sync is not running: it measures the paired devices' clocks"))
        }
        if up.contains(.store),
            let known = try? await calls.call(.store, DeviceCommands.List())
        {
            checks.append(DoctorChecks.keys(known.devices))
        } else {
            checks.append(.skipped("device keys", "hearth-store is not running: it keeps the devices' keys"))
        }
        checks.append(await offPool { DoctorChecks.disk(home) })
        checks.append(await DoctorChecks.databases(configuration.home, supervisor: supervisor))
        await calls.close()
        return DoctorReport(
            checks: checks, healthy: !checks.contains { $0.status == .problem }, version: HearthVersion.version,
            commit: HearthVersion.commit)
    }

    /// The configuration, with the environment's bad values left out so the other checks can
    /// run (each bad value is reported); nil when the file itself does not load.
    private func loadConfiguration() -> (HearthConfiguration?, DoctorCheck) {
        var environment = ProcessInfo.processInfo.environment
        do {
            return (
                try HearthConfiguration.load(home: options.home, environment: environment),
                .ok("configuration", "loads")
            )
        } catch {
            let bad = error.all
            let lines = bad.map { "\($0.key) (\($0.origin)) \($0.rule)" }.joined(separator: "; ")
            let variables = bad.compactMap { error in
                error.origin.hasPrefix("environment variable ")
                    ? String(error.origin.dropFirst("environment variable ".count)) : nil
            }
            var fixes = variables.map { "unset \($0) or give it a value the rule allows" }
            if bad.contains(where: { $0.origin == "hearth.toml" }) {
                fixes.append("edit hearth.toml in the data directory (hearth.toml(5) lists each key and its rule)")
            }
            if bad.contains(where: { $0.key == "household.time_zone" }) {
                fixes.append("a zone is named as in `timedatectl list-timezones`, such as Europe/London")
            }
            let check = DoctorCheck.problem("configuration", lines, fix: fixes.joined(separator: "; "))
            for variable in variables { environment[variable] = nil }
            // The rest is checked with the environment's bad values set aside.
            return ((try? HearthConfiguration.load(home: options.home, environment: environment)), check)
        }
    }

    static func services(_ pings: [(HearthService, PingReply?)], supervisor: StackSupervisor) -> DoctorCheck {
        let down = pings.filter { $0.1 == nil }.map(\.0.rawValue)
        if !down.isEmpty {
            let names = down.map { "hearth-\($0)" }.joined(separator: ", ")
            return .problem(
                "services", "\(names) \(down.count == 1 ? "is" : "are") not running (no answer)",
                fix: supervisor.start(down))
        }
        let mine = "\(HearthVersion.version) (commit \(HearthVersion.commit))"
        let other = pings.compactMap { service, reply -> String? in
            guard let reply else { return nil }
            let theirs = "\(reply.version ?? "an older version") (commit \(reply.commit ?? "unknown"))"
            return theirs == mine ? nil : "hearth-\(service.rawValue) runs \(theirs)"
        }
        if !other.isEmpty {
            return .problem(
                "services", other.joined(separator: "; ") + "; this hearth is \(mine)",
                fix: "restart the stack so every service runs the installed build: \(supervisor.restart())")
        }
        return .ok("services", "all \(pings.count) up, each running \(mine)")
    }

    private func notifications(
        _ calls: ServiceCalls, up: Set<HearthService>, supervisor: StackSupervisor
    ) async -> DoctorCheck {
        guard up.contains(.notifier) else {
            return .skipped("notifications", "hearth-notifier is not running: it is what shows popups")
        }
        guard
            let server = try? await calls.call(.notifier, NotifierCommands.Server())
        else {
            return .problem(
                "notifications", "hearth-notifier did not say which notification server it reaches",
                fix: supervisor.restart("notifier"))
        }
        if let problem = server.problem {
            return .problem(
                "notifications", problem,
                fix: "run a notification daemon in the desktop session (your desktop's own, or dunst); "
                    + (supervisor == .systemd
                        ? "for the services under systemd, pass them the session: systemctl --user import-environment DBUS_SESSION_BUS_ADDRESS DISPLAY WAYLAND_DISPLAY, then "
                        : "then ") + supervisor.restart("notifier"))
        }
        let vendor = server.vendor.map { " by \($0)" } ?? ""
        return .ok(
            "notifications",
            "the D-Bus session's notification server is \(server.name ?? "unnamed") \(server.version ?? "")\(vendor), specification \(server.specVersion ?? "?")"
        )
    }
}

/// The stack's command endpoints, asked with one attempt each (`hearth doctor`, tab completion).
struct ServiceCalls: Sendable {
    let configuration: HearthConfiguration
    let timeout: Duration
    let context: ZMQContext?

    init(configuration: HearthConfiguration, timeout: Duration) {
        self.configuration = configuration
        self.timeout = timeout
        context = try? ZMQContext(configuration: configuration)
    }

    /// Each launched service's ping reply, nil for one that did not answer in time.
    func pingAll() async -> [(HearthService, PingReply?)] {
        await withTaskGroup(of: (HearthService, PingReply?).self) { group in
            for service in HearthService.launched {
                group.addTask { (service, try? await call(service, ServiceCommands.Ping())) }
            }
            var replies: [(HearthService, PingReply?)] = []
            for await reply in group { replies.append(reply) }
            return replies.sorted { $0.0.rawValue < $1.0.rawValue }
        }
    }

    /// One command, one attempt within the timeout, its reply as its type.
    func call<C: HearthCommand>(_ service: HearthService, _ command: C) async throws -> C.Reply {
        guard let context else { throw CommandClientError.closed }
        let client = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(service), timeout: timeout, attempts: 1,
            maximumMessageBytes: configuration.maximumMessageBytes)
        let result: Result<JSONValue, any Error>
        do {
            result = .success(try await client.request(C.name, args: try command.arguments()))
        } catch {
            result = .failure(error)
        }
        await client.close()
        return try result.get().decode(C.Reply.self)
    }

    func close() async { await context?.terminate() }
}
