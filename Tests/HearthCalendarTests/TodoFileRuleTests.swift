import Foundation
import HearthCalendar
import Testing

@Suite(
    "VTODO files: a rule that cannot be read is refused for its todo, never a silent one-off", .timeLimit(.minutes(1)))
struct TodoFileRuleTests {
    static func file(_ rule: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//EN\r\nBEGIN:VTODO\r\nUID:odd@test\r\nSUMMARY:Odd\r\n"
            + "DUE;VALUE=DATE:20261201\r\nRRULE:\(rule)\r\nEND:VTODO\r\nBEGIN:VTODO\r\nUID:fine@test\r\n"
            + "SUMMARY:Fine\r\nDUE;VALUE=DATE:20261201\r\nRRULE:FREQ=DAILY\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
    }

    @Test(
        "a 180,000-entry BYDAY, a 200,000-digit UNTIL and UNTIL=00000000: that todo refused with the reason, the other imported",
        arguments: [
            "FREQ=WEEKLY;BYDAY=" + Array(repeating: "MO", count: 180_000).joined(separator: ","),
            "FREQ=DAILY;UNTIL=" + String(repeating: "2", count: 200_000), "FREQ=DAILY;UNTIL=00000000",
        ])
    func unreadableRules(rule: String) throws {
        let reading = try TodoFile.read(Self.file(rule), zone: TimeZone(identifier: "UTC")!)
        #expect(reading.todos.map(\.uid) == ["fine@test"])
        #expect(reading.todos.first?.repeat == "daily")
        let problem = try #require(reading.problems.first)
        #expect(problem.todo.contains("odd@test"), "\(problem)")
        #expect(problem.reason.contains("has an RRULE that cannot be read as a rule"), "\(problem.reason)")
        #expect(problem.reason.count < 300, "the reason does not repeat a huge rule: \(problem.reason.count)")
    }
}
