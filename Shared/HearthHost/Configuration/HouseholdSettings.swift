import Foundation
import HearthBus
import TOMLKit

/// The household's wall clock and reminder habits: the `[household]` and `[reminders]` tables
/// of `hearth.toml`, overridden by `HEARTH_TIME_ZONE` and `HEARTH_REMINDERS_SNOOZE`.
///
///     [household]
///     time_zone = "Europe/London"   # default: the system's
///     week_start = "monday"         # or "sunday"
///
///     [reminders]
///     snooze = "10m"                # Snooze's delay: seconds (s), minutes (m) or hours (h)
public struct HouseholdSettings: Sendable, Equatable {
    public var timeZone = TimeZone.current
    /// ISO weekday the calendar's weeks start on: 1 Monday, 7 Sunday.
    public var weekStart = 1
    public var snooze: Duration = .seconds(600)

    public init() {}

    static func read(_ table: TOMLTable, into settings: inout HouseholdSettings) throws(ConfigurationError) {
        for key in table.keys {
            let value = table[key]!
            switch key {
            case "time_zone":
                settings.timeZone = try timeZone(value.string ?? "", key: "household.time_zone", origin: "hearth.toml")
            case "week_start":
                switch value.string?.lowercased() {
                case "monday": settings.weekStart = 1
                case "sunday": settings.weekStart = 7
                default:
                    throw ConfigurationError(
                        origin: "hearth.toml", key: "household.week_start", rule: "must be \"monday\" or \"sunday\"")
                }
            default:
                throw ConfigurationError(
                    origin: "hearth.toml", key: "household.\(key)", rule: "is not a Hearth setting")
            }
        }
    }

    static func readReminders(_ table: TOMLTable, into settings: inout HouseholdSettings) throws(ConfigurationError) {
        for key in table.keys {
            guard key == "snooze" else {
                throw ConfigurationError(
                    origin: "hearth.toml", key: "reminders.\(key)", rule: "is not a Hearth setting")
            }
            settings.snooze = try duration(table[key]!.string ?? "", key: "reminders.snooze", origin: "hearth.toml")
        }
    }

    func overridden(by environment: [String: String]) throws(ConfigurationError) -> HouseholdSettings {
        var settings = self
        if let text = environment["HEARTH_TIME_ZONE"] {
            settings.timeZone = try Self.timeZone(
                text, key: "household.time_zone", origin: "environment variable HEARTH_TIME_ZONE")
        }
        if let text = environment["HEARTH_REMINDERS_SNOOZE"] {
            settings.snooze = try Self.duration(
                text, key: "reminders.snooze", origin: "environment variable HEARTH_REMINDERS_SNOOZE")
        }
        return settings
    }

    static func timeZone(_ text: String, key: String, origin: String) throws(ConfigurationError) -> TimeZone {
        guard let zone = TimeZone(identifier: text) else {
            throw ConfigurationError(
                origin: origin, key: key, rule: "must be an IANA time zone such as \"Europe/London\", got \"\(text)\"")
        }
        return zone
    }

    /// Reads `90s`, `10m` or `1h` (1 second to 24 hours).
    public static func duration(_ text: String, key: String, origin: String) throws(ConfigurationError) -> Duration {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600]
        guard let unit = text.last, let scale = units[unit], let count = Int64(text.dropLast()), count > 0,
            (1...86_400).contains(count * scale)
        else {
            throw ConfigurationError(
                origin: origin, key: key, rule: "must be a duration such as \"90s\", \"10m\" or \"1h\" (at most 24h)")
        }
        return .seconds(count * scale)
    }
}
