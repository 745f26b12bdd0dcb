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
        "each producer's PDF gives the spreadsheet's lessons, no more, no fewer",
        arguments: [
            "ann-libreoffice.pdf", "ann-groff.pdf",
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
