import CLibICal
import Foundation
import HearthCore

/// Busy times read from an iCalendar file (RFC 5545) through libical: each `VEVENT`'s
/// occurrences in a range of days, as instants.
///
/// libical parses the file and expands `RRULE`s; times stay in each event's floating local time
/// until Foundation's `TimeZone` resolves them (`TZID`, or the household's zone for floating
/// times), because libical's own zone conversion drifts across daylight-saving changes.
public enum CalendarFile {
    /// One busy occurrence.
    public struct Busy: Hashable, Sendable {
        public let uid: String
        public let summary: String
        public let start: Date
        public let end: Date
        public let allDay: Bool
        /// The file gave the event no UID: `uid` is derived from its content (`Event.derivedUID`).
        public var derivedUID = false
    }

    /// What a file gave: busy times, events it reported and left out, and how many were not busy.
    public struct Reading: Sendable {
        public var busy: [Busy] = []
        /// Every UID the file holds, busy or not (a re-import replaces these).
        public var uids: Set<String> = []
        /// `event N (UID …)` and why it was left out: it cannot be placed in time.
        public var errors: [(event: String, reason: String)] = []
        /// `event N (UID …)` (or `the file`) and what was wrong in it that did not stop it
        /// being read: an empty or malformed property, an unknown time zone read as floating…
        public var warnings: [(event: String, reason: String)] = []
        /// Transparent (free) or cancelled events: read, not busy.
        public var free = 0
    }

