// libFuzzer target: a PDF's words as `timetable.import {layout}` receives them, read by
// `TimetableGrid` (days across and down, week labels, period labels, cells, merged double
// periods, and a grid read from its ruling lines). Each 6 bytes of input are one word: its x and
// y (0–765 pt), width and height, and its text from the words timetables are made of (so the
// fuzzer reaches the grid, not just noise); a 5th byte of 254 makes the 6 a ruling line instead
// (across or down, where, from, to), 255 a page break. Every input gives lessons and problems, never a trap; every
// lesson and problem is placed on a page the input has, every problem says why, and no slot of
// the fortnight holds two lessons.
let vocabulary = [
    "Mon", "Tue", "Wed", "Thu", "Fri", "Monday", "Friday", "Sat", "P1", "P2", "P3", "Period", "1", "2", "5", "6",
    "AM", "Reg", "PM", "Break", "Lunch", "Week", "A", "B", "Week1", "Maths", "MHS", "R12", "Lab", "Design", "&",
    "Tech-", "nology", "ENJ", "R4", "-", "Reg.", "Wk", "x",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimetableGrid(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var pages: [[TextLayout.Word]] = [[]]
    var rules: [[TextLayout.Rule]] = [[]]
    var index = 0
    while index + 6 <= bytes.count {
        let (x, y) = (Double(bytes[index]) * 3, Double(bytes[index + 1]) * 3)
        let (width, height) = (Double(bytes[index + 2] % 120), Double(bytes[index + 3] % 24))
        if bytes[index + 4] == 255, pages.count < 4 {
            pages.append([])
            rules.append([])
        } else if bytes[index + 4] == 254 {
            let (from, to) = (Double(bytes[index + 1]) * 3, Double(bytes[index + 1]) * 3 + Double(bytes[index + 2]) * 3)
            rules[rules.count - 1].append(
                .init(horizontal: bytes[index + 5] % 2 == 0, at: x, from: from, to: to))
        } else {
            let text =
                vocabulary[Int(bytes[index + 4]) % vocabulary.count]
                + (bytes[index + 5] % 7 == 0 ? String(bytes[index + 5] % 3) : "")
            pages[pages.count - 1].append(.init(x0: x, y0: y, x1: x + width, y1: y + height, text: text))
        }
        index += 6
    }
    let reading = TimetableGrid(
        TextLayout(pages: zip(pages, rules).map { .init(width: 800, height: 800, words: $0, rules: $1) })
    ).reading
    for problem in reading.problems {
        if problem.reason.isEmpty { fatalError("a problem without a reason") }
        guard let page = problem.place.wire.page, (1...pages.count).contains(page) else {
            fatalError("a problem placed off the document: \(problem.place)")
        }
    }
    var slots = Set<String>()
    for lesson in reading.lessons {
        guard let page = lesson.place.wire.page, (1...pages.count).contains(page) else {
            fatalError("a lesson placed off the document: \(lesson.place)")
        }
        if !slots.insert("\(lesson.week) \(lesson.day) \(lesson.period)").inserted {
            fatalError("two lessons in one slot: \(lesson)")
        }
    }
    return 0
}
