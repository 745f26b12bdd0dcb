import HearthCore

/// A school's timetable read from a PDF's words and their positions (`TextLayout`): the grid is
/// found from where its labels sit, never from guessed spacing, and where the page draws its
/// ruling lines, its rows and columns are read from those (`TimetableGrid+Rules`); what follows
/// is how a grid without lines is read.
///
/// - A **table** is anchored by its days: a line naming three or more of Monday–Friday left to
///   right (days as columns), or three or more stacked down one column (days as rows). A page
///   may hold several tables (a fortnight on one page) and a document several pages.
/// - Its **week** is the nearest "Week 1" / "Week 2" / "Week A" above it (a title, or a page
///   header as LibreOffice prints the sheet's name); a lone table with no label is read as both
///   weeks (the same timetable every week), and unlabelled tables in order as weeks 1 and 2.
/// - Its **periods** are the labels beside the days (the first column when days are columns, the
///   line above the days when they are rows): `P1`, `Period 1`, `AM Reg`…; a label that is not a
///   period (`Break`, `Lunch`) still marks its row, so nothing in it is taken for a lesson.
/// - A **cell** is a cluster of words in one day separated from the next by a gap of at least
///   half a line. Its place on the periods' axis picks its period: nearer a label than the
///   midway between two labels, that period; nearer the midway, both (a double period as a merged
///   cell prints it, its text centred over the line between the two).
/// - A cell's **text** is its lines (a word broken by a hyphen at a line's end joined again). A
///   table whose cells mostly stack subject, teacher and room on lines of their own is read so
///   (the room the last line, the teacher the one before, the subject the rest); otherwise the
///   last line holds the teacher and then the room ("SCB Lab 2"), or the room alone.
///
/// Whatever it cannot read is a problem with its page and position and why, never a guess.
struct TimetableGrid {
    var reading = TimetableReading(format: "pdf")

    /// At most this many words of a page are read (a timetable page has some 400): finding the
    /// days' stacks is quadratic in a page's words, so a crafted page stays a bounded cost.
    static let maximumWordsPerPage = 5_000
    /// And at most this many ruling lines (a ruled timetable page has some 60).
    static let maximumRulesPerPage = 2_000

    init(_ layout: TextLayout) {
        var tables: [Table] = []
        for (index, page) in layout.pages.enumerated() {
            let words = page.words.prefix(Self.maximumWordsPerPage).filter {
                !$0.text.isEmpty && $0.height > 0 && $0.height < 500 && abs($0.x0) < 1e5 && abs($0.y0) < 1e5
            }
            guard !words.isEmpty else { continue }
            let rules = (page.rules ?? []).prefix(Self.maximumRulesPerPage).filter {
                [$0.at, $0.from, $0.to].allSatisfy { abs($0) < 1e5 }
            }
            let found = Self.tables(on: PageText(words: Array(words), rules: Array(rules)), page: index + 1)
            if found.isEmpty {
                reading.problems.append(
                    .init(
                        place: .page(index + 1),
                        reason:
                            "found no timetable grid: no line names three or more school days (Monday–Friday) across, and no column names them down"
                    ))
            }
            tables += found
        }
        assignWeeks(&tables)
        var seen: [String: TimetableReading.Place] = [:]
        for table in tables { read(table, seen: &seen) }
    }

    /// Labelled tables keep their week; the rest are numbered in order, a lone one read as both.
    private mutating func assignWeeks(_ tables: inout [Table]) {
        let unlabelled = tables.indices.filter { tables[$0].weeks.isEmpty }
        if tables.count == 1, let only = unlabelled.first {
            tables[only].weeks = [1, 2]
            reading.notes.append(
                "one timetable with no \"Week 1\" or \"Week 2\" label: read as every week (both weeks of the fortnight)"
            )
            return
        }
        let taken = Set(tables.flatMap(\.weeks))
        var free = [1, 2].filter { !taken.contains($0) }
        for index in unlabelled {
            guard !free.isEmpty else {
                reading.problems.append(
                    .init(
                        place: .page(tables[index].page),
                        reason:
                            "a timetable with no week label, beyond the fortnight's two weeks (label each \"Week 1\" or \"Week 2\")"
                    ))
                continue
            }
            tables[index].weeks = [free.removeFirst()]
            reading.notes.append(
                "the timetable on page \(tables[index].page) has no week label: read as week \(tables[index].weeks[0]), by its order"
            )
        }
    }
}

