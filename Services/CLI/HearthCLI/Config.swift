import ArgumentParser
import Foundation
import HearthBus
import HearthHost

/// `hearth config`: the resolved paths and endpoints.
struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the resolved paths, endpoints and limits.",
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
        for key in HearthConfiguration.endpointKeys {
            values.append((key, .string(configuration.endpoints[key]!)))
        }
        values.append(("bus.heartbeat_ms", .int(Int64(configuration.heartbeatMilliseconds))))
        values.append(("bus.idle_spin_us", .int(Int64(configuration.idleSpinMicroseconds))))
        values.append(("limits.max_message_bytes", .int(Int64(configuration.maximumMessageBytes))))
        values.append(("household.time_zone", .string(configuration.household.timeZone.identifier)))
        values.append(("household.week_start", .string(configuration.household.weekStart == 7 ? "sunday" : "monday")))
        values.append(("reminders.snooze", .string("\(configuration.household.snooze.components.seconds)s")))
        values.append(("sync.endpoint", .string(configuration.sync.endpoint)))
        values.append(("sync.interval", .string("\(configuration.sync.interval.components.seconds)s")))
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
