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
}
