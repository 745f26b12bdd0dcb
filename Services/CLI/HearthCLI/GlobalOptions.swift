import ArgumentParser
import HearthBus

/// Options every `hearth` subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "The Hearth data directory (default: $HEARTH_HOME, else $XDG_DATA_HOME/hearth).")
    var home: String?

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    @Option(name: .long, help: "How long to wait for a service, in milliseconds.")
    var timeout: Int = 2_000

    /// The resolved configuration, or exit code 2 with the configuration error.
    func loadConfiguration() throws -> HearthConfiguration {
        do {
            return try HearthConfiguration.load(home: home)
        } catch {
            Output.error("hearth: \(error)")
            throw ExitCode(2)
        }
    }

    var timeoutDuration: Duration { .milliseconds(max(1, timeout)) }
}
