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
    }

    /// What a file gave: busy times, events it reported and left out, and how many were not busy.
    public struct Reading: Sendable {
        public var busy: [Busy] = []
        /// Every UID the file holds, busy or not (a re-import replaces these).
        public var uids: Set<String> = []
        /// `event N (UID …)` and what was wrong with it.
        public var errors: [(event: String, reason: String)] = []
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
        guard let root = icalparser_parse_string(text) else {
            throw FileError(description: "could not be parsed as iCalendar")
        }
        defer { icalcomponent_free(root) }
        var events: [OpaquePointer] = []
        collectEvents(root, into: &events)
        guard !events.isEmpty || icalcomponent_isa(root) == ICAL_VCALENDAR_COMPONENT else {
            throw FileError(description: "holds no VCALENDAR")
        }
        var reading = Reading()
        // Overrides (RECURRENCE-ID) replace one occurrence of their UID's series.
        var overridden: [String: Set<Date>] = [:]
        var parsed: [(index: Int, event: Event)] = []
        let steps = events.count * 2
        for (index, component) in events.enumerated() {
            if index % 500 == 0 { progress(index, steps) }
            let uid = icalcomponent_get_uid(component).map { String(cString: $0) } ?? ""
            let name = "event \(index + 1)" + (uid.isEmpty ? "" : " (UID \(uid))")
            do {
                let event = try Event(component, zone: zone)
                reading.uids.insert(event.uid)
                if let recurrence = event.recurrenceID { overridden[event.uid, default: []].insert(recurrence) }
                parsed.append((index, event))
            } catch {
                if !uid.isEmpty { reading.uids.insert(uid) }
                reading.errors.append((name, error.description))
            }
        }
        let firstInstant = HouseholdTime(timeZone: zone).instant(from, LocalTime(hour: 0, minute: 0)!)
        let lastInstant = HouseholdTime(timeZone: zone).instant(through.adding(days: 1), LocalTime(hour: 0, minute: 0)!)
        var budget = Budget(steps: maximumFileSteps, deadline: ContinuousClock.now + timeLimit, limit: timeLimit)
        for (done, (index, event)) in parsed.enumerated() {
            if done % 500 == 0 { progress(events.count + done * events.count / max(parsed.count, 1), steps) }
            guard event.busy else {
                reading.free += 1
                continue
            }
            do {
                let skip = event.recurrenceID == nil ? overridden[event.uid] ?? [] : []
                for start in try event.occurrences(from: from, through: through, budget: &budget)
                where !skip.contains(start) {
                    let end = start.addingTimeInterval(event.length)
                    guard end > firstInstant, start < lastInstant else { continue }
                    reading.busy.append(
                        Busy(uid: event.uid, summary: event.summary, start: start, end: end, allDay: event.allDay))
                }
            } catch {
                reading.errors.append(("event \(index + 1) (UID \(event.uid))", error.description))
            }
        }
        reading.busy.sort { ($0.start, $0.uid) < ($1.start, $1.uid) }
        return reading
    }

    /// What is left of a file's expansion: steps, and time until the deadline.
    fileprivate struct Budget {
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

    private static func collectEvents(_ component: OpaquePointer, into events: inout [OpaquePointer]) {
        if icalcomponent_isa(component) == ICAL_VEVENT_COMPONENT {
            events.append(component)
            return
        }
        var child = icalcomponent_get_first_component(component, ICAL_ANY_COMPONENT)
        while let current = child {
            collectEvents(current, into: &events)
            child = icalcomponent_get_next_component(component, ICAL_ANY_COMPONENT)
        }
    }

    /// One `VEVENT`, read and checked.
    private struct Event {
        let uid: String
        let summary: String
        let zone: TimeZone
        let allDay: Bool
        /// DTSTART as written (floating) and as an instant.
        let start: (date: LocalDate, time: LocalTime)
        let length: TimeInterval
        let busy: Bool
        let rule: icalrecurrencetype?
        let extraDates: [(date: LocalDate, time: LocalTime)]
        let exceptions: Set<Date>
        let recurrenceID: Date?

        init(_ component: OpaquePointer, zone householdZone: TimeZone) throws(FileError) {
            if let error = Self.firstProperty(component, ICAL_XLICERROR_PROPERTY) {
                let text = icalproperty_get_xlicerror(error).map { String(cString: $0) } ?? "a malformed line"
                throw FileError(description: text)
            }
            guard let uidText = icalcomponent_get_uid(component).map({ String(cString: $0) }), !uidText.isEmpty else {
                throw FileError(description: "has no UID")
            }
            uid = uidText
            summary = icalcomponent_get_summary(component).map { String(cString: $0) } ?? ""
            guard let startProperty = Self.firstProperty(component, ICAL_DTSTART_PROPERTY) else {
                throw FileError(description: "has no DTSTART")
            }
            let dtstart = icalproperty_get_dtstart(startProperty)
            guard icaltime_is_null_time(dtstart) == 0, icaltime_is_valid_time(dtstart) != 0 else {
                throw FileError(description: "has a DTSTART that is not a date or time")
            }
            zone = try Self.zone(of: startProperty, time: dtstart, household: householdZone)
            allDay = dtstart.is_date != 0
            start = try Self.wall(dtstart, field: "DTSTART")
            let begin = Self.instant(start, in: zone)
            if let endProperty = Self.firstProperty(component, ICAL_DTEND_PROPERTY) {
                let dtend = icalproperty_get_dtend(endProperty)
                let endZone = try Self.zone(of: endProperty, time: dtend, household: householdZone)
                let end = Self.instant(try Self.wall(dtend, field: "DTEND"), in: endZone)
                guard end >= begin else { throw FileError(description: "ends (DTEND) before it starts (DTSTART)") }
                length = end.timeIntervalSince(begin)
            } else if let durationProperty = Self.firstProperty(component, ICAL_DURATION_PROPERTY) {
                let seconds = icaldurationtype_as_int(icalproperty_get_duration(durationProperty))
                guard seconds >= 0 else { throw FileError(description: "has a negative DURATION") }
                length = TimeInterval(seconds)
            } else {
                // RFC 5545 §3.6.1: a date-only event lasts the day; a timed one takes no time.
                length = allDay ? 86_400 : 0
            }
            let transparent =
                Self.firstProperty(component, ICAL_TRANSP_PROPERTY).map {
                    let transp = icalproperty_get_transp($0)
                    return transp == ICAL_TRANSP_TRANSPARENT || transp == ICAL_TRANSP_TRANSPARENTNOCONFLICT
                } ?? false
            busy = !transparent && icalcomponent_get_status(component) != ICAL_STATUS_CANCELLED && length > 0
            if let property = Self.firstProperty(component, ICAL_RRULE_PROPERTY) {
                let parsed = icalproperty_get_rrule(property)
                try Self.checkCost(parsed, text: property)
                rule = parsed
            } else {
                rule = nil
            }
            var extra: [(LocalDate, LocalTime)] = []
            for property in Self.properties(component, ICAL_RDATE_PROPERTY) {
                let value = icalproperty_get_rdate(property)
                let time = icaltime_is_null_time(value.time) == 0 ? value.time : value.period.start
                extra.append(try Self.wall(time, field: "RDATE"))
            }
            extraDates = extra
            var excluded: Set<Date> = []
            for property in Self.properties(component, ICAL_EXDATE_PROPERTY) {
                let value = icalproperty_get_exdate(property)
                let exZone = try Self.zone(of: property, time: value, household: householdZone)
                excluded.insert(Self.instant(try Self.wall(value, field: "EXDATE"), in: exZone))
            }
            exceptions = excluded
            if let property = Self.firstProperty(component, ICAL_RECURRENCEID_PROPERTY) {
                let value = icalproperty_get_recurrenceid(property)
                let idZone = try Self.zone(of: property, time: value, household: householdZone)
                recurrenceID = Self.instant(try Self.wall(value, field: "RECURRENCE-ID"), in: idZone)
            } else {
                recurrenceID = nil
            }
        }

        /// The starts of every occurrence on `from...through`, expanded in floating time.
        func occurrences(from: LocalDate, through: LocalDate, budget: inout Budget) throws(FileError) -> [Date] {
            var walls = [start] + extraDates
            if var rule {
                let floating = icaltimetype(
                    year: Int32(start.date.year), month: Int32(start.date.month), day: Int32(start.date.day),
                    hour: Int32(start.time.hour), minute: Int32(start.time.minute), second: Int32(start.time.second),
                    is_date: allDay ? 1 : 0, is_daylight: 0, zone: nil)
                // A rule's UNTIL in UTC is compared with floating times as written: close enough
                // for busy times (a few hours at most at the series' end).
                rule.until.zone = nil
                try budget.checkTime()
                guard let iterator = icalrecur_iterator_new(rule, floating) else {
                    throw FileError(description: "has an RRULE libical cannot expand")
                }
                defer { icalrecur_iterator_free(iterator) }
                // Jump near the range when the rule allows (not with COUNT, which counts from DTSTART).
                let lookBack = from.adding(days: -Int((length / 86_400).rounded(.up)) - 1)
                if rule.count == 0, lookBack > start.date {
                    var jump = floating
                    (jump.year, jump.month, jump.day) = (
                        Int32(lookBack.year), Int32(lookBack.month), Int32(lookBack.day)
                    )
                    icalrecur_iterator_set_start(iterator, jump)
                }
                var steps = 0
                walls = extraDates
                while true {
                    steps += 1
                    try budget.step(steps)
                    let next = icalrecur_iterator_next(iterator)
                    guard icaltime_is_null_time(next) == 0, let wall = try? Self.wall(next, field: "RRULE") else {
                        break
                    }
                    if wall.date > through { break }
                    if wall.date >= lookBack { walls.append(wall) }
                    if walls.count > maximumOccurrences {
                        throw FileError(
                            description:
                                "repeats more than \(maximumOccurrences) times in the range (RRULE too frequent)")
                    }
                }
            }
            return Set(walls.map { Self.instant($0, in: zone) }).subtracting(exceptions).sorted()
        }

        /// Refuses a rule finer than daily that also filters (`BY…`): libical steps it a second,
        /// minute or hour at a time until the filters match, so `FREQ=SECONDLY;BYMONTH=2;
        /// BYMONTHDAY=29` searches years of seconds for each occurrence (a 150-byte file held an
        /// import for over 100 s; `FREQ=MINUTELY;BYDAY=MO;BYHOUR=9` from year 13 for 86 s).
        /// Calendars write such series as DAILY or WEEKLY rules; an unfiltered HOURLY to
        /// SECONDLY rule steps once an occurrence and stays bounded by `maximumSteps`.
        private static func checkCost(_ rule: icalrecurrencetype, text property: OpaquePointer) throws(FileError) {
            guard
                rule.freq == ICAL_SECONDLY_RECURRENCE || rule.freq == ICAL_MINUTELY_RECURRENCE
                    || rule.freq == ICAL_HOURLY_RECURRENCE,
                let value = icalproperty_get_value_as_string_r(property)
            else { return }
            defer { icalmemory_free_buffer(value) }
            let text = String(cString: value)
            guard !text.split(separator: ";").contains(where: { $0.uppercased().hasPrefix("BY") }) else {
                throw FileError(
                    description:
                        "has an RRULE finer than daily with filters (\(text)): Hearth expands FREQ=HOURLY, "
                        + "MINUTELY and SECONDLY only without BY… parts")
            }
        }

        private static func instant(_ wall: (date: LocalDate, time: LocalTime), in zone: TimeZone) -> Date {
            HouseholdTime(timeZone: zone).instant(wall.date, wall.time)
        }

        private static func wall(
            _ time: icaltimetype, field: String
        ) throws(FileError) -> (
            date: LocalDate, time: LocalTime
        ) {
            guard let date = LocalDate(year: Int(time.year), month: Int(time.month), day: Int(time.day)),
                let clock = time.is_date != 0
                    ? LocalTime(hour: 0, minute: 0)
                    : LocalTime(hour: Int(time.hour), minute: Int(time.minute), second: min(Int(time.second), 59))
            else { throw FileError(description: "has a \(field) that is not a real date and time") }
            return (date, clock)
        }

        /// The zone a time is written in: UTC (`Z`), its `TZID`, or the household's (floating).
        private static func zone(
            of property: OpaquePointer, time: icaltimetype, household: TimeZone
        ) throws(FileError)
            -> TimeZone
        {
            if icaltime_is_utc(time) != 0 { return TimeZone(identifier: "UTC")! }
            guard let parameter = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER),
                let tzid = icalparameter_get_tzid(parameter).map({ String(cString: $0) })
            else { return household }
            if let zone = TimeZone(identifier: tzid) { return zone }
            // Some writers prefix the IANA name (`/freeassociation.sourceforge.net/Europe/London`).
            let parts = tzid.split(separator: "/")
            for count in [3, 2, 1] where parts.count >= count {
                if let zone = TimeZone(identifier: parts.suffix(count).joined(separator: "/")) { return zone }
            }
            throw FileError(description: "uses an unknown time zone TZID=\(tzid)")
        }

        private static func firstProperty(_ component: OpaquePointer, _ kind: icalproperty_kind) -> OpaquePointer? {
            icalcomponent_get_first_property(component, kind)
        }

        private static func properties(_ component: OpaquePointer, _ kind: icalproperty_kind) -> [OpaquePointer] {
            var found: [OpaquePointer] = []
            var property = icalcomponent_get_first_property(component, kind)
            while let current = property {
                found.append(current)
                property = icalcomponent_get_next_property(component, kind)
            }
            return found
        }
    }
}
