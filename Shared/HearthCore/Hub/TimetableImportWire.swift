/// `timetable.import`: what `hearth timetable import` sends (a CSV file's text or a PDF's words)
/// and what the store answers, as a preview or as imported.

/// `timetable.import`, a command of its own: the member, and the file as CSV text or as a PDF's
/// words with their positions (`hearth timetable import` extracts them; exactly one of the two).
/// Sent and read with its own keys (`CodingKeys`, and `TextLayout`'s as they are), not the
/// snake_case of `HearthCommand.arguments()`: the sender encodes it with `JSONValueEncoder()` and
/// the store reads it with `CommandRequest.arguments(as:)`.
public struct TimetableImportArguments: HearthCommand, Equatable {
    public typealias Reply = TimetableImportReport
    public static let name = "timetable.import"
    public let member: String?
    public let csv: String?
    public let layout: TextLayout?
    public let confirm: Bool?
    public let replaceAnyway: Bool?

    public init(
        member: String?, csv: String? = nil, layout: TextLayout? = nil, confirm: Bool = false,
        replaceAnyway: Bool = false
    ) {
        (self.member, self.csv, self.layout) = (member, csv, layout)
        (self.confirm, self.replaceAnyway) = (confirm, replaceAnyway)
    }

    enum CodingKeys: String, CodingKey {
        case member, csv, layout, confirm
        case replaceAnyway = "replace_anyway"
    }
}

/// `timetable.import`: a file's rows (CSV) or cells (PDF) checked, as a preview or as imported.
/// A row or problem says where it is: its `line` in a CSV file, its `page` and the top-left
/// corner of its text (`x`, `y`, points from the page's top-left) in a PDF.
public struct TimetableImportReport: Codable, Sendable, Equatable {
    /// Where in the file: a CSV line, or a PDF page and position (a whole page has no `x`, `y`).
    public struct Place: Sendable, Equatable, CustomStringConvertible {
        public var line: Int?
        public var page: Int?
        public var x: Int?
        public var y: Int?

        public init(line: Int? = nil, page: Int? = nil, x: Int? = nil, y: Int? = nil) {
            (self.line, self.page, self.x, self.y) = (line, page, x, y)
        }

        /// `line 4`, `page 1 at 120,300 pt`, `page 2`.
        public var description: String {
            if let line { return "line \(line)" }
            guard let page else { return "the file" }
            guard let x, let y else { return "page \(page)" }
            return "page \(page) at \(x),\(y) pt"
        }
    }

    /// A valid row, with where it is in the file (`line`, or `page`, `x`, `y`).
    public struct Row: Codable, Sendable, Equatable {
        @OmittedWhenNil public var line: Int?
        @OmittedWhenNil public var page: Int?
        @OmittedWhenNil public var x: Int?
        @OmittedWhenNil public var y: Int?
        public let week: Int
        public let day: String
        public let period: String
        public let subject: String
        public let teacher: String?
        public let room: String

        public init(
            place: Place, week: Int, day: String, period: String, subject: String, teacher: String?, room: String
        ) {
            (line, page, x, y) = (place.line, place.page, place.x, place.y)
            (self.week, self.day, self.period) = (week, day, period)
            (self.subject, self.teacher, self.room) = (subject, teacher, room)
        }

        public var place: Place { Place(line: line, page: page, x: x, y: y) }
    }

    /// A bad row or cell: where (`line`, or `page`, `x`, `y`) and why.
    public struct Problem: Codable, Sendable, Equatable {
        @OmittedWhenNil public var line: Int?
        @OmittedWhenNil public var page: Int?
        @OmittedWhenNil public var x: Int?
        @OmittedWhenNil public var y: Int?
        public let reason: String

        public init(place: Place, reason: String) {
            (line, page, x, y) = (place.line, place.page, place.x, place.y)
            self.reason = reason
        }

        public var place: Place { Place(line: line, page: page, x: x, y: y) }
    }

    /// How many rows, errors and clashes were cut from lists too long for one message.
    public struct Omitted: Codable, Sendable, Equatable {
        public let rows: Int
        public let errors: Int
        public let clashes: Int

        public init(rows: Int, errors: Int, clashes: Int) {
            (self.rows, self.errors, self.clashes) = (rows, errors, clashes)
        }
    }

    public let member: String
    /// Counts of valid and bad rows, and of clashes, exact however the lists were cut.
    public let valid: Int
    public let invalid: Int
    public let clashesTotal: Int
    public let rows: [Row]
    public let errors: [Problem]
    public let clashes: [ClashView]
    public let omitted: Omitted
    /// `csv` or `pdf` (absent from the replies of builds before the PDF import: CSV).
    @OmittedWhenNil public var format: String?
    /// The delimiter a CSV file was read by.
    @OmittedWhenNil public var delimiter: String?
    /// What the reader assumed that the user should know (a PDF grid with no week label).
    @OmittedWhenNil public var notes: [String]?
    /// Whether this was the import (`true`) or a preview.
    public var confirmed: Bool
    /// On a preview: why a confirm would be refused.
    @OmittedWhenNil public var refusal: String?
    /// On an import: how many lessons it replaced.
    @OmittedWhenNil public var replaced: Int?

    public init(
        member: String, valid: Int, invalid: Int, clashesTotal: Int, rows: [Row], errors: [Problem],
        clashes: [ClashView], omitted: Omitted, format: String, delimiter: String?, notes: [String]?,
        confirmed: Bool = false
    ) {
        (self.member, self.valid, self.invalid, self.clashesTotal) = (member, valid, invalid, clashesTotal)
        (self.rows, self.errors, self.clashes, self.omitted) = (rows, errors, clashes, omitted)
        (self.format, self.delimiter, self.notes, self.confirmed) = (format, delimiter, notes, confirmed)
    }

    enum CodingKeys: String, CodingKey {
        case member, valid, invalid, rows, errors, clashes, omitted, format, delimiter, notes, confirmed, refusal
        case replaced
        case clashesTotal = "clashes_total"
    }
}
