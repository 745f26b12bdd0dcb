// libFuzzer target: a timetable CSV file as `hearth timetable import` sends it, read by
// `TimetableCSV` (CSV.swift's reader, then line counting, header detection, the spellings of
// weeks, days and periods, and the text rules). Every input gives valid rows and bad rows with
// reasons, never a trap; and every row's line is one the file has, in order.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimetableCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let file = TimetableCSV(text)
    let lines = 1 + text.reduce(0) { $0 + ($1 == "\n" || $1 == "\r\n" || $1 == "\r" ? 1 : 0) }
    let numbers = (file.lessons.compactMap(\.place.line) + file.problems.compactMap(\.place.line)).sorted()
    for line in numbers where !(1...lines).contains(line) {
        fatalError("line \(line) is outside the file's \(lines) lines")
    }
    if Set(numbers).count != numbers.count { fatalError("two results for one line: \(numbers)") }
    for problem in file.problems where problem.reason.isEmpty { fatalError("a bad row without a reason") }
    return 0
}
