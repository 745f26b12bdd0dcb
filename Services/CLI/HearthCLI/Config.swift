import ArgumentParser
import Foundation
import HearthBus
import HearthHost

/// `hearth config`: the settings in force, the keys `hearth.toml` takes, and its manual page.
struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the settings in force, or the keys hearth.toml takes.",
        subcommands: [ConfigShow.self, ConfigKeys.self, ConfigManual.self],
        defaultSubcommand: ConfigShow.self
    )
}

/// `hearth config [show]`: the resolved paths and endpoints.
struct ConfigShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the resolved paths and every setting in force.",
        discussion: """
            Each value comes from an environment variable (HEARTH_BUS_PUB, HEARTH_BUS_CMD, …), \
            else hearth.toml in the Hearth home, else the ipc:// default under $HEARTH_HOME/run.
            """
    )

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let configuration = try options.loadConfiguration()
        let device = (try? DeviceIdentity.load(home: configuration.home)) ?? "unknown"
        var values: [(String, JSONValue)] = [
            ("home", .string(configuration.home)),
            ("run_dir", .string(configuration.runDirectory)),
            ("config_file", .string(configuration.configFile)),
            ("config_file_exists", .bool(FileManager.default.fileExists(atPath: configuration.configFile))),
            ("device_id", .string(device)),
        ]
        // Every key hearth.toml takes, from the one list of them (issue 63: discovery, turn.peer,
        // web and notify were left out).
        for key in HearthConfiguration.keys {
            if let value = configuration.value(of: key.name) { values.append((key.name, value)) }
        }
        if options.json {
            Output.json(.object(Dictionary(uniqueKeysWithValues: values)))
        } else {
            let width = values.map(\.0.count).max() ?? 0
            for (key, value) in values {
                let text = value.stringValue ?? value.jsonText
                Output.line(key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + text)
            }
        }
    }
}

/// `hearth config keys`: every key `hearth.toml` takes, with its default and variable.
struct ConfigKeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List every key hearth.toml takes, with its default and environment variable.",
        discussion: "The same list as hearth.toml(5), from the one place the reader takes its keys from."
    )

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let keys = HearthConfiguration.keys
        if options.json {
            try Output.reply(keys)
            return
        }
        let width = keys.map(\.name.count).max() ?? 0
        for key in keys {
            let value = key.defaultValue ?? "(\(key.defaultText ?? "none"))"
            let variable = key.environment.map { "  $\($0)" } ?? ""
            Output.line(key.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value + variable)
        }
    }
}

/// `hearth config manual`: `hearth.toml(5)` in roff, for packaging (`make deb`).
struct ConfigManual: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manual",
        abstract: "Print the hearth.toml(5) manual page (roff).",
        shouldDisplay: false
    )

    @Option(help: "The date in the page's footer (default: SOURCE_DATE_EPOCH's, else today's).")
    var date: String?

    func run() async throws {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init)
        let day = date ?? formatter.string(from: epoch.map(Date.init(timeIntervalSince1970:)) ?? Date())
        Output.line(String(ConfigurationManual.page(date: day).dropLast()))
    }
}
