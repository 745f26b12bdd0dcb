import HearthCore

extension TimetableGrid {
    /// One cell found in a table: its day, the labels it lies against, its text and where.
    struct Cell {
        let day: SchoolDay
        let landmarks: [Landmark]
        let lines: [String]
        let place: TimetableReading.Place
    }

    /// Reads a table's cells as lessons, or as problems with their place and why.
    mutating func read(_ table: Table, seen: inout [String: TimetableReading.Place]) {
        if let failure = table.failure {
            let first = table.cells.flatMap { $0 }.min { ($0.y0, $0.x0) < ($1.y0, $1.x0) }
            reading.problems.append(
                .init(place: first.map { Self.place($0, table) } ?? .page(table.page), reason: failure))
            return
        }
        for stray in table.strays {
            reading.problems.append(
                .init(
                    place: Self.place(stray, table),
                    reason:
                        "'\(textLines(stray, unit: table.unit).joined(separator: " / "))' is inside the grid but in no day's "
                        + (table.ruled == nil ? "row" : "cell of a labelled period")
                ))
        }
        // Without lines, a table whose text is set at its cells' tops is read row by row from the
        // labels' tops, and only it can hide a double period (centred text straddles the rows).
        let topAligned =
            table.ruled == nil && table.orientation == .across && Self.isTopAligned(table, gap: table.unit * 0.45)
        let cells = table.ruled ?? Self.cells(of: table, topAligned: topAligned)
        if topAligned { noteUnsureDoubles(cells, table) }
        // Subject, teacher and room each on a line of their own, when most cells stack three.
        let stacked =
            cells.filter { $0.lines.count >= 3 && !$0.lines[$0.lines.count - 2].contains(" ") }.count * 2
            > cells.count
        for cell in cells {
            let texts = cell.lines
            let shown = texts.joined(separator: " / ")
            if let other = cell.landmarks.first(where: { $0.period == nil }) {
                // A Break or Lunch row: its own name there is no lesson; anything else is a problem.
                if Hub.normalized(texts.joined(separator: " ")) != Hub.normalized(other.label) {
                    reading.problems.append(
                        .init(
                            place: cell.place,
                            reason:
                                "'\(shown)' is in the \(other.label) row, which is not a lesson period (P1–P5, AM or PM Registration)"
                        ))
                }
                continue
            }
            guard texts.count >= 2 else {
                reading.problems.append(
                    .init(
                        place: cell.place,
                        reason:
                            "'\(shown)' is one line; a lesson's cell has its subject, then its teacher and room (or the room alone)"
                    ))
                continue
            }
            var (subject, teacher, room) = ("", "", "")
            if stacked && texts.count >= 3 {
                (subject, teacher, room) = (
                    texts.dropLast(2).joined(separator: " "), texts[texts.count - 2], texts[texts.count - 1]
                )
            } else if stacked {
                (subject, room) = (texts[0], texts[1])
            } else {
                subject = texts.dropLast().joined(separator: " ")
                let codes = texts[texts.count - 1].split(separator: " ")
                if codes.count >= 2 {
                    (teacher, room) = (String(codes[0]), codes.dropFirst().joined(separator: " "))
                } else {
                    room = texts[texts.count - 1]
                }
            }
            var reasons: [String] = []
            let checked = TimetableReading.checked(subject: subject, teacher: teacher, room: room, reasons: &reasons)
            for week in table.weeks {
                for landmark in cell.landmarks {
                    guard let period = landmark.period else { continue }
                    var why = reasons
                    let slot = "\(week) \(cell.day.rawValue) \(period.rawValue)"
                    if let first = seen[slot] {
                        why.append(
                            "two lessons in one slot: week \(week) \(cell.day.name) period \(period.name) is already at \(first)"
                        )
                    }
                    guard why.isEmpty, let checked else {
                        reading.problems.append(
                            .init(place: cell.place, reason: "'\(shown)': " + why.joined(separator: "; ")))
                        continue
                    }
                    seen[slot] = cell.place
                    reading.lessons.append(
                        .init(
                            place: cell.place, week: week, day: cell.day, period: period, subject: checked.subject,
                            teacher: checked.teacher, room: checked.room))
                }
            }
        }
    }

