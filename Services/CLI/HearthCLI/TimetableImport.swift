import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthPDF

/// `hearth timetable import FILE`: a preview first, the replacement only with `--confirm`.
struct TimetableImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a member's timetable from CSV (Week,Day,Period,Subject,Teacher,Room) or the school's PDF.",
        discussion: """
            Without --confirm, a preview that writes nothing: the rows it would import and every bad \
            row with its line number and reason (in a PDF, every cell it could not read, with its \
            page and position). With --confirm, the member's timetable is replaced \
            by the valid rows in one transaction (the old lessons stay in history); a file with no \
            valid row, or more bad rows than good, is refused unless --replace-anyway. Accepts Excel's \
            files: UTF-8 with a byte-order mark or Windows-1252, CRLF, `;` or `sep=;`, quoted fields, \
            blank rows, and spellings such as `Week 1`, `Mon`, `AM Reg`, `Period 3`.

            A PDF (a file starting %PDF) is read from its text layer by poppler: a grid with the \
            days (Monday–Friday) across its top or down its side and the periods beside them \
            (P1, Period 1, AM Reg; Break and Lunch rows are passed over), each cell its subject, \
            then its teacher and room; "Week 1" and "Week 2" above two grids (on one page or two) \
            make the fortnight, and a double period may be one merged cell. A scanned PDF, with no \
            text, is refused: it needs OCR first.
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The CSV or PDF file.") var file: String
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
        var arguments = TimetableImportArguments(member: member.member, confirm: confirm, replaceAnyway: replaceAnyway)
        if data.starts(with: Data("%PDF-".utf8)) {
            let layout = try await Self.words(of: data, file: file)
            arguments = .init(
                member: member.member, layout: layout, confirm: confirm, replaceAnyway: replaceAnyway)
        } else {
            guard data.count <= limit else {
                Output.error(
                    "hearth: \(file) is \(data.count) bytes; an import takes at most \(limit) bytes (too_large)")
                throw ExitCode(2)
            }
            // Excel's plain "CSV" is Windows-1252; its "CSV UTF-8" is UTF-8.
            guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .windowsCP1252)
            else {
                Output.error("hearth: \(file) is neither UTF-8 nor Windows-1252 text (nor a PDF)")
                throw ExitCode(2)
            }
            arguments = .init(member: member.member, csv: text, confirm: confirm, replaceAnyway: replaceAnyway)
        }
        let encoded = try JSONValueEncoder().encode(arguments).objectValue ?? [:]
        guard JSONValue.object(encoded).jsonText.utf8.count <= limit else {
            Output.error("hearth: \(file) has too much text for one import (\(limit) bytes at most) (too_large)")
            throw ExitCode(2)
        }
        let reply = try await ServiceCall.runShowingProgress(options, .store, TimetableImportArguments.name, encoded)
            .decode(TimetableImportReport.self)
        if options.json { return try Output.reply(reply) }
        let name = Output.visible(reply.member)
        let pdf = reply.format == "pdf"
        if !confirm && !reply.rows.isEmpty {
            Output.line(
                (pdf ? "page at       " : "line  ") + "week day  period           subject               teacher   room")
            for row in reply.rows {
                let period = row.period
                let place =
                    pdf
                    ? Timetable.pad("\(row.page ?? 0) \(row.x ?? 0),\(row.y ?? 0)", 13)
                    : Timetable.pad(String(row.line ?? 0), 5)
                Output.line(
                    place + " " + Timetable.pad(String(row.week), 4) + " "
                        + Timetable.pad(String(row.day.prefix(3)), 4) + " "
                        + Timetable.pad(Int(period) != nil ? "P\(period)" : period, 16) + " "
                        + Timetable.pad(row.subject, 21) + " " + Timetable.pad(row.teacher ?? "", 9) + " " + row.room)
            }
        }
        for error in reply.errors { Output.line("\(error.place): \(Output.visible(error.reason))") }
        for note in reply.notes ?? [] { Output.line("note: \(Output.visible(note))") }
        let omitted = [
            ("clashes", reply.omitted.clashes), ("errors", reply.omitted.errors), ("rows", reply.omitted.rows),
        ]
        for (what, count) in omitted where count > 0 {
            Output.line("(\(count) more \(what) not shown; --json has the counts)")
        }
        Timetable.printClashes(reply.clashes, warning: true)
        let (valid, invalid) = (reply.valid, reply.invalid)
        let bad = "\(invalid) bad \(pdf ? "cell" : "row")\(invalid == 1 ? "" : "s")"
        if confirm {
            Output.line(
                "imported \(Output.count(valid, "lesson")) for \(name) (replacing \(reply.replaced ?? 0)); \(bad) skipped"
            )
        } else if let refusal = reply.refusal {
            Output.line("preview: \(valid) valid \(pdf ? "lessons" : "rows"), \(bad) — nothing written")
            Output.line("a --confirm would be \(refusal.replacingOccurrences(of: "; nothing was written", with: ""))")
        } else {
            Output.line(
                "preview: \(valid) valid \(pdf ? "lessons" : "rows"), \(bad) — nothing written; add --confirm to replace \(name)'s timetable"
            )
        }
    }
}

extension TimetableImport {
    /// The PDF's words with their positions, read by poppler on a thread of its own.
    static func words(of data: Data, file: String) async throws -> TextLayout {
        let layout: TextLayout
        do {
            layout = try await offPool { () throws(PDFText.Failure) -> TextLayout in try PDFText.layout(of: data) }
        } catch {
            Output.error("hearth: \(file): \(error)")
            throw ExitCode(2)
        }
        guard layout.hasText else {
            Output.error("hearth: \(file): \(TextLayout.noTextRefusal)")
            throw ExitCode(2)
        }
        return layout
    }
}
