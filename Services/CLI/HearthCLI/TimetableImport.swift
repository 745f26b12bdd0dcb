import ArgumentParser
import Foundation
import HearthBus

/// `hearth timetable import FILE`: a preview first, the replacement only with `--confirm`.
struct TimetableImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a member's timetable from CSV (Week,Day,Period,Subject,Teacher,Room).",
        discussion: """
            Without --confirm, a preview that writes nothing: the rows it would import and every bad \
            row with its line number and reason. With --confirm, the member's timetable is replaced \
            by the valid rows in one transaction (the old lessons stay in history); a file with no \
            valid row, or more bad rows than good, is refused unless --replace-anyway. Accepts Excel's \
            files: UTF-8 with a byte-order mark or Windows-1252, CRLF, `;` or `sep=;`, quoted fields, \
            blank rows, and spellings such as `Week 1`, `Mon`, `AM Reg`, `Period 3`.
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The CSV file.") var file: String
    @OptionGroup var member: Timetable.MemberOption
    @Flag(help: "Replace the member's timetable with the valid rows.") var confirm = false
    @Flag(
        help:
            "Replace even when the file has no valid row, or more bad rows than good (otherwise refused, so a wrong file never empties a timetable)."
    )
    var replaceAnyway = false

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            Output.error("hearth: cannot read \(file)")
            throw ExitCode(2)
        }
        let limit = try options.loadConfiguration().maximumMessageBytes - 8_192
        guard data.count <= limit else {
            Output.error("hearth: \(file) is \(data.count) bytes; an import takes at most \(limit) bytes (too_large)")
            throw ExitCode(2)
        }
        // Excel's plain "CSV" is Windows-1252; its "CSV UTF-8" is UTF-8.
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .windowsCP1252) else {
            Output.error("hearth: \(file) is neither UTF-8 nor Windows-1252 text")
            throw ExitCode(2)
        }
        var arguments = member.arguments
        arguments["csv"] = .string(text)
        arguments["confirm"] = .bool(confirm)
        if replaceAnyway { arguments["replace_anyway"] = true }
        let reply = try await ServiceCall.runShowingProgress(options, .store, "timetable.import", arguments)
        if options.json { return Output.json(reply) }
        let rows = reply["rows"]?.arrayValue ?? []
        let errors = reply["errors"]?.arrayValue ?? []
        let name = Output.visible(reply["member"]?.stringValue ?? "?")
        if !confirm && !rows.isEmpty {
            Output.line("line  week day  period           subject               teacher   room")
            for row in rows {
                let period = row["period"]?.stringValue ?? ""
                Output.line(
                    Timetable.pad(String(row["line"]?.intValue ?? 0), 5) + " "
                        + Timetable.pad(String(row["week"]?.intValue ?? 0), 4) + " "
                        + Timetable.pad(String(row["day"]?.stringValue?.prefix(3) ?? ""), 4) + " "
                        + Timetable.pad(Int(period) != nil ? "P\(period)" : period, 16) + " "
                        + Timetable.pad(row["subject"]?.stringValue ?? "", 21) + " "
                        + Timetable.pad(row["teacher"]?.stringValue ?? "", 9) + " " + (row["room"]?.stringValue ?? ""))
            }
        }
        for error in errors {
            Output.line("line \(error["line"]?.intValue ?? 0): \(Output.visible(error["reason"]?.stringValue ?? ""))")
        }
        for (what, count) in reply["omitted"]?.objectValue?.sorted(by: { $0.key < $1.key }) ?? [] {
            if let count = count.intValue, count > 0 {
                Output.line("(\(count) more \(what) not shown; --json has the counts)")
            }
        }
        Timetable.printClashes(reply["clashes"]?.arrayValue ?? [], warning: true)
        let valid = reply["valid"]?.intValue ?? 0
        let invalid = reply["invalid"]?.intValue ?? Int64(errors.count)
        let bad = "\(invalid) bad row\(invalid == 1 ? "" : "s")"
        if confirm {
            Output.line(
                "imported \(Output.count(Int(valid), "lesson")) for \(name) (replacing \(reply["replaced"]?.intValue ?? 0)); \(bad) skipped"
            )
        } else if let refusal = reply["refusal"]?.stringValue {
            Output.line("preview: \(valid) valid rows, \(bad) — nothing written")
            Output.line("a --confirm would be \(refusal.replacingOccurrences(of: "; nothing was written", with: ""))")
        } else {
            Output.line(
                "preview: \(valid) valid rows, \(bad) — nothing written; add --confirm to replace \(name)'s timetable")
        }
    }
}
