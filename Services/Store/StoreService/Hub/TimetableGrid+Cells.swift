import HearthCore

extension TimetableGrid {
    /// One cell found in a table: its day, the labels it lies against, its text and where.
    private struct Cell {
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
                        "'\(textLines(stray, unit: table.unit).joined(separator: " / "))' is inside the grid but in no day's row"
                ))
        }
        let cells = Self.cells(of: table)
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

    /// The cells of a table: each day's words grouped along the periods' axis, each group placed
    /// against the label it is nearest, or the two it lies between (a merged double period).
    /// Groups beyond the first or last label by more than half a row (titles, footers) are not
    /// the table's.
    private static func cells(of table: Table) -> [Cell] {
        let middles = table.landmarks.map(\.middle)
        guard let first = middles.first, let last = middles.last else { return [] }
        let steps = zip(middles, middles.dropFirst()).map { $1 - $0 }.sorted()
        let half = max(steps.isEmpty ? 0 : steps[steps.count / 2] / 2, table.unit)
        let gap = table.orientation == .across ? table.unit * 0.45 : table.unit
        var cells: [Cell] = []
        for (index, words) in table.cells.enumerated() {
            for group in clusters(words, gap: gap, range: table.periodRange) {
                let low = group.map { table.periodRange($0).0 }.min() ?? 0
                let high = group.map { table.periodRange($0).1 }.max() ?? 0
                let middle = (low + high) / 2
                guard middle >= first - half, middle <= last + half else { continue }
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

    /// Where a group of words starts on its page: its top-left corner, in whole points.
    private static func place(_ words: [Word], _ table: Table) -> TimetableReading.Place {
        .cell(page: table.page, x: Int(words.map(\.x0).min() ?? 0), y: Int(words.map(\.y0).min() ?? 0))
    }

    private static func place(_ word: Word, _ table: Table) -> TimetableReading.Place { place([word], table) }
}
