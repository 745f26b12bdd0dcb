import Foundation

// libFuzzer target: an iCalendar file as `hearth plan busy import` reads it, through
// `CalendarFile` (libical's parser and recurrence iterator, then Foundation's time zones).
// Every input gives busy times and reported events, never a trap; every busy time ends no
// earlier than it starts and belongs to a UID the file holds; every report has a reason.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICalendar(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let from = LocalDate(year: 2026, month: 11, day: 1)!
    guard
        let reading = try? CalendarFile.read(
            text, from: from, through: from.adding(days: 90), zone: TimeZone(identifier: "Europe/London")!)
    else { return 0 }
    for busy in reading.busy {
        if busy.end < busy.start { fatalError("a busy time ends before it starts: \(busy)") }
        if !reading.uids.contains(busy.uid) { fatalError("a busy time of an unknown UID \(busy.uid)") }
    }
    for error in reading.errors where error.reason.isEmpty { fatalError("a reported event without a reason") }
    return 0
}