    /// Without ruling lines, a lesson's text set at the top of a double period's cell looks like
    /// a lesson with a free period under it: each numbered period left empty right under a
    /// lesson in the same day is named in a note, so the preview asks the person to check it.
    private mutating func noteUnsureDoubles(_ cells: [Cell], _ table: Table) {
        let periods = table.landmarks.compactMap(\.period)
        var taken = Set<String>()
        // Cells shaped as lessons (a subject and more); a one-line cell is a problem of its own.
        for cell in cells where cell.lines.count >= 2 {
            for landmark in cell.landmarks { taken.insert("\(cell.day.rawValue) \(landmark.label)") }
        }
        var unsure: [String] = []
        for day in table.days {
            for (above, below) in zip(table.landmarks, table.landmarks.dropFirst()) {
                guard let period = below.period, (Period.first...Period.fifth).contains(period), above.period != nil,
                    taken.contains("\(day.rawValue) \(above.label)"), !taken.contains("\(day.rawValue) \(below.label)")
                else { continue }
                unsure.append("\(day.name) \(period.name)")
            }
        }
        guard !unsure.isEmpty, !periods.isEmpty else { return }
        let weeks = table.weeks.map(String.init).joined(separator: " and ")
        reading.notes.append(
            "page \(table.page) (week \(weeks)) has no ruling lines, so a double period cannot be told from a lesson with a free period under it: check \(unsure.joined(separator: ", "))"
        )
    }

    /// The cells of a table: each day's words grouped along the periods' axis, each group placed
    /// against the label it is nearest, or the two it lies between (a merged double period).
    /// Groups beyond the first or last label by more than half a row (titles, footers) are not
    /// the table's.
    private static func cells(of table: Table, topAligned: Bool) -> [Cell] {
        let middles = table.landmarks.map(\.middle)
        guard let first = middles.first, let last = middles.last else { return [] }
        let steps = zip(middles, middles.dropFirst()).map { $1 - $0 }.sorted()
        let half = max(steps.isEmpty ? 0 : steps[steps.count / 2] / 2, table.unit)
        let gap = table.orientation == .across ? table.unit * 0.45 : table.unit
        var cells: [Cell] = []
        for (index, words) in table.cells.enumerated() {
            let groups = topAligned ? rowGroups(words, table) : clusters(words, gap: gap, range: table.periodRange)
            for group in groups {
                let low = group.map { table.periodRange($0).0 }.min() ?? 0
                let high = group.map { table.periodRange($0).1 }.max() ?? 0
                let middle = (low + high) / 2
                guard middle >= first - half, middle <= last + half else { continue }
                if topAligned,
                    let rows = alignedRows(low: low, high: high, table) ?? bandRows(low: low, high: high, table)
                {
                    cells.append(
                        Cell(
                            day: table.days[index], landmarks: rows, lines: textLines(group, unit: table.unit),
                            place: place(group, table)))
                    continue
                }
                let nearest = middles.indices.min { abs(middles[$0] - middle) < abs(middles[$1] - middle) } ?? 0
                let between = middles.indices.dropLast().min {
                    abs((middles[$0] + middles[$0 + 1]) / 2 - middle)
                        < abs((middles[$1] + middles[$1 + 1]) / 2 - middle)
                }
                var landmarks = [table.landmarks[nearest]]
                if let between,
                    abs((middles[between] + middles[between + 1]) / 2 - middle) < abs(middles[nearest] - middle)
                {
                    landmarks = [table.landmarks[between], table.landmarks[between + 1]]
                }
                cells.append(
                    Cell(
                        day: table.days[index], landmarks: landmarks, lines: textLines(group, unit: table.unit),
                        place: place(group, table)))
            }
        }
        return cells
    }

    /// Whether a table's text is set at the top of its cells, level with its rows' labels (groff's
    /// tbl, a browser's table), rather than centred in them as the labels are (a spreadsheet):
    /// more of its groups of words start level with a label's top than sit level with a label's
    /// middle. A table set at the top is read row by row from the labels' tops.
    private static func isTopAligned(_ table: Table, gap: Double) -> Bool {
        let unit = table.unit
        var (tops, middles) = (0, 0)
        for words in table.cells {
            for group in clusters(words, gap: gap, range: table.periodRange) {
                let (low, high) = (group.map(\.y0).min() ?? 0, group.map(\.y1).max() ?? 0)
                if table.landmarks.contains(where: { abs($0.low - low) <= unit * 0.35 }) { tops += 1 }
                if table.landmarks.contains(where: { abs($0.middle - (low + high) / 2) <= unit * 0.35 }) {
                    middles += 1
                }
            }
        }
        return tops > middles
    }

