import HearthBus
import Synchronization

/// The notification settings in force, shared with the command handler (which reloads them).
final class LiveSettings: Sendable {
    private let value: Mutex<NotifySettings>
    private let configFile: String

    init(_ settings: NotifySettings, configFile: String) {
        value = Mutex(settings)
        self.configFile = configFile
    }

    var current: NotifySettings { value.withLock { $0 } }

    /// Re-reads the `[notify]` table; on an error the settings in force stay.
    func reload() throws -> NotifySettings {
        let settings: NotifySettings
        do {
            settings = try NotifySettings.load(configFile: configFile)
        } catch {
            throw CommandError.invalidArgument("hearth.toml", error.description)
        }
        value.withLock { $0 = settings }
        return settings
    }
}
