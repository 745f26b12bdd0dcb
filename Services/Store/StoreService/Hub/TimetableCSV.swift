import CSV
import Foundation
import HearthCore

/// A timetable file (`Week,Day,Period,Subject,Teacher,Room`) read as real files come: from
/// Excel's "CSV UTF-8" (a byte-order mark), with CRLF line ends, quoted fields holding commas,
/// quotes or line breaks, blank lines and all-empty rows, spaces around fields, a `;` delimiter
/// or a `sep=;` first line (European Excel), in any letter case and the common spellings of
/// weeks, days and periods (`Week 1`, `Mon`, `AM Reg`, `Period 3`).
///
/// Fields are split by CSV.swift (`CSVReader`), which neither strips the byte-order mark nor
/// reports line numbers: this reader drops the mark, and counts lines itself — a row's line is
/// the one it starts on, and a quoted field with line breaks moves the next row's start down.
/// The header row is optional; when present its names choose the columns (any order, unknown
/// columns ignored).
struct TimetableCSV {
    /// The valid rows and the bad ones, each with its line.
    private(set) var reading = TimetableReading(format: "csv")
    var lessons: [TimetableReading.Lesson] { reading.lessons }
    var problems: [TimetableReading.Problem] { reading.problems }
    /// The delimiter the file uses.
    private(set) var delimiter: Character = ","

    static let columns = ["week", "day", "period", "subject", "teacher", "room"]
    private static let aliases: [String: String] = [
        "wk": "week", "week number": "week", "weekday": "day", "lesson": "period", "teacher code": "teacher",
        "teacher_code": "teacher", "staff": "teacher", "staff code": "teacher", "classroom": "room",
        "location": "room", "class": "subject",
    ]

    init(_ text: String) {
        var body = Substring(text)
        if body.first == "\u{FEFF}" { body = body.dropFirst() }
        var line = 1
        if let declared = Self.separatorLine(body) {
            delimiter = declared.delimiter
            body = body[declared.rest...]
            line = 2
        } else {
            delimiter = Self.guessDelimiter(body)
        }
        reading.delimiter = delimiter
        guard let scalar = delimiter.unicodeScalars.first,
            let reader = try? CSVReader(string: String(body), trimFields: true, delimiter: scalar)
        else { return }
        var header: [String: Int]?
        var seen: [String: Int] = [:]
        var headerless = false
        while let fields = reader.next() {
            let start = line
            line += 1 + fields.reduce(0) { $0 + Self.lineBreaks($1) }
            guard fields.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { continue }
            if header == nil {
                if let columns = Self.header(fields) {
                    let missing = ["week", "day", "period", "subject", "room"].filter { columns[$0] == nil }
                    guard missing.isEmpty else {
                        reading.problems.append(
                            .init(
                                place: .line(start),
                                reason:
                                    "the header lacks \(missing.joined(separator: ", ")) (the columns are Week, Day, Period, Subject, Teacher, Room)"
                            ))
                        return
                    }
                    header = columns
                    continue
                }
                header = Dictionary(uniqueKeysWithValues: Self.columns.enumerated().map { ($1, $0) })
                headerless = true
            }
            read(fields, line: start, columns: header ?? [:], headerless: headerless, seen: &seen)
        }
    }

    private mutating func read(
        _ fields: [String], line: Int, columns: [String: Int], headerless: Bool, seen: inout [String: Int]
    ) {
        // A cell's line breaks (Alt+Enter in Excel) read as spaces: a lesson's text is one line.
        func field(_ name: String) -> String {
            guard let index = columns[name], index < fields.count else { return "" }
            return fields[index].split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
                .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                .trimmingCharacters(in: .whitespaces)
        }
        var reasons: [String] = []
        func parse<T>(_ body: () throws(RuleError) -> T) -> T? {
            do { return try body() } catch {
                reasons.append(error.description)
                return nil
            }
        }
        // Without a header a row is the six columns; with one, the columns it does not name are ignored.
        if headerless, fields.count > Self.columns.count,
            fields[Self.columns.count...].contains(where: { !$0.isEmpty })
        {
            reasons.append("has \(fields.count) fields; a row is Week, Day, Period, Subject, Teacher, Room")
        }
        let week = parse { () throws(RuleError) in try Hub.week(field("week")) }
        let day = parse { () throws(RuleError) in try SchoolDay(parsing: field("day")) }
        let period = parse { () throws(RuleError) in try Period(parsing: field("period")) }
        let texts = TimetableReading.checked(
            subject: field("subject"), teacher: field("teacher"), room: field("room"), reasons: &reasons)
        if let week, let day, let period {
            let slot = "\(week) \(day.rawValue) \(period.rawValue)"
            if let first = seen[slot] {
                reasons.append(
                    "two rows for one slot: week \(week) \(day.name) period \(period.name) is already on line \(first)")
            } else if reasons.isEmpty {
                seen[slot] = line
            }
        }
        guard reasons.isEmpty, let week, let day, let period, let texts else {
            reading.problems.append(.init(place: .line(line), reason: reasons.joined(separator: "; ")))
            return
        }
        reading.lessons.append(
            .init(
                place: .line(line), week: week, day: day, period: period, subject: texts.subject,
                teacher: texts.teacher, room: texts.room))
    }

    /// The columns a header row names, if the row is a header (it names at least two columns).
    private static func header(_ fields: [String]) -> [String: Int]? {
        var columns: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            let name = Hub.normalized(field)
            guard let column = Self.columns.contains(name) ? name : aliases[name], columns[column] == nil else {
                continue
            }
            columns[column] = index
        }
        return columns.count >= 2 ? columns : nil
    }

    /// Excel's `sep=;` first line: the delimiter and where the rows start.
    private static func separatorLine(_ body: Substring) -> (delimiter: Character, rest: Substring.Index)? {
        let end = body.firstIndex { $0 == "\n" || $0 == "\r\n" || $0 == "\r" } ?? body.endIndex
        var first = body[..<end].trimmingCharacters(in: .whitespaces).lowercased()
        if first.hasPrefix("\""), first.hasSuffix("\""), first.count >= 2 {
            first = String(first.dropFirst().dropLast())
        }
        guard first.hasPrefix("sep="), first.count == 5, let delimiter = first.last else { return nil }
        return (delimiter, end == body.endIndex ? end : body.index(after: end))
    }

    /// The delimiter of the first row that has one: `;` or a tab when the row holds more of
    /// them than commas (outside quotes), else `,`.
    private static func guessDelimiter(_ body: Substring) -> Character {
        var counts: [Character: Int] = [:]
        var quoted = false
        for character in body {
            if character == "\"" { quoted.toggle() }
            if quoted { continue }
            if character == "\n" || character == "\r\n" || character == "\r" {
                if !counts.isEmpty { break }
                continue
            }
            if character == "," || character == ";" || character == "\t" { counts[character, default: 0] += 1 }
        }
        return [";", "\t"].first { (counts[$0] ?? 0) > (counts[","] ?? 0) } ?? ","
    }

    private static func lineBreaks(_ field: String) -> Int {
        field.reduce(0) { $0 + ($1 == "\n" || $1 == "\r\n" || $1 == "\r" ? 1 : 0) }
    }
}
