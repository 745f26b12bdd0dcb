import Foundation
import HearthBus
import HearthCore
import TOMLKit

extension NotifySettings {
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
            case "sounds":
                guard let on = value.bool else {
                    throw ConfigurationError(origin: "hearth.toml", key: fullKey, rule: "must be true or false")
                }
                settings.sounds = on
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
        lines.append("sounds = \(sounds)")
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

extension NotifySettings {
    /// The settings as the notifier's `settings` answers them.
    public var view: NotifySettingsView {
        NotifySettingsView(
            categories: Dictionary(uniqueKeysWithValues: Category.allCases.map { ($0.rawValue, enabled.contains($0)) }),
            quietHours: quietHours?.description, criticalBreaksQuietHours: criticalBreaksQuietHours, sounds: sounds)
    }

    /// `{"categories": {"turns": true, …}, "quiet_hours": "22:00-07:00" | null, "critical_breaks_quiet_hours": false,
    /// "sounds": true}`
    public var json: JSONValue { (try? JSONValue(reply: view)) ?? [:] }
}