    /// An error that leaves nothing to read.
    public struct FileError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The most occurrences one event may have in the range (a `FREQ=MINUTELY` rule would
    /// otherwise fill the table).
    public static let maximumOccurrences = 2000
    /// The most recurrence steps one event may take to reach the range (a `FREQ=SECONDLY` rule
    /// from years ago would otherwise iterate for minutes), and one file in all.
    public static let maximumSteps = 200_000
    public static let maximumFileSteps = 2_000_000
    /// The longest one file's repeating events may take to expand; the events left are reported,
    /// not expanded. Steps alone do not bound the time: one `icalrecur_iterator_next` searches a
    /// rule that never matches (`FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30`) up to libical's last year,
    /// 0.4–2.4 s for one DAILY to YEARLY rule on this project's machines (2026-11-24), so a file
    /// of such rules would otherwise take minutes. Ordinary files stay well inside it: the
    /// 10-event test calendar reads in 1.5–3 ms, 500 events each `FREQ=WEEKLY;BYDAY=MO,WE;
    /// COUNT=300` from 2024 (11,823 busy times) in 0.40–0.42 s (release build, 2026-11-24).
    public static let maximumExpansionTime = Duration.seconds(3)

    /// Reads every `VEVENT` of `text`, expanding occurrences that start in `from...through`.
    /// - Parameters:
    ///   - zone: the zone of floating times (the household's).
    ///   - timeLimit: how long expanding the file's rules may take (`maximumExpansionTime`).
    ///   - progress: told now and then how many of the file's events are done (each is read,
    ///     then expanded: the total is twice the events), for a progress line.
    /// - Throws: `FileError` when the text is not an iCalendar file at all.
    public static func read(
        _ text: String, from: LocalDate, through: LocalDate, zone: TimeZone,
        timeLimit: Duration = maximumExpansionTime, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(FileError)
        -> Reading
    {
        _ = LibICal.ready
        guard text.contains("BEGIN:VCALENDAR") || text.contains("BEGIN:VEVENT") else {
            throw FileError(description: "is not an iCalendar file (no BEGIN:VCALENDAR)")
        }
        // One event is parsed at a time, and freed once read: libical's tree of a whole
        // 100,000-event file held 405 MiB of the store at its peak (`hearth-bench social`).
        let (skeleton, eventTexts) = Self.split(text)
        let root = skeleton.isEmpty ? nil : icalparser_parse_string(skeleton)
        defer { if let root { icalcomponent_free(root) } }
        guard !eventTexts.isEmpty || root.map({ icalcomponent_isa($0) == ICAL_VCALENDAR_COMPONENT }) == true else {
            throw FileError(description: root == nil ? "could not be parsed as iCalendar" : "holds no VCALENDAR")
        }
        var reading = Reading()
        var zones = CalendarZones(root: root, household: zone)
        // Overrides (RECURRENCE-ID) replace an occurrence of their UID's series, or with
        // RANGE=THISANDFUTURE that one and every later one.
        var overrides: [String: [(recurrence: Event.Recurrence, event: Event)]] = [:]
        var parsed: [(index: Int, event: Event)] = []
        let steps = eventTexts.count * 2
        for (index, eventText) in eventTexts.enumerated() {
            if index % 500 == 0 { progress(index, steps) }
            guard let parsedText = icalparser_parse_string(eventText) else {
                reading.errors.append(("event \(index + 1)", "could not be parsed as iCalendar"))
                continue
            }
            defer { icalcomponent_free(parsedText) }
            guard let component = LibICal.components(ICAL_VEVENT_COMPONENT, in: parsedText).first else {
                reading.errors.append(("event \(index + 1)", "could not be parsed as iCalendar"))
                continue
            }
            let uid = icalcomponent_get_uid(component).map { String(cString: $0) } ?? ""
            let name = "event \(index + 1)" + (uid.isEmpty ? "" : " (UID \(uid))")
            do {
                let event = try Event(component, zones: &zones)
                reading.uids.insert(event.uid)
                parsed.append((index, event))
                for warning in event.warnings { reading.warnings.append((name, warning)) }
            } catch {
                if !uid.isEmpty { reading.uids.insert(uid) }
                reading.errors.append((name, error.description))
            }
        }
        for warning in zones.warnings { reading.warnings.append(("the file", warning)) }
        parsed = Self.latestVersions(parsed, warnings: &reading.warnings)
        var series: [String: Event] = [:]
        for (_, event) in parsed {
            if let recurrence = event.recurrence {
                overrides[event.uid, default: []].append((recurrence, event))
            } else {
                series[event.uid] = event
            }
        }
        let firstInstant = HouseholdTime(timeZone: zone).instant(from, LocalTime(hour: 0, minute: 0)!)
        let lastInstant = HouseholdTime(timeZone: zone).instant(through.adding(days: 1), LocalTime(hour: 0, minute: 0)!)
        var budget = Budget(steps: maximumFileSteps, deadline: ContinuousClock.now + timeLimit, limit: timeLimit)
        for (done, (index, event)) in parsed.enumerated() {
            if done % 500 == 0 { progress(eventTexts.count + done * eventTexts.count / max(parsed.count, 1), steps) }
            guard event.busy || event.recurrence == nil && overrides[event.uid] != nil else {
                reading.free += 1
                continue
            }
            do {
                if let recurrence = event.recurrence, !recurrence.thisAndFuture, let of = series[event.uid],
                    try !of.hasOccurrence(at: recurrence, budget: &budget)
                {
                    reading.warnings.append(
                        (
                            "event \(index + 1) (UID \(event.uid))",
                            "its RECURRENCE-ID names no occurrence of its series: left out"
                        ))
                    continue
                }
                let replacing = event.recurrence == nil ? overrides[event.uid] ?? [] : []
                for occurrence in try event.occurrences(from: from, through: through, budget: &budget) {
                    guard let (start, length) = Self.overridden(occurrence, of: event, by: replacing), length > 0
                    else { continue }
                    let end = start.addingTimeInterval(length)
                    guard end > firstInstant, start < lastInstant else { continue }
                    reading.busy.append(
                        Busy(
                            uid: event.uid, summary: event.summary, start: start, end: end, allDay: event.allDay,
                            derivedUID: event.derivedUID))
                }
            } catch {
                reading.errors.append(("event \(index + 1) (UID \(event.uid))", error.description))
            }
        }
        reading.busy.sort { ($0.start, $0.uid) < ($1.start, $1.uid) }
        return reading
    }

    /// Of the components that share a UID and a RECURRENCE-ID (or have none), the latest
    /// version (`Event.Version`; the last in the file when equal): two versions of one event
    /// were both expanded (issue 63). The others are left out, each with a warning.
    private static func latestVersions(
        _ parsed: [(index: Int, event: Event)], warnings: inout [(event: String, reason: String)]
    ) -> [(index: Int, event: Event)] {
        var latest: [String: Int] = [:]
        for (position, (_, event)) in parsed.enumerated() {
            let key = event.uid + "\u{0}" + (event.recurrence.map { "\($0.instant.timeIntervalSince1970)" } ?? "")
            if let kept = latest[key], parsed[kept].event.version > event.version { continue }
            latest[key] = position
        }
        let kept = Set(latest.values)
        for (position, (index, event)) in parsed.enumerated() where !kept.contains(position) {
            warnings.append(
                (
                    "event \(index + 1) (UID \(event.uid))",
                    "an older version of an event the file has again (SEQUENCE, LAST-MODIFIED): left out"
                ))
        }
        return parsed.enumerated().filter { kept.contains($0.offset) }.map(\.element)
    }

    /// A series' occurrence as its overrides leave it: gone when an override replaces it (the
    /// override is read as an event of its own), moved by the latest `RANGE=THISANDFUTURE`
    /// override before it (by that override's shift, with its length), or as it is. `nil` when
    /// it blocks no time (the series is not busy, or a cancelling override took it).
    private static func overridden(
        _ occurrence: (start: Date, length: TimeInterval), of series: Event,
        by overrides: [(recurrence: Event.Recurrence, event: Event)]
    ) -> (start: Date, length: TimeInterval)? {
        let day = overrides.contains { $0.recurrence.day != nil } ? series.day(of: occurrence.start) : nil
        if overrides.contains(where: {
            $0.recurrence.instant == occurrence.start || ($0.recurrence.day != nil && $0.recurrence.day == day)
        }) {
            return nil
        }
        let future = overrides.filter { $0.recurrence.thisAndFuture && $0.recurrence.instant < occurrence.start }
        guard let latest = future.max(by: { $0.recurrence.instant < $1.recurrence.instant }) else {
            return series.busy ? occurrence : nil
        }
        guard latest.event.busy else { return nil }
        let shift = Event.instant(latest.event.start, in: latest.event.zone).timeIntervalSince(
            latest.recurrence.instant)
        return (occurrence.start.addingTimeInterval(shift), latest.event.length)
    }

    /// What is left of a file's expansion: steps, and time until the deadline.
    struct Budget {
        var steps: Int
        let deadline: ContinuousClock.Instant
        let limit: Duration

        /// Takes one step; throws when the steps or the time are spent.
        mutating func step(_ eventSteps: Int) throws(FileError) {
            steps -= 1
            guard eventSteps <= maximumSteps, steps >= 0 else {
                throw FileError(
                    description: "repeats too often to expand (RRULE over \(maximumSteps) steps to reach the range)")
            }
            try checkTime()
        }

        func checkTime() throws(FileError) {
            guard ContinuousClock.now <= deadline else {
                throw FileError(
                    description:
                        "was not expanded: the file's repeating events took over \(limit) to expand (RRULE too costly)"
                )
            }
        }
    }

    /// The file's text without its events (the calendar's own properties, its time zones), and
    /// each top-level `VEVENT` (with what it holds, such as alarms) on its own. Lines are matched
    /// ignoring case, as RFC 5545 asks. Blank lines are left out: they have no place in
    /// iCalendar, and some writers put one inside a folded line ("VERSION", blank, " :2.0"),
    /// which libical would read as two broken lines.
    public static func split(_ text: String) -> (skeleton: String, events: [String]) {
        var skeleton: [Substring] = []
        var events: [String] = []
        var current: [Substring] = []
        var depth = 0
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            // Only a short line beginning with B or E can open or close a component: the rest
            // (nearly all of a file) are not looked at again.
            let first = line.utf8.first ?? 0
            let marker =
                line.utf8.count <= 40 && (first | 0x20 == UInt8(ascii: "b") || first | 0x20 == UInt8(ascii: "e"))
            let trimmed = marker ? line.trimmingCharacters(in: .whitespaces).uppercased() : ""
            if depth == 0 {
                if trimmed == "BEGIN:VEVENT" {
                    depth = 1
                    current = [line]
                } else {
                    skeleton.append(line)
                }
                continue
            }
            current.append(line)
            if trimmed.hasPrefix("BEGIN:") {
                depth += 1
            } else if trimmed.hasPrefix("END:") {
                depth -= 1
                if depth == 0 { events.append(current.joined(separator: "\r\n") + "\r\n") }
            }
        }
        // An event left open at the end of the file is still read.
        if depth > 0 { events.append(current.joined(separator: "\r\n") + "\r\nEND:VEVENT\r\n") }
        let hasContent = skeleton.contains { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return (hasContent ? skeleton.joined(separator: "\r\n") + "\r\n" : "", events)
    }
}
