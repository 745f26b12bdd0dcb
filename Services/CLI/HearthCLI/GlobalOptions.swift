import ArgumentParser
import HearthBus
import HearthHost

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

    /// The arguments with global options given before the command name moved behind it, so
    /// `hearth --json --home H status` parses as `hearth status --json --home H`.
    static func movingLeadingOptions(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--json" {
                leading.append(argument)
                index += 1
            } else if argument == "--home" || argument == "--timeout", index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else if argument.hasPrefix("--home=") || argument.hasPrefix("--timeout=") {
                leading.append(argument)
                index += 1
            } else {
                break
            }
        }
        guard !leading.isEmpty, index < arguments.count else { return arguments }
        // Options go after the innermost command name: after the leading run of words.
        let rest = Array(arguments[index...])
        let names = rest.prefix { !$0.hasPrefix("-") }.count
        return Array(rest.prefix(names)) + leading + Array(rest.dropFirst(names))
    }
}
