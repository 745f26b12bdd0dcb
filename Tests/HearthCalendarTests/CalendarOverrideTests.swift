import Foundation
import HearthCalendar
import HearthCore
import Testing

@Suite("Calendar files: versions of one event, and overrides of one occurrence (issue 63)", .timeLimit(.minutes(1)))
struct CalendarOverrideTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ics-corpus")
    static let london = TimeZone(identifier: "Europe/London")!

    static func read(_ name: String) throws -> CalendarFile.Reading {
        let text = try String(contentsOf: corpus.appendingPathComponent(name), encoding: .utf8)
        return try CalendarFile.read(
            text, from: try LocalDate(parsing: "2026-11-01", field: "from"),
            through: try LocalDate(parsing: "2027-01-31", field: "through"), zone: london)
    }

    @Test("an override naming no occurrence of its series is left out, with a warning; the series stays")
    func overrideOfNoOccurrence() throws {
        let reading = try Self.read("hearth-override_of_no_occurrence.ics")
        #expect(reading.busy.count == 8, "\(reading.busy.map(\.start))")
        #expect(!reading.busy.contains { $0.summary.contains("override of no occurrence") })
        #expect(
            reading.warnings.contains { $0.reason.contains("names no occurrence of its series") }, "\(reading.warnings)"
        )
    }

    @Test("two versions of one UID: the higher SEQUENCE, then the later LAST-MODIFIED; the other said")
    func versions() throws {
        let reading = try Self.read("hearth-two_versions_by_sequence.ics")
        #expect(Set(reading.busy.map(\.summary)) == ["Dentist (moved)", "Choir (Tuesdays)"], "\(reading.busy)")
        #expect(reading.busy.filter { $0.summary == "Choir (Tuesdays)" }.count == 6)
        #expect(reading.warnings.filter { $0.reason.contains("an older version") }.count == 2, "\(reading.warnings)")
    }

    @Test("an override with its series' RRULE replaces one occurrence and does not repeat")
    func overrideDoesNotRepeat() throws {
        let reading = try Self.read("hearth-override_with_rrule.ics")
        #expect(reading.busy.filter { $0.summary.contains("moved to Thursday") }.count == 1, "\(reading.busy)")
        #expect(reading.busy.count == 8)
    }
}
