import HearthCore

extension TimetableGrid {
    typealias Word = TextLayout.Word

    /// A row's or column's label on the periods' axis: a period, or another row (`Break`).
    struct Landmark {
        let low: Double
        let high: Double
        let period: Period?
        let label: String
        var middle: Double { (low + high) / 2 }
    }

    /// One timetable grid on a page: its days, its periods' labels and its cells' words by day.
    struct Table {
        /// Days as columns (`across`) or as rows (`down`).
        enum Orientation { case across, down }

        let page: Int
        let orientation: Orientation
        let days: [SchoolDay]
        var weeks: [Int]
        /// Along the periods' axis (y when days are columns, x when rows), in order.
        var landmarks: [Landmark]
        /// The words of each day's cells, by the index of `days`.
        let cells: [[Word]]
        let unit: Double
        /// Text inside the grid that falls in no day, with where it is.
        var strays: [[Word]]
        /// Why the grid could not be read, when its periods were not found.
        var failure: String?
        /// The cells as the page's ruling lines bound them, when it draws them around every day
        /// (`TimetableGrid+Rules`); otherwise the cells are found from the words' positions.
        var ruled: [Cell]?

        /// A word's extent on the periods' axis.
        func periodRange(_ word: Word) -> (Double, Double) {
            orientation == .across ? (word.y0, word.y1) : (word.x0, word.x1)
        }
    }

    /// A day header found on a page: the line of days (across) or the stack of them (down).
    private struct Anchor {
        let orientation: Table.Orientation
        let days: [(day: SchoolDay, word: Word)]
        /// The header line's words (across), to be kept out of the cells.
        let line: [Word]
        var top: Double { days.map(\.word.y0).min() ?? 0 }
    }

    /// The tables on one page, top to bottom.
    static func tables(on text: PageText, page: Int) -> [Table] {
        let unit = text.unit
        let labels = weekLabels(text)
        var anchors: [Anchor] = []
        var inHeaders = Set<Int>()
        for (index, line) in text.lines.enumerated() {
            let days = line.compactMap { word in word.day.map { (day: $0, word: word) } }
            guard days.count >= 3, zip(days, days.dropFirst()).allSatisfy({ $0.day < $1.day }) else { continue }
            anchors.append(Anchor(orientation: .across, days: days, line: line))
            inHeaders.insert(index)
        }
        // Days down a column: each below the last, at about the same x, later in the week.
        var stacks: [[(day: SchoolDay, word: Word)]] = []
        let loose = text.lines.enumerated().filter { !inHeaders.contains($0.offset) }.flatMap(\.element)
        for word in loose.sorted(by: { $0.middleY < $1.middleY }) {
            guard let day = word.day else { continue }
            if let index = stacks.lastIndex(where: {
                guard let last = $0.last else { return false }
                return abs(last.word.x0 - word.x0) <= 2 * unit && last.day < day && word.y0 >= last.word.y1 - unit / 2
            }) {
                stacks[index].append((day, word))
            } else {
                stacks.append([(day, word)])
            }
        }
        anchors += stacks.filter { $0.count >= 3 }.map { Anchor(orientation: .down, days: $0, line: []) }
        anchors.sort { $0.top < $1.top }

        var tables: [Table] = []
        var previousBottom = -Double.infinity
        for (index, anchor) in anchors.enumerated() {
            var bottom = index + 1 < anchors.count ? anchors[index + 1].top : Double.infinity
            // The down table's period labels sit above its days: found first, they start it.
            let header = anchor.orientation == .down ? downHeader(anchor, text: text, above: previousBottom) : nil
            let top = header?.top ?? anchor.top
            if index + 1 < anchors.count, anchors[index + 1].orientation == .down,
                let next = downHeader(anchors[index + 1], text: text, above: top)
            {
                bottom = min(bottom, next.top)
            }
            // A week label below the table's start ends it (it titles the next one).
            for label in labels where label.y0 > top + unit {
                bottom = min(bottom, label.y0)
            }
            let week = labels.filter { $0.y1 <= top + unit / 2 && $0.y0 >= previousBottom }.max { $0.y0 < $1.y0 }
            var weeks = week.map { [$0.week] } ?? []
            if weeks.isEmpty, anchors.count == 1, Set(labels.map(\.week)).count == 1, let only = labels.first {
                weeks = [only.week]
            }
            var table =
                anchor.orientation == .across
                ? across(anchor, text: text, page: page, bottom: bottom, weeks: weeks)
                : down(anchor, header: header, text: text, page: page, bottom: bottom, weeks: weeks)
            // Where the page draws the grid's lines, its rows and columns are read from them.
            if let lines = ruled(
                table, days: anchor.days.map(\.word), text: text,
                end: anchor.orientation == .across ? bottom : .infinity)
            {
                (table.landmarks, table.ruled, table.strays, table.failure) = (
                    lines.landmarks, lines.cells, lines.unplaced, nil
                )
            }
            tables.append(table)
            previousBottom = top
        }
        return tables
    }

