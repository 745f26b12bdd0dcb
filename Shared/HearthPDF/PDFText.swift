import CPoppler
import Foundation
import HearthCore

/// A PDF's text layer, word by word with positions, read by poppler (Debian's libpoppler-glib):
/// what the timetable import reads a school's PDF grid from.
///
/// Poppler gives a page's text with one rectangle per character (`poppler_page_get_text_layout`);
/// a word is a run of characters without white space on one line, its box the union of theirs.
/// Parsing is blocking C work on an untrusted file: callers run it off the cooperative pool
/// (`offPool`), and in the command-line process, so a document that trips poppler never reaches
/// a service.
public enum PDFText {
    /// Why a file's text could not be read.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// At most this many pages are read: a timetable is one to four.
    public static let maximumPages = 50

    /// The words of every page of the PDF `data`.
    /// - Throws: `Failure` when poppler cannot open it (not a PDF, damaged, password-protected)
    ///   or it has more than `maximumPages` pages.
    public static func layout(of data: Data) throws(Failure) -> TextLayout {
        var failure: UnsafeMutablePointer<GError>?
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        guard let document = poppler_document_new_from_bytes(bytes, nil, &failure) else {
            let message = failure.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let failure { g_error_free(failure) }
            throw Failure(description: "cannot read it as a PDF: \(message)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(document)) }
        let count = Int(poppler_document_get_n_pages(document))
        guard count <= maximumPages else {
            throw Failure(description: "it has \(count) pages; a timetable import reads at most \(maximumPages)")
        }
        var pages: [TextLayout.Page] = []
        for index in 0..<count {
            guard let page = poppler_document_get_page(document, Int32(index)) else { continue }
            defer { g_object_unref(UnsafeMutableRawPointer(page)) }
            pages.append(read(page))
        }
        return TextLayout(pages: pages)
    }

    private static func read(_ page: OpaquePointer) -> TextLayout.Page {
        var (width, height) = (0.0, 0.0)
        poppler_page_get_size(page, &width, &height)
        var words = self.words(page, width: width, height: height)
        words.rules = words.words.isEmpty ? nil : rules(page, width: width, height: height)
        return words
    }

    private static func words(_ page: OpaquePointer, width: Double, height: Double) -> TextLayout.Page {
        guard let raw = poppler_page_get_text(page) else { return .init(width: width, height: height, words: []) }
        defer { g_free(raw) }
        let text = String(cString: raw)
        var rectangles: UnsafeMutablePointer<PopplerRectangle>?
        var rectangleCount: guint = 0
        guard poppler_page_get_text_layout(page, &rectangles, &rectangleCount) != 0, let rectangles else {
            return .init(width: width, height: height, words: [])
        }
        defer { g_free(rectangles) }
        // One rectangle per character of the text (Unicode scalar, as glib counts them).
        var words: [TextLayout.Word] = []
        var word = ""
        var box = (x0: 0.0, y0: 0.0, x1: 0.0, y1: 0.0)
        func end() {
            if !word.isEmpty { words.append(.init(x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1, text: word)) }
            word = ""
        }
        for (index, scalar) in text.unicodeScalars.enumerated() {
            guard index < Int(rectangleCount) else { break }
            if scalar.properties.isWhitespace || scalar.value < 0x20 {
                end()
                continue
            }
            let rectangle = rectangles[index]
            let (x0, x1) = (min(rectangle.x1, rectangle.x2), max(rectangle.x1, rectangle.x2))
            let (y0, y1) = (min(rectangle.y1, rectangle.y2), max(rectangle.y1, rectangle.y2))
            // A character well away from the last one starts a new word (text layers do not
            // always put a space between table cells on one line).
            if !word.isEmpty, x0 > box.x1 + (y1 - y0) * 0.6 || y0 > box.y1 || y1 < box.y0 { end() }
            if word.isEmpty {
                box = (x0, y0, x1, y1)
            } else {
                box = (min(box.x0, x0), min(box.y0, y0), max(box.x1, x1), max(box.y1, y1))
            }
            word.unicodeScalars.append(scalar)
        }
        end()
        return .init(width: width, height: height, words: words)
    }

    // MARK: - Ruling lines

    /// Pixels per point the page is rendered at to find its lines: 2 (a 0.4 pt hairline is a
    /// pixel wide), less for a page so large it would pass `maximumPixels`.
    static let scale = 2.0
    static let maximumPixels = 8_000_000.0
    /// A line is at least this long (points): shorter runs of ink are letters.
    static let minimumRuleLength = 12.0
    /// And at most this thick (points): thicker is a filled area, not a line.
    static let maximumRuleThickness = 3.0

    /// The straight lines drawn on a page (a table's ruling), found in its rendering: poppler
    /// draws the page with cairo onto a white image, and a line is a run of ink at least
    /// `minimumRuleLength` long, across or down, on neighbouring pixel rows (columns) that
    /// together are no thicker than `maximumRuleThickness`. PDFs draw rulings in many ways (a
    /// stroked path, a thin filled rectangle per cell edge, a border per cell as LibreOffice and
    /// Chromium print them); the rendering reads them all alike.
    static func rules(_ page: OpaquePointer, width: Double, height: Double) -> [TextLayout.Rule] {
        guard width > 0, height > 0, width.isFinite, height.isFinite else { return [] }
        let scale = min(Self.scale, (maximumPixels / (width * height)).squareRoot())
        let (columns, rows) = (Int((width * scale).rounded(.up)), Int((height * scale).rounded(.up)))
        guard columns > 0, rows > 0,
            let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(columns), Int32(rows))
        else { return [] }
        defer { cairo_surface_destroy(surface) }
        guard let context = cairo_create(surface) else { return [] }
        cairo_set_source_rgb(context, 1, 1, 1)
        cairo_paint(context)
        cairo_scale(context, scale, scale)
        poppler_page_render(page, context)
        cairo_destroy(context)
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return [] }
        let stride = Int(cairo_image_surface_get_stride(surface))
        // Ink: a pixel darker than light grey (an antialiased hairline is grey; a shaded
        // background such as #dddddd is not ink).
        var ink = [Bool](repeating: false, count: columns * rows)
        data.withMemoryRebound(to: UInt32.self, capacity: stride / 4 * rows) { pixels in
            for y in 0..<rows {
                let row = pixels + y * (stride / 4)
                for x in 0..<columns {
                    let pixel = row[x]
                    let sum = (pixel >> 16 & 0xFF) + (pixel >> 8 & 0xFF) + (pixel & 0xFF)
                    ink[y * columns + x] = sum < 3 * 200
                }
            }
        }
        let minimum = Int((minimumRuleLength * scale).rounded(.up))
        let thickest = maximumRuleThickness * scale
        let across = lines(
            count: rows, length: columns, minimum: minimum, thickest: thickest,
            isInk: { line, position in ink[line * columns + position] })
        let down = lines(
            count: columns, length: rows, minimum: minimum, thickest: thickest,
            isInk: { line, position in ink[position * columns + line] })
        return across.map { .init(horizontal: true, at: $0.at / scale, from: $0.from / scale, to: $0.to / scale) }
            + down.map { .init(horizontal: false, at: $0.at / scale, from: $0.from / scale, to: $0.to / scale) }
    }

