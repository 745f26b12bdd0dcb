import HearthCore

/// A timetable grid read from its ruling lines, when the page draws them (issue 63: a groff
/// `tbl` grid, a spreadsheet printed by LibreOffice, an HTML table printed by Chromium).
///
/// The lines are the grid's geometry, so nothing is guessed from gaps between words:
/// - the lines that cross the days' header separate the **days' lanes** (a column per day when
///   days are across, a row per day when they are down); each day's lane is the one its name is
///   in, and the lane before the first day's holds the periods' labels;
/// - in the labels' lane, the lines across it bound the **period rows** (`1`, `P1`, `AM Reg`,
///   `Break`…), each as tall as its cell, wherever its label sits in it;
/// - in each day's lane, the lines across that lane bound its **cells**: all of a cell's lines
///   are one cell, however tightly they are set; a cell with no line between two period rows (a
///   merged double period) covers both rows.
///
/// A word inside the grid that is in no day's lane and no label is reported with its place,
/// never dropped in silence.
extension TimetableGrid {
    /// The most rows a ruled grid is read with.
    static let maximumRows = 60

    /// The cells of a table found at `anchor`'s days from the page's ruling lines, or `nil` when
    /// the page does not draw lines around every day and a lane of labels before them (the
    /// words' positions are read instead).
    /// - Parameter end: where the table ends on the periods' axis (the next table, or a week label).
    static func ruled(
        _ table: Table, days: [Word], text: PageText, end: Double
    ) -> (landmarks: [Landmark], cells: [Cell], unplaced: [[Word]])? {
        let across = table.orientation == .across
        let unit = text.unit
        // Positions on the days' axis (x when days are across) and on the periods' axis.
        let dayPosition: (Word) -> Double = { across ? $0.middleX : $0.middleY }
        let periodPosition: (Word) -> Double = { across ? $0.middleY : $0.middleX }
        let periodRange: (Word) -> (Double, Double) = { across ? ($0.y0, $0.y1) : ($0.x0, $0.x1) }
        // Lines between days run along the periods' axis; lines between periods across it.
        let dayRules = text.rules.filter { $0.horizontal != across }
        let periodRules = text.rules.filter { $0.horizontal == across }
        let header = days.map(periodPosition).reduce(0, +) / Double(days.count)

        let lanes = Self.intervals(dayRules.filter { $0.crosses(header, tolerance: 1) }.map(\.at))
        var dayLanes: [(low: Double, high: Double)] = []
        for word in days {
            guard let lane = lanes.first(where: { $0.low < dayPosition(word) && dayPosition(word) < $0.high }),
                !dayLanes.contains(where: { $0 == lane })
            else { return nil }
            dayLanes.append(lane)
        }
        guard let first = dayLanes.first, let labels = lanes.last(where: { $0.high <= first.low + 0.5 }) else {
            return nil
        }
        let lastHigh = dayLanes.map(\.high).max() ?? first.high

        /// The intervals between the lines across a lane, from the days' header to the end.
        func rows(in lane: (low: Double, high: Double)) -> [(low: Double, high: Double)] {
            let middle = (lane.low + lane.high) / 2
            return Self.intervals(periodRules.filter { $0.crosses(middle, tolerance: 1) }.map(\.at))
                .filter { $0.low >= header && $0.high <= end + unit / 2 }
        }
        func words(in lane: (low: Double, high: Double), _ row: (low: Double, high: Double)) -> [Word] {
            text.words.filter {
                lane.low < dayPosition($0) && dayPosition($0) < lane.high && row.low < periodPosition($0)
                    && periodPosition($0) < row.high
            }
        }
        var placed = Set<String>()
        func key(_ word: Word) -> String { "\(word.x0) \(word.y0) \(word.text)" }

        // A timetable has a dozen rows; hundreds of lines are not a timetable's grid (and would
        // make every lane's reading a scan of every word for every row).
        let labelRows = rows(in: labels)
        let laneRows = dayLanes.map(rows(in:))
        guard labelRows.count <= maximumRows, laneRows.allSatisfy({ $0.count <= maximumRows }) else { return nil }
        var landmarks: [Landmark] = []
        for row in labelRows {
            let inside = words(in: labels, row)
            guard !inside.isEmpty else { continue }
            inside.forEach { placed.insert(key($0)) }
            let read = landmark(inside, unit: unit, range: periodRange)
            landmarks.append(Landmark(low: row.low, high: row.high, period: read.period, label: read.label))
        }
        guard landmarks.filter({ $0.period != nil }).count >= 2 else { return nil }

        var cells: [Cell] = []
        var unplaced: [[Word]] = []
        for (index, lane) in dayLanes.enumerated() {
            for row in laneRows[index] {
                let inside = words(in: lane, row)
                guard !inside.isEmpty else { continue }
                inside.forEach { placed.insert(key($0)) }
                // The period rows the cell covers: those whose middle lies in it.
                let covered = landmarks.filter { row.low < $0.middle && $0.middle < row.high }
                guard !covered.isEmpty else {
                    unplaced.append(inside)
                    continue
                }
                cells.append(
                    Cell(
                        day: table.days[index], landmarks: covered, lines: textLines(inside, unit: unit),
                        place: place(inside, table)))
            }
        }
        // Whatever else lies inside the grid (between the labels' lane and the last day's, and
        // from the first period row to the last) is said, with its place.
        let (top, bottom) = (landmarks.map(\.low).min() ?? header, landmarks.map(\.high).max() ?? header)
        let strays = text.words.filter {
            !placed.contains(key($0)) && labels.low < dayPosition($0) && dayPosition($0) < lastHigh
                && top < periodPosition($0) && periodPosition($0) < bottom
        }
        if !strays.isEmpty {
            unplaced += clusters(strays, gap: unit, range: { across ? ($0.y0, $0.y1) : ($0.x0, $0.x1) })
        }
        return (landmarks, cells, unplaced)
    }

    /// The spans between neighbouring lines at `positions` (lines closer than 1.5 pt are one:
    /// a border drawn by both cells beside it), narrow slivers left out.
    static func intervals(_ positions: [Double]) -> [(low: Double, high: Double)] {
        var merged: [Double] = []
        for position in positions.sorted() {
            if let last = merged.last, position - last < 1.5 { continue }
            merged.append(position)
        }
        return zip(merged, merged.dropFirst()).map { (low: $0, high: $1) }.filter { $0.high - $0.low >= 3 }
    }
}
