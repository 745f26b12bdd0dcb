import Foundation
import HearthBus

/// `hearth.toml(5)`, written in man(7) from `HearthConfiguration.keys`, so the page lists exactly
/// the keys the reader takes, with their real defaults (`hearth config manual` prints it;
/// `make deb` installs it).
public enum ConfigurationManual {
    /// What each table is for, in the page's words.
    static let tables: [String: String] = [
        "household": "The household's clock and calendar.",
        "reminders": "How reminders behave.",
        "notify": "Which desktop notifications pop up, and when. \\fBhearth notify settings\\fR writes this table.",
        "discovery": "How this device finds the household's other devices on the local network.",
        "turn": "Games between devices.",
        "sync": "Replication between paired devices.",
        "web": "The household page served by \\fBhearth\\-web\\fR.",
        "limits": "Bounds every process keeps.",
        "bus": "The message bus between the stack's processes.",
    ]

    /// The page's roff text.
    /// - Parameter date: the date in its footer (the package's build date).
    public static func page(date: String) -> String {
        var lines = [
            ".TH HEARTH.TOML 5 \"\(date)\" \"Hearth \(HearthVersion.version)\" \"File Formats\"",
            ".SH NAME",
            "hearth.toml \\- settings of a Hearth household stack",
            ".SH SYNOPSIS",
            ".I $HEARTH_HOME/hearth.toml",
            ".SH DESCRIPTION",
            "Every Hearth process reads \\fBhearth.toml\\fR in the household's data directory",
            "(\\fB$HEARTH_HOME\\fR, else \\fB$XDG_DATA_HOME/hearth\\fR, else \\fB~/.local/share/hearth\\fR)",
            "when it starts. The file is TOML; every key is optional and a missing file means every default.",
            "An environment variable named with a key overrides the file.",
            ".PP",
            "The file is read strictly: a key not listed here, or a value outside its rule, stops the processes",
            "from starting, with one line for each bad key naming it and the rule it breaks.",
            "\\fBhearth config\\fR prints the values in force, \\fBhearth config keys\\fR this list,",
            "and \\fBhearth doctor\\fR checks a running stack.",
            ".SH SETTINGS",
        ]
        var sections: [String] = []
        for key in HearthConfiguration.keys where !sections.contains(key.section) { sections.append(key.section) }
        for section in sections {
            lines.append(".SS [\(section)]")
            lines.append(tables[section] ?? "Where \\fBhearth\\-\(escape(section))\\fR takes commands.")
            for key in HearthConfiguration.keys where key.section == section {
                lines.append(".TP")
                lines.append(".B \(escape(key.key))")
                lines.append(escapeProse(key.summary))
                lines.append(".br")
                lines.append("Takes \(escapeProse(key.takes)).")
                lines.append(".br")
                if let value = key.defaultValue {
                    lines.append("Default: \\fB\(escape(value))\\fR.")
                } else {
                    lines.append("Default: \(escapeProse(key.defaultText ?? "none")).")
                }
                if let variable = key.environment {
                    lines.append(".br")
                    lines.append("Overridden by \\fB\(escape(variable))\\fR.")
                }
            }
        }
        lines += [
            ".SH ENVIRONMENT",
            ".TP",
            ".B HEARTH_HOME",
            "The household's data directory, which holds this file.",
        ]
        for key in HearthConfiguration.keys {
            guard let variable = key.environment else { continue }
            lines += [".TP", ".B \(escape(variable))", "Overrides \\fB\(escape(key.name))\\fR."]
        }
        lines += [
            ".SH FILES",
            ".TP",
            ".I $HEARTH_HOME/hearth.toml",
            "This file, mode 0600 when Hearth writes it.",
            ".TP",
            ".I $HEARTH_HOME/run/",
            "The stack's ipc:// sockets (mode 0700).",
            ".SH EXAMPLE",
            ".PP",
            ".nf",
            ".RS 4",
            "[household]",
            "time_zone = \"Europe/London\"",
            ".sp",
            "[notify]",
            "quiet_hours = \"22:00\\-07:00\"",
            "sounds = false",
            ".sp",
            "[web]",
            "listen = \"0.0.0.0:8470\"",
            "host_names = [\"kitchen.local\"]",
            ".RE",
            ".fi",
            ".SH SEE ALSO",
            ".BR hearth (1),",
            ".BR hearth.config (1),",
            ".BR hearth.doctor (1)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A value or name set in roff: backslashes and minus signs escaped, nothing read as a request.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    }

    /// A sentence set in roff: backslashes escaped, and a line that would start with a control
    /// character guarded.
    static func escapeProse(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}
