import Foundation
import HearthBus
import Logging
import ServiceLifecycle

/// The `main` of every Hearth service process: logging from the environment, the configuration,
/// the service's single-instance lock (`ServiceLock`, taken before anything binds), the device
/// id, one ZeroMQ context, and the service run in a group that stops on SIGTERM or SIGINT (see
/// `ServiceGroupConfiguration.hearth`).
public enum HearthProcess {
    /// What a service is built from.
    public struct Setup: Sendable {
        public let configuration: HearthConfiguration
        public let context: ZMQContext
        public let device: String
        public let logger: Logger
    }

    /// Builds the service with `make` and runs it until it stops; if it cannot start or fails,
    /// logs why and exits with status 1. (`make` is `@Sendable` so that a closure written in a
    /// `main.swift` is not taken to belong to the main actor: it runs on the cooperative pool.)
    /// - Parameter name: the service's name, as in `hearth-<name>` and the logger label `hearth.<name>`.
    public static func run(_ name: String, make: @Sendable (Setup) throws -> any Service) async {
        answerArguments(name, Array(CommandLine.arguments.dropFirst()))
        HearthLogging.bootstrap()
        let logger = Logger(label: "hearth.\(name)")
        do {
            let configuration = try HearthConfiguration.load()
            let lock = try ServiceLock(service: name, configuration: configuration)
            let setup = Setup(
                configuration: configuration,
                context: try ZMQContext(configuration: configuration),
                device: try DeviceIdentity.load(home: configuration.home), logger: logger)
            let service = try make(setup)
            try await ServiceGroup(configuration: .hearth(services: [service], logger: logger)).run()
            await setup.context.terminate()
            withExtendedLifetime(lock) {}
        } catch {
            logger.critical("hearth-\(name) cannot run: \(error)")
            exit(1)
        }
    }

    /// A service takes no arguments: its settings come from `hearth.toml` and the environment.
    /// `--version` and `--help` are answered and the process exits 0; anything else is refused with
    /// exit status 2 (a mistyped unit or Procfile line says so instead of running as if unsaid).
    static func answerArguments(_ name: String, _ arguments: [String]) {
        guard let first = arguments.first else { return }
        switch first {
        case "--version", "-V":
            print(HearthVersion.line("hearth-\(name)"))
            exit(0)
        case "--help", "-h":
            print(
                """
                usage: hearth-\(name) [--version | --help]

                hearth-\(name) \(HearthService(rawValue: name)?.summary ?? "is a Hearth service").
                It takes no arguments: its settings come from
                $HEARTH_HOME/hearth.toml and HEARTH_* environment variables (see hearth.toml(5)).
                It is started by hearth.target (systemd --user) or `make run`; `hearth doctor` checks it.
                """)
            exit(0)
        default:
            FileHandle.standardError.write(
                Data("hearth-\(name): '\(first)' is not an option (it takes --version or --help only)\n".utf8))
            exit(2)
        }
    }
}
