import HearthCore

/// What a timetable file yields, whatever its format: the lessons read and every row or cell that
/// could not be, each with its place in the file (a CSV's line, a PDF cell's page and position).
struct TimetableReading: Sendable {
    /// Where in the file a lesson or a problem is.
    enum Place: Sendable, Equatable, CustomStringConvertible {
        case line(Int)
        /// A PDF page (from 1) and the top-left corner of the cell's text, in points from the
        /// page's top-left corner.
        case cell(page: Int, x: Int, y: Int)
        /// A whole page: a problem with no one cell (no grid found).
        case page(Int)

        var description: String {
            switch self {
            case .line(let line): "line \(line)"
            case .cell(let page, let x, let y): "page \(page) at \(x),\(y) pt"
            case .page(let page): "page \(page)"
            }
        }

        var line: Int? { if case .line(let line) = self { line } else { nil } }

        /// As the import's reply says it.
        var wire: TimetableImportReport.Place {
            switch self {
            case .line(let line): .init(line: line)
            case .cell(let page, let x, let y): .init(page: page, x: x, y: y)
            case .page(let page): .init(page: page)
            }
        }
    }

    /// One valid lesson.
    struct Lesson: Sendable {
        let place: Place
        let week: Int
        let day: SchoolDay
        let period: Period
        let subject: String
        let teacher: String?
        let room: String
    }

    /// One refused row or cell: where, and every rule it breaks.
    struct Problem: Sendable, Equatable {
        let place: Place
        let reason: String
    }

    /// `csv` or `pdf`.
    let format: String
    var lessons: [Lesson] = []
    var problems: [Problem] = []
    /// The delimiter a CSV file was read by.
    var delimiter: Character?
    /// What the reader assumed and the user should know (a grid with no week label read as both).
    var notes: [String] = []
    /// What a file that yields no lesson probably is instead, for the refusal.
    var hint: String {
        format == "pdf"
            ? "is it the school's timetable, with the days (Monday–Friday) across or down and the periods beside them?"
            : "is it the timetable's CSV, Week,Day,Period,Subject,Teacher,Room?"
    }

    /// A lesson's subject, teacher and room by the hub's rules, or `nil` with every rule broken
    /// added to `reasons`.
    static func checked(
        subject: String, teacher: String, room: String, reasons: inout [String]
    )
        -> (subject: String, teacher: String?, room: String)?
    {
        var valid = true
        func parse<T>(_ body: () throws(RuleError) -> T) -> T? {
            do { return try body() } catch {
                reasons.append(error.description)
                valid = false
                return nil
            }
        }
        let subject = parse { () throws(RuleError) in
            try Hub.required(subject, field: "subject", maximumLength: Hub.maximumSubjectLength)
        }
        let teacher = parse { () throws(RuleError) in
            try Hub.optional(teacher, field: "teacher", maximumLength: Hub.maximumCodeLength)
        }
        let room = parse { () throws(RuleError) in
            try Hub.required(room, field: "room", maximumLength: Hub.maximumCodeLength)
        }
        guard valid, let subject, let teacher, let room else { return nil }
        return (subject, teacher, room)
    }
}
