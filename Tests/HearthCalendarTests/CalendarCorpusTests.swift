import Foundation
import HearthBus
import HearthCalendar
import HearthCore
import HearthTesting
import Testing

/// Hearth's busy times against a reference no one here wrote: for every public test calendar of
/// python's `icalendar` (`Tests/Fixtures/ics-corpus/`: Google, Outlook, Thunderbird, Apple,
/// Nextcloud and hand-made edge cases) that `recurring-ical-events` can read, the busy times
/// `CalendarFile` gives the store equal the reference's occurrences (UID and UTC start) over 90
/// days from a week after the file's first event (issue 42's window, where series repeat) and over
/// the year from its first event (where single events count too), but for the differences listed
/// here with their reason.
@Suite("Calendar files: busy times agree with recurring-ical-events on real calendars", .timeLimit(.minutes(2)))
struct CalendarCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let corpus = root.appendingPathComponent("Tests/Fixtures/ics-corpus")
    /// The household's zone: floating times and dates are read in it, by both sides.
    static let zone = "Europe/London"

    /// Deliberate differences, by file, with the reason and the RFC that says so.
    static let differences: [String: String] = [
        "calendars-issue_156_RDATE_with_PERIOD_TZID_khal.ics":
            "an override (RECURRENCE-ID, RANGE=THISANDFUTURE) with no series in the file, carrying RDATE "
            + "periods: Hearth reads the RDATEs as occurrences (RFC 5545 §3.8.5.2), the reference only its DTSTART",
        "calendars-issue_156_RDATE_with_PERIOD_TZID_khal_2.ics": "the same, from Lotus Notes",
        "calendars-issue_165_missing_event.ics":
            "Exchange writes BYDAY=MO, TU, WE… with spaces: libical reads the rule, the reference drops "
            + "the series (RFC 5545 asks readers to be liberal; §3.3.10's grammar has no spaces)",
        "calendars-issue_313_globally_unique_tzid.ics":
            "TZIDs behind vendor prefixes (/mozilla.org/…/America/New_York) with no VTIMEZONE: Hearth reads "
            + "the IANA zone they name (RFC 5545 §3.2.19's globally unique form), the reference floating time",
        "calendars-rfc_7529.ics":
            "RSCALE rules (RFC 7529): the reference cannot read them and drops the series; their DTSTART is "
            + "still the first instance (RFC 5545 §3.8.5.3), which Hearth keeps",
        "events-event_with_recurrence.ics":
            "a floating DTSTART with EXDATEs in UTC (RFC 5545 §3.8.5.1 wants the same value type): the "
            + "reference then reads the whole series as UTC, Hearth keeps DTSTART floating in the household's zone",
        "hearth-override_of_no_occurrence.ics":
            "an override (RECURRENCE-ID) naming no occurrence of its series in the file: RFC 5545 §3.8.4.4 "
            + "says it identifies one of the series' instances, so Hearth leaves it out with a warning; the "
            + "reference keeps it as an event of its own",
        "events-issue_464_invalid_rdate.ics":
            "an RDATE line with one valid period and one malformed: Hearth keeps the valid one (libical "
            + "drops only the bad value), the reference drops the line",
    ]

    struct Reference: Decodable {
        let error: String?
        let later: Window?
        let first: Window?
    }

    struct Window: Decodable {
        let from: String
        let through: String
        /// UID (nil when the event has none), start (UTC, `2026-01-01T10:00:00Z`), length in s.
        let events: [[Field]]

        enum Field: Decodable {
            case text(String)
            case number(Int)
            case none

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if container.decodeNil() {
                    self = .none
                } else if let number = try? container.decode(Int.self) {
                    self = .number(number)
                } else {
                    self = .text(try container.decode(String.self))
                }
            }
        }
    }

    /// What the reference says of every file: `Tests/Fixtures/ics-reference.py`, with the
    /// packages `deploy/bootstrap test` unpacks into `.build/python-ical`.
    static func reference() async throws -> [String: Reference] {
        let packages = root.appendingPathComponent(".build/python-ical").path
        try #require(
            FileManager.default.fileExists(atPath: packages + "/recurring_ical_events"),
            "recurring-ical-events is not unpacked in \(packages): run deploy/bootstrap test")
        let run = try await ChildProcess.run(
            "/usr/bin/python3",
            [root.appendingPathComponent("Tests/Fixtures/ics-reference.py").path, corpus.path, zone],
            environment: ["PYTHONPATH": packages], timeout: .seconds(60))
        try #require(run.status == 0, "the reference failed: \(run.stderr)")
        return try JSONDecoder().decode([String: Reference].self, from: Data(run.stdout.utf8))
    }

    /// How Hearth's busy times of `text` in `window` differ from the reference's, or `nil`.
    static func compare(
        _ text: String, _ window: Window, zone: TimeZone, utc: ISO8601DateFormatter
    ) throws -> String? {
        let from = try LocalDate(parsing: window.from, field: "from")
        let through = try LocalDate(parsing: window.through, field: "through")
        // Occurrences that take no time block none (RFC 5545 §3.6.1: a DATE-TIME DTSTART with
        // no DTEND or DURATION ends where it starts): not busy times.
        let expected = Set(
            window.events.compactMap { fields -> String? in
                guard fields.count == 3, case .text(let start) = fields[1], case .number(let length) = fields[2],
                    length > 0
                else { return nil }
                if case .text(let uid) = fields[0] { return key(uid: uid, start: start) }
                return key(uid: nil, start: start)
            })
        var found: Set<String> = []
        var errors: [String] = []
        do {
            let reading = try CalendarFile.read(text, from: from, through: through, zone: zone)
            for busy in reading.busy {
                found.insert(key(uid: busy.derivedUID ? nil : busy.uid, start: utc.string(from: busy.start)))
            }
            errors = reading.errors.map { "\($0.event): \($0.reason)" }
        } catch {
            errors = ["the file: \(error)"]
        }
        guard found != expected else { return nil }
        return """
              only the reference: \(expected.subtracting(found).sorted().prefix(5))
              only Hearth: \(found.subtracting(expected).sorted().prefix(5))
              Hearth's errors: \(errors.prefix(3))
            """
    }

    /// A busy time as both sides are compared: UID (empty when the file gives none) and UTC start.
    static func key(uid: String?, start: String) -> String { "\(uid ?? "") @ \(start)" }

    @Test("every file the reference reads: the same busy times, UID and instant")
    func agreesWithTheReference() async throws {
        let references = try await Self.reference()
        let zone = try #require(TimeZone(identifier: Self.zone))
        let utc = ISO8601DateFormatter()
        var compared = 0
        var agreeing = 0
        var disagreements: [String] = []
        for (file, reference) in references.sorted(by: { $0.key < $1.key }) {
            guard reference.error == nil, let later = reference.later, let first = reference.first else { continue }
            let text = try String(contentsOf: Self.corpus.appendingPathComponent(file), encoding: .utf8)
            compared += 1
            var differs: [String] = []
            for (name, window) in [("later", later), ("first", first)] {
                if let difference = try Self.compare(text, window, zone: zone, utc: utc) {
                    differs.append("\(name) \(window.from)…\(window.through)\n\(difference)")
                }
            }
            if differs.isEmpty {
                agreeing += 1
                #expect(Self.differences[file] == nil, "\(file) agrees now: take it off the list of differences")
            } else if Self.differences[file] == nil {
                disagreements.append("\(file): " + differs.joined(separator: "\n"))
            }
        }
        print("calendar corpus: Hearth agrees with recurring-ical-events on \(agreeing) of \(compared) files")
        #expect(compared >= 80, "the reference read only \(compared) files")
        #expect(agreeing + Self.differences.count == compared)
        #expect(disagreements.isEmpty, "\(disagreements.count) files differ:\n\(disagreements.joined(separator: "\n"))")
    }
}