    /// "Week 1", "Week B", "Wk 2", "Week2" on a page, with their lines' extent.
    private static func weekLabels(_ text: PageText) -> [(week: Int, y0: Double, y1: Double)] {
        var labels: [(week: Int, y0: Double, y1: Double)] = []
        for line in text.lines {
            for (index, word) in line.enumerated() {
                let plain = Hub.normalized(word.text.trimmingCharacters(in: .punctuationCharacters))
                var week: Int?
                if plain == "week" || plain == "wk", index + 1 < line.count {
                    week = try? Hub.week(line[index + 1].text.trimmingCharacters(in: .punctuationCharacters))
                } else if plain.hasPrefix("week"), plain.count > 4 {
                    week = try? Hub.week(plain)
                }
                if let week {
                    labels.append((week, line.map(\.y0).min() ?? word.y0, line.map(\.y1).max() ?? word.y1))
                    break
                }
            }
        }
        return labels
    }

    /// Days as columns: the periods' labels are the words left of the first day's column.
    private static func across(
        _ anchor: Anchor, text: PageText, page: Int, bottom: Double, weeks: [Int]
    ) -> Table {
        let unit = text.unit
        let headerBottom = anchor.line.map(\.y1).max() ?? anchor.top
        let header = Set(anchor.line.map { "\($0.x0) \($0.y0)" })
        let inside = text.words.filter {
            $0.middleY > headerBottom && $0.middleY < bottom && !header.contains("\($0.x0) \($0.y0)")
        }
        let centres = anchor.days.map(\.word.middleX)
        // The columns' edges: in the gutters between the columns' text, when every day's name is
        // over a column of its own (names set left, centred or right alike); otherwise each
        // day's column runs halfway to its neighbours', the outer ones as far again.
        var edges: [Double]
        if let gutters = Self.gutters(inside + anchor.days.map(\.word), days: anchor.days.map(\.word), unit: unit) {
            edges = gutters
        } else {
            edges = zip(centres, centres.dropFirst()).map { ($0 + $1) / 2 }
            edges.insert(centres[0] - (centres[1] - centres[0]) / 2, at: 0)
            edges.append(centres[centres.count - 1] + (centres[centres.count - 1] - centres[centres.count - 2]) / 2)
        }
        let labelWords = inside.filter { $0.middleX < edges[0] }
        let byY: (Word) -> (Double, Double) = { ($0.y0, $0.y1) }
        let landmarks = clusters(labelWords, gap: unit * 0.45, range: byY).flatMap { labels(in: $0, unit: unit) }
            .map { landmark($0, unit: unit, range: byY) }
        var cells = Array(repeating: [Word](), count: centres.count)
        for word in inside where word.middleX >= edges[0] && word.middleX <= edges[edges.count - 1] {
            let column = max(0, min(centres.count - 1, (edges.lastIndex { $0 <= word.middleX } ?? 0)))
            cells[column].append(word)
        }
        return Table(
            page: page, orientation: .across, days: anchor.days.map(\.day), weeks: weeks,
            landmarks: landmarks.sorted { $0.middle < $1.middle }, cells: cells, unit: unit, strays: [],
            failure: landmarks.contains { $0.period != nil }
                ? nil
                : "found the days across the page but no periods in the column left of them (P1–P5, Period 1, AM Reg…)")
    }

    /// The edges of the days' columns from the white space between columns: the words' extents
    /// across the page joined where they overlap or nearly touch, each day's name in a run of its
    /// own, the edges in the middle of the gaps (the last one as far past its column as the
    /// gap before it). `nil` when two days share a run (text that bridges the gutter).
    static func gutters(_ words: [Word], days: [Word], unit: Double) -> [Double]? {
        let runs = clusters(words, gap: unit * 0.3, range: { ($0.x0, $0.x1) }).map {
            (low: $0.map(\.x0).min() ?? 0, high: $0.map(\.x1).max() ?? 0)
        }
        var owners: [Int] = []
        for day in days {
            guard let run = runs.firstIndex(where: { $0.low <= day.middleX && day.middleX <= $0.high }),
                owners.last.map({ run > $0 }) ?? true
            else { return nil }
            owners.append(run)
        }
        // Every run between the first day's and the last day's must be one of the days'.
        guard let first = owners.first, let last = owners.last, last - first + 1 == owners.count, first > 0 else {
            return nil
        }
        var edges = (first...last).map { (runs[$0 - 1].high + runs[$0].low) / 2 }
        let lastGap = runs[last].low - runs[last - 1].high
        edges.append(last + 1 < runs.count ? (runs[last].high + runs[last + 1].low) / 2 : runs[last].high + lastGap / 2)
        return edges
    }