// MARK: - A page's words

/// A page's words, with the measures the grid is found by.
struct PageText {
    typealias Word = TextLayout.Word

    let words: [Word]
    /// The straight lines drawn on the page (a table's ruling), when any were found.
    let rules: [TextLayout.Rule]
    /// The median word height: the unit every gap is measured in.
    let unit: Double
    /// The words grouped into lines (by their vertical middle), top to bottom, each left to right.
    let lines: [[Word]]

    init(words: [Word], rules: [TextLayout.Rule] = []) {
        self.words = words
        self.rules = rules
        let heights = words.map(\.height).sorted()
        unit = max(heights[heights.count / 2], 1)
        let lines = wordLines(words, unit: unit)
        self.lines = lines.map { $0.sorted { $0.x0 < $1.x0 } }
    }
}

extension TextLayout.Word {
    var middleX: Double { (x0 + x1) / 2 }
    var middleY: Double { (y0 + y1) / 2 }

    /// The school day this word names (`Mon`, `Tuesday`…), never a bare number.
    var day: SchoolDay? {
        let plain = text.trimmingCharacters(in: .punctuationCharacters)
        guard Int(plain) == nil, plain.count >= 2 else { return nil }
        return try? SchoolDay(parsing: plain)
    }
}

/// Words grouped along one axis: a new group wherever the gap to everything before is wider than
/// `gap`. `range` gives a word's extent on the axis.
func clusters(
    _ words: [TextLayout.Word], gap: Double, range: (TextLayout.Word) -> (Double, Double)
) -> [[TextLayout.Word]] {
    var groups: [[TextLayout.Word]] = []
    var end = -Double.infinity
    for word in words.sorted(by: { range($0).0 < range($1).0 }) {
        let (low, high) = range(word)
        if groups.isEmpty || low - end > gap {
            groups.append([word])
            end = high
        } else {
            groups[groups.count - 1].append(word)
            end = max(end, high)
        }
    }
    return groups
}

/// Words grouped into lines, top to bottom: a word whose vertical middle is within half a line
/// (`unit / 2`) of a line's first word's is on that line (each line in the order met, not yet
/// left to right).
func wordLines(_ words: [TextLayout.Word], unit: Double) -> [[TextLayout.Word]] {
    var lines: [[TextLayout.Word]] = []
    for word in words.sorted(by: { $0.middleY < $1.middleY }) {
        if let first = lines.last?.first, word.middleY - first.middleY <= unit / 2 {
            lines[lines.count - 1].append(word)
        } else {
            lines.append([word])
        }
    }
    return lines
}

/// A group of words' text, line by line: each line's words left to right; a line ending in a
/// hyphen after a letter, followed by one starting with a small letter, joined without it
/// ("Design & Tech-" "nology").
func textLines(_ words: [TextLayout.Word], unit: Double) -> [String] {
    let lines = wordLines(words, unit: unit)
    var texts: [String] = []
    for line in lines {
        let text = line.sorted { $0.x0 < $1.x0 }.map(\.text).joined(separator: " ")
        if let last = texts.last, last.count >= 2, last.hasSuffix("-"),
            last.dropLast().last?.isLetter == true, text.first?.isLowercase == true
        {
            texts[texts.count - 1] = String(last.dropLast()) + text
        } else {
            texts.append(text)
        }
    }
    return texts
}
