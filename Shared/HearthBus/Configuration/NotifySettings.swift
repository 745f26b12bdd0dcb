import Foundation
import TOMLKit

/// What the notifier may show: each category on or off, and quiet hours. Kept in the `[notify]`
/// table of `hearth.toml`; `hearth notify settings` changes it.
///
///     [notify]
///     reminders = false
///     quiet_hours = "22:00-07:00"
///     critical_breaks_quiet_hours = true
public struct NotifySettings: Sendable, Equatable {
    /// The kinds of notification a person can turn off.
    public enum Category: String, Sendable, CaseIterable, Comparable {
        case turns, reminders, snoozes, sync, suggestions

        public static func < (lhs: Category, rhs: Category) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Categories shown; every one by default.
    public var enabled: Set<Category> = Set(Category.allCases)
    /// When nothing but (if allowed) critical notices pops up; none by default.
    public var quietHours: QuietHours?
    /// Whether a critical notice ("Your turn") may pop up during quiet hours. Off by default: the
    /// person must allow it.
    public var criticalBreaksQuietHours = false

    public init() {}

    /// Reads the `[notify]` table; every key is optional, an unknown one is an error.
    static func read(_ table: TOMLTable) throws(ConfigurationError) -> NotifySettings {
        var settings = NotifySettings()
        for key in table.keys {
            let value = table[key]!
            let fullKey = "notify.\(key)"
            if let category = Category(rawValue: key) {
                guard let on = value.bool else {
                    throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: "must be true or false")
                }
                if on { settings.enabled.insert(category) } else { settings.enabled.remove(category) }
                continue
            }
            switch key {
            case "quiet_hours":
                guard let text = value.string else {
                    throw ConfigurationError(
                        origin: "hearth.toml", key: fullKey, rule: "must be a string such as \"22:00-07:00\"")
                }
                do {
                    settings.quietHours = try text.isEmpty ? nil : QuietHours(parsing: text)
                } catch {
                    throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: error.rule)
                }
            case "critical_breaks_quiet_hours":
                guard let on = value.bool else {
                    throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: "must be true or false")
                }
                settings.criticalBreaksQuietHours = on
            default:
                throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: "is not a Hearth setting")
            }
        }
        return settings
    }

    /// The `[notify]` table as `hearth.toml` text.
    var tomlText: String {
        var lines = ["[notify]"]
        for category in Category.allCases { lines.append("\(category.rawValue) = \(enabled.contains(category))") }
        lines.append("quiet_hours = \"\(quietHours?.description ?? "")\"")
        lines.append("critical_breaks_quiet_hours = \(criticalBreaksQuietHours)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Replaces the `[notify]` table of the `hearth.toml` at `path` (created if missing) and
    /// writes it atomically with mode 0600. Every other line, comments included, stays as it was.
    /// - Throws: `ConfigurationError` if the file is not valid, keeps notification settings in a
    ///   form this cannot replace (such as dotted `notify.x` keys), or cannot be written.
    public func write(toConfigFile path: String) throws(ConfigurationError) {
        var original = ""
        if FileManager.default.fileExists(atPath: path) {
            do {
                original = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw ConfigurationError(origin: "hearth.toml", key: path, rule: "cannot read: \(error)")
            }
        }
        let before = try FileSettings.parse(original)  // refuse to rewrite a file that does not read back
        let text = Self.replacingNotifyTable(in: original, with: tomlText)
        var expected = before
        expected.notify = self
        guard (try? FileSettings.parse(text)) == expected else {
            throw ConfigurationError(
                origin: "hearth.toml", key: "notify",
                rule: "is written in a form this cannot edit; keep it as one [notify] table")
        }
        let temporary = path + ".tmp-\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            throw ConfigurationError(
                origin: "file system", key: path, rule: "cannot be written: \(String(cString: strerror(errno)))")
        }
    }

    /// `text` with its `[notify]` table (header to the next table header) replaced by `table`,
    /// or `table` appended when there is none.
    static func replacingNotifyTable(in text: String, with table: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        func isHeader(_ line: String) -> Bool { line.trimmingCharacters(in: .whitespaces).hasPrefix("[") }
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("[notify]") })
        else {
            let separator = lines.isEmpty ? "" : "\n"
            return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n") + separator + table
        }
        var end = start + 1
        while end < lines.count && !isHeader(lines[end]) { end += 1 }
        // Keep blank lines and comments just before the next table with that table.
        while end - 1 > start
            && (lines[end - 1].trimmingCharacters(in: .whitespaces).isEmpty
                || lines[end - 1].trimmingCharacters(in: .whitespaces).hasPrefix("#"))
        {
            end -= 1
        }
        let replacement = table.split(separator: "\n").map(String.init)
        lines.replaceSubrange(start..<end, with: replacement)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads just the `[notify]` table of a `hearth.toml` (defaults if the file does not exist).
    public static func load(configFile path: String) throws(ConfigurationError) -> NotifySettings {
        try FileSettings.read(path).notify
    }
}

/// A daily span of local time, such as 22:00–07:00 (it may wrap past midnight).
public struct QuietHours: Sendable, Equatable, CustomStringConvertible {
    /// Minutes after local midnight.
    public let start: Int
    public let end: Int

    public struct ParseError: Error, Sendable {
        public let rule: String
    }

    /// Parses `HH:MM-HH:MM` (24-hour clock; start and end differ).
    public init(parsing text: String) throws(ParseError) {
        let rule = "must be two 24-hour times such as \"22:00-07:00\""
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]) else {
            throw ParseError(rule: rule)
        }
        guard start != end else { throw ParseError(rule: "must not start and end at the same time") }
        self.start = start
        self.end = end
    }

    private static func minutes(_ text: Substring) -> Int? {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2, fields[1].count == 2, (1...2).contains(fields[0].count),
            let hour = Int(fields[0]), let minute = Int(fields[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    public var description: String {
        func clock(_ minutes: Int) -> String {
            let hours = minutes / 60
            let rest = minutes % 60
            return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
        }
        return "\(clock(start))-\(clock(end))"
    }

    /// The start's or end's local clock time, "07:00".
    public var endText: String { String(description.split(separator: "-")[1]) }

    /// Whether `date` falls inside the quiet hours, in `calendar`'s time zone.
    public func contains(_ date: Date, calendar: Calendar = .current) -> Bool {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let minute = parts.hour! * 60 + parts.minute!
        return start < end ? (start..<end).contains(minute) : (minute >= start || minute < end)
    }

    /// The first end of the quiet hours after `date`.
    public func end(after date: Date, calendar: Calendar = .current) -> Date {
        let components = DateComponents(hour: end / 60, minute: end % 60, second: 0)
        return calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime) ?? date
    }
}

extension NotifySettings {
    /// `{"categories": {"turns": true, …}, "quiet_hours": "22:00-07:00" | null, "critical_breaks_quiet_hours": false}`
    public var json: JSONValue {
        var categories: [String: JSONValue] = [:]
        for category in Category.allCases { categories[category.rawValue] = .bool(enabled.contains(category)) }
        return [
            "categories": .object(categories),
            "quiet_hours": quietHours.map { .string($0.description) } ?? .null,
            "critical_breaks_quiet_hours": .bool(criticalBreaksQuietHours),
        ]
    }
}