    /// Runs of ink at least `minimum` long along each of `count` pixel lines, joined with those
    /// on the neighbouring lines they overlap into one line each (its middle and extent, in
    /// pixels), thin ones only.
    private static func lines(
        count: Int, length: Int, minimum: Int, thickest: Double, isInk: (Int, Int) -> Bool
    ) -> [(at: Double, from: Double, to: Double)] {
        struct Open {
            var first: Int
            var last: Int
            var from: Int
            var to: Int
        }
        var open: [Open] = []
        var found: [(at: Double, from: Double, to: Double)] = []
        func close(_ line: Open) {
            guard Double(line.last - line.first + 1) <= thickest else { return }
            found.append((Double(line.first + line.last + 1) / 2, Double(line.from), Double(line.to + 1)))
        }
        for line in 0..<count {
            var runs: [(Int, Int)] = []
            var start: Int?
            for position in 0...length {
                let inked = position < length && isInk(line, position)
                if inked, start == nil { start = position }
                if !inked, let first = start {
                    if position - first >= minimum { runs.append((first, position - 1)) }
                    start = nil
                }
            }
            var next: [Open] = []
            var used = Set<Int>()
            for (from, to) in runs {
                if let index = open.indices.first(where: {
                    !used.contains($0) && open[$0].last == line - 1 && open[$0].from <= to && from <= open[$0].to
                }) {
                    used.insert(index)
                    var joined = open[index]
                    (joined.last, joined.from, joined.to) = (line, min(joined.from, from), max(joined.to, to))
                    next.append(joined)
                } else {
                    next.append(Open(first: line, last: line, from: from, to: to))
                }
            }
            for (index, line) in open.enumerated() where !used.contains(index) { close(line) }
            open = next
        }
        for line in open { close(line) }
        return found
    }
}
