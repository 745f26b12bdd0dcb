import Foundation
import HearthCore
import HearthPDF
import Testing

@testable import StoreService

/// The PDF timetable reader on real PDFs: the same fortnight (`Tests/Fixtures/timetable-pdf/
/// ann.csv`, the school's spreadsheet) printed by two producers, LibreOffice (days across, a page
/// per week, merged double periods, three-line cells) and groff's tbl (days down, both weeks on
/// one page, spanned double periods, hyphenated subjects), read by poppler and `TimetableGrid`,
/// gives exactly the spreadsheet's lessons. `Tests/Fixtures/timetable-pdf/make` made them.
@Suite("Timetable import: the school's PDF read from its words' positions", .timeLimit(.minutes(1)))
struct TimetablePDFTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/timetable-pdf")

    /// A lesson as a comparable line: `1 Tue 3 Maths MHS R12`.
    static func key(_ lesson: TimetableReading.Lesson) -> String {
        "\(lesson.week) \(lesson.day.name.prefix(3)) \(lesson.period.code) \(lesson.subject) \(lesson.teacher ?? "-") \(lesson.room)"
    }

    static func source() throws -> [String] {
        let text = try String(contentsOf: folder.appendingPathComponent("ann.csv"), encoding: .utf8)
        let file = TimetableCSV(text)
        #expect(file.problems.isEmpty, "\(file.problems)")
        return file.lessons.map(key).sorted()
    }

    static func read(_ name: String) throws -> TimetableReading {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        return TimetableGrid(try PDFText.layout(of: data)).reading
    }

    @Test(
        "each producer's PDF gives the spreadsheet's lessons, no more, no fewer: LibreOffice, groff (days down, and a plain grid with and without lines), Chromium",
        arguments: [
            "ann-libreoffice.pdf", "ann-groff.pdf", "ann-grid-groff.pdf", "ann-chromium.pdf",
            "ann-grid-groff-unruled.pdf",
        ])
    func producers(_ name: String) throws {
        let reading = try Self.read(name)
        #expect(reading.problems.isEmpty, "\(reading.problems.map { "\($0.place): \($0.reason)" })")
        #expect(reading.notes.isEmpty, "\(reading.notes)")
        let expected = try Self.source()
        let found = reading.lessons.map(Self.key).sorted()
        #expect(expected.count == 61)
        #expect(
            found == expected,
            "missing: \(Set(expected).subtracting(found)), extra: \(Set(found).subtracting(expected))")
    }

    @Test("the ruling lines of every producer's grid are found in the page's rendering, across and down")
    func rulingLines() throws {
        for name in ["ann-libreoffice.pdf", "ann-groff.pdf", "ann-grid-groff.pdf", "ann-chromium.pdf"] {
            let layout = try PDFText.layout(of: Data(contentsOf: Self.folder.appendingPathComponent(name)))
            for page in layout.pages {
                let rules = page.rules ?? []
                // A week's grid: 6 columns and 10 rows at the least, each edge a line.
                #expect(rules.filter(\.horizontal).count >= 10, "\(name): \(rules.filter(\.horizontal).count) across")
                #expect(
                    rules.filter { !$0.horizontal }.count >= 6, "\(name): \(rules.filter { !$0.horizontal }.count) down"
                )
            }
        }
        let unruled = try PDFText.layout(
            of: Data(contentsOf: Self.folder.appendingPathComponent("ann-chromium-unruled.pdf")))
        #expect(unruled.pages.allSatisfy { ($0.rules ?? []).isEmpty })
    }

    @Test(
        "without lines, a lesson set at the top of a double period reads as one period, and the preview names each slot to check"
    )
    func unruledDoubles() throws {
        let reading = try Self.read("ann-chromium-unruled.pdf")
        #expect(reading.problems.isEmpty, "\(reading.problems.map { "\($0.place): \($0.reason)" })")
        // Chromium sets a cell's text at its top: Tuesday's Science over periods 1 and 2 looks
        // like Science in period 1 and a free period 2. Those, and only those, are named.
        let unsure = ["1 Tue 2 Science SCB Lab 2", "1 Thu 4 PE PEH Gym", "2 Fri 2 Art ARL A1"]
        #expect(reading.lessons.map(Self.key).sorted() == (try Self.source()).filter { !unsure.contains($0) })
        #expect(
            reading.notes == [
                "page 1 (week 1) has no ruling lines, so a double period cannot be told from a lesson with a free period under it: check Tuesday 2, Thursday 4",
                "page 2 (week 2) has no ruling lines, so a double period cannot be told from a lesson with a free period under it: check Friday 2",
            ])
    }

    /// A ruled grid drawn by hand: lanes and rows from its lines, a cell merged over two rows, and
    /// a cell in a row with no label, which is said, not dropped.
    @Test(
        "a ruled grid: a cell with no line between two rows is both periods; text in a row with no label is a problem")
    func ruledGrid() throws {
        func word(_ text: String, _ x: Double, _ y: Double) -> TextLayout.Word {
            .init(x0: x, y0: y, x1: x + Double(text.count) * 5, y1: y + 9, text: text)
        }
        func across(_ y: Double, _ from: Double, _ to: Double) -> TextLayout.Rule {
            .init(horizontal: true, at: y, from: from, to: to)
        }
        let words = [
            word("Monday", 70, 15), word("Tuesday", 170, 15), word("Wednesday", 270, 15),
            word("1", 15, 35), word("2", 15, 75),
            word("Maths", 65, 35), word("MHS", 65, 46), word("R12", 85, 46),
            // Centred over periods 1 and 2: no line at y 70 in Tuesday's lane.
            word("Science", 165, 60), word("SCB", 165, 71), word("Lab", 185, 71), word("2", 205, 71),
            word("Art", 265, 75), word("ARL", 265, 86), word("A1", 285, 86),
            word("Homework", 65, 114), word("club", 110, 114),
        ]
        let rules =
            [10, 60, 160, 260, 360].map { TextLayout.Rule(horizontal: false, at: $0, from: 10, to: 130) }
            + [across(10, 10, 360), across(30, 10, 360), across(70, 10, 160), across(70, 260, 360)]
            + [across(110, 10, 360), across(130, 10, 360)]
        let reading = TimetableGrid(
            TextLayout(pages: [.init(width: 400, height: 300, words: words, rules: rules)])
        ).reading
        #expect(
            reading.lessons.filter { $0.week == 1 }.map(Self.key) == [
                "1 Mon 1 Maths MHS R12", "1 Tue 1 Science SCB Lab 2", "1 Tue 2 Science SCB Lab 2", "1 Wed 2 Art ARL A1",
            ])
        #expect(
            reading.problems.map { "\($0.place): \($0.reason)" } == [
                "page 1 at 65,114 pt: 'Homework club' is inside the grid but in no day's cell of a labelled period"
            ])
    }

    @Test("cells it cannot read are problems with their page and position and why; a lone grid is both weeks")
    func badCells() throws {
        let reading = try Self.read("bad-cells.pdf")
        #expect(
            reading.lessons.map(Self.key).sorted() == [
                "1 Mon 1 Maths MHS R12", "1 Mon 2 History HIP R7", "1 Tue 2 French FRD R3", "1 Wed 1 English ENJ R4",
                "2 Mon 1 Maths MHS R12", "2 Mon 2 History HIP R7", "2 Tue 2 French FRD R3", "2 Wed 1 English ENJ R4",
            ])
        #expect(reading.notes.count == 1 && reading.notes[0].contains("read as every week"), "\(reading.notes)")
        let problems = reading.problems.map { "\($0.place): \($0.reason)" }
        #expect(problems.count == 2, "\(problems)")
        // Positions are the cell text's top-left corner on the page, in points.
        let places = reading.problems.compactMap { problem -> (Int, Int, Int)? in
            guard case .cell(let page, let x, let y) = problem.place else { return nil }
            return (page, x, y)
        }
        #expect(places.count == 2 && places.allSatisfy { $0.0 == 1 && $0.1 > 50 && $0.2 > 0 && $0.2 < 200 })
        #expect(problems.contains { $0.contains("'Maths' is one line") }, "\(problems)")
        #expect(
            problems.contains {
                $0.contains("'Chess Club / KLM R2' is in the Lunch row, which is not a lesson period")
            },
            "\(problems)")
    }

    @Test("a scanned PDF has pages but no text, and is refused as such")
    func scanned() throws {
        let layout = try PDFText.layout(of: Data(contentsOf: Self.folder.appendingPathComponent("scanned.pdf")))
        #expect(layout.pages.count == 1)
        #expect(!layout.hasText)
    }

    @Test("a file that is not a PDF is refused with poppler's reason")
    func notAPDF() {
        #expect(throws: PDFText.Failure.self) { try PDFText.layout(of: Data("%PDF-1.7\nnot really".utf8)) }
    }
}
