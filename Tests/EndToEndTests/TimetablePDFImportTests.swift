import Foundation
import HearthBus
import HearthTesting
import Testing

/// `hearth timetable import FILE.pdf` against real processes: poppler reads the school's PDF in
/// the command-line process, the store reads its grid, previews with each lesson's page and
/// position, and replaces the timetable on `--confirm`; a scanned PDF is refused and changes
/// nothing.
@Suite("End to end: a timetable from the school's PDF", .serialized, .timeLimit(.minutes(2)))
struct TimetablePDFImportTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/timetable-pdf")

    @Test("preview, confirm, the fortnight on screen; bad cells with page and position; a scan refused")
    func commandLine() async throws {
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_TIME_ZONE": "Europe/London"], context: context)
        #expect(try await stack.hearth(["member", "add", "Ann", "--role", "student"]).status == 0)
        let pdf = Self.folder.appendingPathComponent("ann-libreoffice.pdf").path

        let preview = try await stack.hearth(["timetable", "import", pdf, "--member", "Ann"])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(
            preview.stdout.contains("preview: 61 valid lessons, 0 bad cells — nothing written"), "\(preview.stdout)")
        #expect(preview.stdout.contains("page at"), "\(preview.stdout)")
        let json = try JSONValue.parse(
            try await stack.hearth(["--json", "timetable", "import", pdf, "--member", "Ann"]).stdout)
        #expect(json["format"] == "pdf")
        #expect(json["valid"] == 61)
        let first = json["rows"]?.arrayValue?.first
        #expect(
            first?["page"] == 1 && first?["x"]?.intValue != nil && first?["line"] == nil, "\(String(describing: first))"
        )
        #expect(try await stack.hearth(["timetable", "list", "--member", "Ann"]).stdout.contains("Ann: 0 lessons"))

        let confirmed = try await stack.hearth(["timetable", "import", pdf, "--member", "Ann", "--confirm"])
        #expect(
            confirmed.stdout.contains("imported 61 lessons for Ann (replacing 0); 0 bad cells skipped"),
            "\(confirmed.stdout)")
        let list = try await stack.hearth(["timetable", "list", "--member", "Ann"])
        #expect(list.stdout.contains("Ann: 61 lessons"), "\(list.stdout)")

        // The other producer's file of the same fortnight replaces it with the same 61.
        let groff = Self.folder.appendingPathComponent("ann-groff.pdf").path
        let again = try await stack.hearth(["timetable", "import", groff, "--member", "Ann", "--confirm"])
        #expect(
            again.stdout.contains("imported 61 lessons for Ann (replacing 61); 0 bad cells skipped"), "\(again.stdout)")
        // A plain grid from groff's tbl and an HTML table printed by Chromium: the same 61 (issue 63).
        for name in ["ann-grid-groff.pdf", "ann-chromium.pdf"] {
            let other = try await stack.hearth(
                ["timetable", "import", Self.folder.appendingPathComponent(name).path, "--member", "Ann", "--confirm"])
            #expect(
                other.stdout.contains("imported 61 lessons for Ann (replacing 61); 0 bad cells skipped"),
                "\(name): \(other.stdout)")
        }
        // Without lines, the preview says which slots to check.
        let unruled = try await stack.hearth(
            [
                "timetable", "import", Self.folder.appendingPathComponent("ann-chromium-unruled.pdf").path, "--member",
                "Ann",
            ])
        #expect(unruled.stdout.contains("check Tuesday 2, Thursday 4"), "\(unruled.stdout)")

        let bad = try await stack.hearth(
            ["timetable", "import", Self.folder.appendingPathComponent("bad-cells.pdf").path, "--member", "Ann"])
        #expect(bad.stdout.contains("preview: 8 valid lessons, 2 bad cells"), "\(bad.stdout)")
        #expect(
            bad.stdout.split(separator: "\n").contains {
                $0.hasPrefix("page 1 at ") && $0.contains("'Maths' is one line")
            }, "\(bad.stdout)")
        #expect(bad.stdout.contains("note: one timetable with no \"Week 1\" or \"Week 2\" label"), "\(bad.stdout)")

        let scanned = try await stack.hearth(
            [
                "timetable", "import", Self.folder.appendingPathComponent("scanned.pdf").path, "--member", "Ann",
                "--confirm",
            ])
        #expect(scanned.status == 2)
        #expect(scanned.stderr.contains("this PDF has no text; a scanned timetable needs OCR"), "\(scanned.stderr)")
        #expect(try await stack.hearth(["timetable", "list", "--member", "Ann"]).stdout.contains("Ann: 61 lessons"))
    }
}