    /// A day column's words as cells, when days are across and set at the top of their cells: a cell ends at a gap of half a line,
    /// or where a line starts level with a period's label (rows set as tightly as their text,
    /// tbl's and a browser's, leave no gap between one row's last line and the next row's first;
    /// a cell's text starts level with its row's label).
    private static func rowGroups(_ words: [Word], _ table: Table) -> [[Word]] {
        let unit = table.unit
        let lines = wordLines(words, unit: unit)
        // Each group with its lines' count, and whether it began only because its first line is
        // level with a label (no gap before it).
        var groups: [(words: [Word], lines: Int, level: Bool, pause: Bool)] = []
        var bottom = -Double.infinity
        for line in lines {
            let top = line.map(\.y0).min() ?? 0
            let gap = top - bottom > unit * 0.45
            // Level with a period's label (a Break or Lunch row's own text is never joined on).
            let level = table.landmarks.contains { $0.period != nil && abs($0.low - top) <= unit * 0.35 }
            let pause = table.landmarks.contains { $0.period == nil && abs($0.low - top) <= unit * 0.35 }
            if groups.isEmpty || gap || level || pause {
                groups.append((line, 1, level && !gap, pause))
            } else {
                groups[groups.count - 1].words += line
                groups[groups.count - 1].lines += 1
            }
            bottom = max(bottom, line.map(\.y1).max() ?? top)
        }
        // A lesson is never one line: a line cut off from its neighbour only by being level with
        // the next row's label is the rest of a cell that spans both rows (a double period, its
        // text centred over the rows, or longer than the first).
        var joined: [(words: [Word], lines: Int, level: Bool, pause: Bool)] = []
        for group in groups {
            if group.level, let last = joined.last, !last.pause, last.lines == 1 || group.lines == 1 {
                joined[joined.count - 1] = (last.words + group.words, last.lines + group.lines, last.level, false)
            } else {
                joined.append(group)
            }
        }
        return joined.map(\.words)
    }

    /// The rows of a cell that starts level with a row's label: that row, and each after it
    /// whose label starts within the cell's text (a row is as tall as its tallest cell, so only
    /// a cell spanning rows reaches the next label). `nil` for a cell that starts level with no
    /// label (text centred in its cell: read by its middle instead).
    private static func alignedRows(low: Double, high: Double, _ table: Table) -> [Landmark]? {
        let unit = table.unit
        guard let start = table.landmarks.firstIndex(where: { abs($0.low - low) <= unit * 0.35 }) else { return nil }
        var rows = [table.landmarks[start]]
        for landmark in table.landmarks[(start + 1)...] where landmark.low < high - unit * 0.3 {
            rows.append(landmark)
        }
        return rows
    }

    /// The rows of a cell whose text starts level with no label (centred in its cell), when days
    /// are across: each row runs from its label's top to the next label's, and the cell is in
    /// every row its text reaches well into (a third of a line past the edge): text centred over
    /// two rows is a double period.
    private static func bandRows(low: Double, high: Double, _ table: Table) -> [Landmark]? {
        let landmarks = table.landmarks
        guard !landmarks.isEmpty else { return nil }
        let (top, bottom) = (low + table.unit * 0.3, high - table.unit * 0.3)
        let rows = landmarks.indices.filter { index in
            let start = index == 0 ? -Double.infinity : landmarks[index].low
            let end = index + 1 < landmarks.count ? landmarks[index + 1].low : .infinity
            return start < max(top, bottom) && end > min(top, bottom)
        }
        return rows.isEmpty ? nil : rows.map { landmarks[$0] }
    }

    /// Where a group of words starts on its page: its top-left corner, in whole points.
    static func place(_ words: [Word], _ table: Table) -> TimetableReading.Place {
        .cell(page: table.page, x: Int(words.map(\.x0).min() ?? 0), y: Int(words.map(\.y0).min() ?? 0))
    }

    private static func place(_ word: Word, _ table: Table) -> TimetableReading.Place { place([word], table) }
}
