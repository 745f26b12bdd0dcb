/// The words of a document's pages with where each sits, as a PDF's text layer gives them: what
/// `timetable.import {layout}` reads a timetable's grid from (`hearth timetable import FILE.pdf`
/// extracts it with poppler, so the store never parses a PDF itself).
///
/// Positions are in points (1/72 inch) from the page's top-left corner, y growing downwards.
public struct TextLayout: Codable, Sendable, Equatable {
    /// One word: its box and its text.
    public struct Word: Codable, Sendable, Equatable {
        public let x0: Double
        public let y0: Double
        public let x1: Double
        public let y1: Double
        public let text: String

        public init(x0: Double, y0: Double, x1: Double, y1: Double, text: String) {
            (self.x0, self.y0, self.x1, self.y1, self.text) = (x0, y0, x1, y1, text)
        }

        public var width: Double { x1 - x0 }
        public var height: Double { y1 - y0 }

        /// On the wire `[x0, y0, x1, y1, "text"]`, positions to a hundredth of a point: a page of a
        /// timetable is some 400 words, 15 KB this way against 30 KB as objects.
        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            x0 = try container.decode(Double.self)
            y0 = try container.decode(Double.self)
            x1 = try container.decode(Double.self)
            y1 = try container.decode(Double.self)
            text = try container.decode(String.self)
            guard [x0, y0, x1, y1].allSatisfy(\.isFinite), x1 >= x0, y1 >= y0 else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "a word is [x0, y0, x1, y1, text] with finite x0 ≤ x1 and y0 ≤ y1"))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for value in [x0, y0, x1, y1] { try container.encode((value * 100).rounded() / 100) }
            try container.encode(text)
        }
    }

    /// A straight line drawn on the page, across or down (a table's ruling): where it lies on
    /// the axis it crosses, and how far it runs along the other, in points.
    public struct Rule: Codable, Sendable, Equatable {
        /// Drawn across the page (its `at` a y), or down it (an x).
        public let horizontal: Bool
        public let at: Double
        public let from: Double
        public let to: Double

        public init(horizontal: Bool, at: Double, from: Double, to: Double) {
            (self.horizontal, self.at, self.from, self.to) = (horizontal, at, from, to)
        }

        /// Whether it runs past `position` on the axis along it (a y for a vertical rule).
        public func crosses(_ position: Double, tolerance: Double = 0) -> Bool {
            from - tolerance <= position && position <= to + tolerance
        }

        /// On the wire `["h" or "v", at, from, to]`, to a hundredth of a point.
        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            let kind = try container.decode(String.self)
            (at, from, to) = (
                try container.decode(Double.self), try container.decode(Double.self), try container.decode(Double.self)
            )
            horizontal = kind == "h"
            guard kind == "h" || kind == "v", [at, from, to].allSatisfy(\.isFinite), from <= to else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "a rule is [\"h\" or \"v\", at, from, to] with finite from ≤ to"))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(horizontal ? "h" : "v")
            for value in [at, from, to] { try container.encode((value * 100).rounded() / 100) }
        }
    }

    /// One page: its size, its words in the order the text layer has them, and the straight
    /// lines drawn on it (absent when none were looked for or found).
    public struct Page: Codable, Sendable, Equatable {
        public let width: Double
        public let height: Double
        public let words: [Word]
        @OmittedWhenNil public var rules: [Rule]?

        public init(width: Double, height: Double, words: [Word], rules: [Rule]? = nil) {
            (self.width, self.height, self.words) = (width, height, words)
            self.rules = rules
        }
    }

    public let pages: [Page]

    public init(pages: [Page]) { self.pages = pages }

    /// Whether any page has a word: a scanned document has pages but no text layer.
    public var hasText: Bool { pages.contains { !$0.words.isEmpty } }

    /// What a timetable import says of a document with no text layer.
    public static let noTextRefusal = "this PDF has no text; a scanned timetable needs OCR (nothing was read)"
}