    /// The labels in a cluster of label lines set with no gap between rows (tbl's and a
    /// browser's tight rows put "Break" right under "2"): each line its own label, but a line
    /// that is no period alone and makes one with the next ("Period" "1", "AM" "Reg") joined.
    static func labels(in cluster: [Word], unit: Double) -> [[Word]] {
        let lines = wordLines(cluster, unit: unit)
        func text(_ words: [Word]) -> String { words.sorted { $0.x0 < $1.x0 }.map(\.text).joined(separator: " ") }
        func isPeriod(_ text: String) -> Bool { (try? Period(parsing: text)) != nil }
        var labels: [[Word]] = []
        var index = 0
        while index < lines.count {
            var label = lines[index]
            while index + 1 < lines.count, !isPeriod(text(label)), !isPeriod(text(lines[index + 1])),
                isPeriod(text(label) + " " + text(lines[index + 1]))
            {
                index += 1
                label += lines[index]
            }
            // Joined with the next when neither reads as a period and together they do ("AM"
            // "Reg"); a word wrapped onto a second line ("Regis-" "tration") likewise.
            if index + 1 < lines.count, !isPeriod(text(label)), !isPeriod(text(lines[index + 1])),
                isPeriod(textLines(label + lines[index + 1], unit: unit).joined(separator: " "))
            {
                index += 1
                label += lines[index]
            }
            labels.append(label)
            index += 1
        }
        return labels
    }

    /// The line of period labels above a down table's days: the nearest line above them, below
    /// `limit`, with two or more labels that read as periods; its words right of the days.
    private static func downHeader(
        _ anchor: Anchor, text: PageText, above limit: Double
    )
        -> (top: Double, bottom: Double, landmarks: [Landmark])?
    {
        let unit = text.unit
        let first = anchor.days[0].word
        let dayRight = anchor.days.map(\.word.x1).max() ?? first.x1
        for line in text.lines.reversed() where line.allSatisfy({ $0.y1 <= first.y0 + unit / 4 && $0.y0 > limit }) {
            let words = line.filter { $0.x0 > dayRight + unit / 2 }
            let byX: (Word) -> (Double, Double) = { ($0.x0, $0.x1) }
            let landmarks = clusters(words, gap: unit, range: byX).map { landmark($0, unit: unit, range: byX) }
            if landmarks.filter({ $0.period != nil }).count >= 2 {
                return (line.map(\.y0).min() ?? first.y0, line.map(\.y1).max() ?? first.y0, landmarks)
            }
        }
        return nil
    }

    /// Days as rows: each day's row is the band of cell text around its label.
    private static func down(
        _ anchor: Anchor, header: (top: Double, bottom: Double, landmarks: [Landmark])?, text: PageText, page: Int,
        bottom: Double, weeks: [Int]
    ) -> Table {
        let unit = text.unit
        let dayRight = anchor.days.map(\.word.x1).max() ?? 0
        let start = header?.bottom ?? anchor.top
        let inside = text.words.filter { $0.middleY > start && $0.middleY < bottom && $0.x0 > dayRight + unit / 4 }
        var cells = Array(repeating: [Word](), count: anchor.days.count)
        var strays: [[Word]] = []
        let (firstTop, lastBottom) = (anchor.days[0].word.y0, anchor.days[anchor.days.count - 1].word.y1)
        for band in clusters(inside, gap: unit * 0.45, range: { ($0.y0, $0.y1) }) {
            let (low, high) = (band.map(\.y0).min() ?? 0, band.map(\.y1).max() ?? 0)
            let touching = anchor.days.indices.filter {
                let middle = anchor.days[$0].word.middleY
                return middle >= low - unit / 2 && middle <= high + unit / 2
            }
            if let row = touching.min(by: {
                abs(anchor.days[$0].word.middleY - low) < abs(anchor.days[$1].word.middleY - low)
            }) {
                cells[row] += band
            } else if high > firstTop && low < lastBottom {
                strays.append(band)
            }
        }
        let landmarks = (header?.landmarks ?? []).sorted { $0.middle < $1.middle }
        return Table(
            page: page, orientation: .down, days: anchor.days.map(\.day), weeks: weeks, landmarks: landmarks,
            cells: cells, unit: unit, strays: strays,
            failure: header == nil
                ? "found the days down the page but no line above them naming the periods (Period 1, P1, AM Reg…)"
                : nil)
    }

    /// A label's period, read from its whole text, then its first line, first two words or first word.
    static func landmark(_ words: [Word], unit: Double, range: (Word) -> (Double, Double)) -> Landmark {
        let lines = textLines(words, unit: unit)
        let whole = lines.joined(separator: " ")
        let tokens = whole.split(separator: " ").map(String.init)
        let tries = [whole, lines.first ?? "", tokens.prefix(2).joined(separator: " "), tokens.first ?? ""]
        let period = tries.lazy.compactMap { try? Period(parsing: $0) }.first
        return Landmark(
            low: words.map { range($0).0 }.min() ?? 0, high: words.map { range($0).1 }.max() ?? 0,
            period: period, label: whole)
    }
}
