import ArgumentParser
import Foundation
import HearthBus
import HearthCore

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
            .decode(TimetableImportReport.self)
        if options.json { return try Output.reply(reply) }
        let name = Output.visible(reply.member)
        if !confirm && !reply.rows.isEmpty {
            Output.line("line  week day  period           subject               teacher   room")
            for row in reply.rows {
                let period = row.period
                Output.line(
                    Timetable.pad(String(row.line), 5) + " " + Timetable.pad(String(row.week), 4) + " "
                        + Timetable.pad(String(row.day.prefix(3)), 4) + " "
                        + Timetable.pad(Int(period) != nil ? "P\(period)" : period, 16) + " "
                        + Timetable.pad(row.subject, 21) + " " + Timetable.pad(row.teacher ?? "", 9) + " " + row.room)
            }
        }
        for error in reply.errors { Output.line("line \(error.line): \(Output.visible(error.reason))") }
        let omitted = [
            ("clashes", reply.omitted.clashes), ("errors", reply.omitted.errors), ("rows", reply.omitted.rows),
        ]
        for (what, count) in omitted where count > 0 {
            Output.line("(\(count) more \(what) not shown; --json has the counts)")
        }
        Timetable.printClashes(reply.clashes, warning: true)
        let (valid, invalid) = (reply.valid, reply.invalid)
        let bad = "\(invalid) bad row\(invalid == 1 ? "" : "s")"
        if confirm {
            Output.line(
                "imported \(Output.count(valid, "lesson")) for \(name) (replacing \(reply.replaced ?? 0)); \(bad) skipped"
            )
        } else if let refusal = reply.refusal {
            Output.line("preview: \(valid) valid rows, \(bad) — nothing written")
            Output.line("a --confirm would be \(refusal.replacingOccurrences(of: "; nothing was written", with: ""))")
        } else {
            Output.line(
                "preview: \(valid) valid rows, \(bad) — nothing written; add --confirm to replace \(name)'s timetable")
        }
    }
}
