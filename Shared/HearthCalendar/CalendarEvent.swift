import CLibICal
import Foundation
import HearthCore

extension CalendarFile {
    /// One `VEVENT`, read as leniently as RFC 5545 asks of readers: an empty or malformed
    /// property, an unknown one or a parameter libical does not know is a warning on the event
    /// (`warnings`), never its refusal. An event is refused only when it cannot be placed in time:
    /// no `DTSTART`, or one that is not a date or time.
    struct Event {
        let uid: String
        /// The file gave no UID: `uid` is derived from the event's content, so a re-import of the
        /// same file replaces it.
        let derivedUID: Bool
        let summary: String
        /// The zone its times repeat in (its DTSTART's, or floating).
        let zone: TimeZone
        let allDay: Bool
        /// DTSTART as a wall time in `zone`.
        let start: (date: LocalDate, time: LocalTime)
        let length: TimeInterval
        let busy: Bool
        /// Every RRULE, as text (read again to expand: the event outlives its libical
        /// component); several are a union (RFC 5545 §3.8.5.3).
        let rules: [String]
        /// RDATEs, each with its own length when given as a PERIOD (RFC 5545 §3.8.5.2).
        let extra: [(start: Date, length: TimeInterval?)]
        let exceptions: Set<Date>
        /// EXDATEs given as dates against a timed series: every occurrence on those days goes.
        let exceptionDays: Set<LocalDate>
        let recurrence: Recurrence?
        /// Which version of its UID this is (RFC 5545 §3.8.7.4, §3.8.7.3, §3.8.7.2): of two
        /// components with one UID (and one RECURRENCE-ID, or none), the higher SEQUENCE wins,
        /// then the later LAST-MODIFIED, then the later DTSTAMP.
        let version: Version
        /// What was wrong but did not stop the event.
        private(set) var warnings: [String] = []

        /// A `RECURRENCE-ID`: the occurrence this event replaces (and, with
        /// `RANGE=THISANDFUTURE`, every later one).
        struct Recurrence {
            let instant: Date
            /// Given as a DATE: it names its series' occurrence on that day, whatever the time.
            let day: LocalDate?
            let thisAndFuture: Bool
        }

        /// SEQUENCE, LAST-MODIFIED and DTSTAMP, compared in that order.
        struct Version: Comparable {
            let sequence: Int
            let modified: Date
            let stamp: Date

            static func < (lhs: Version, rhs: Version) -> Bool {
                (lhs.sequence, lhs.modified, lhs.stamp) < (rhs.sequence, rhs.modified, rhs.stamp)
            }
        }

        init(_ component: OpaquePointer, zones: inout CalendarZones) throws(FileError) {
            var warnings: [String] = []
            for error in Self.properties(component, ICAL_XLICERROR_PROPERTY) {
                warnings.append(
                    icalproperty_get_xlicerror(error).map { Self.plainParseError(String(cString: $0)) }
                        ?? "a malformed line")
            }
            guard let startProperty = Self.firstProperty(component, ICAL_DTSTART_PROPERTY) else {
                // libical drops a DTSTART it cannot read and says why in an X-LIC-ERROR.
                let why = warnings.first { $0.contains("DTSTART") }.map { " (\($0))" } ?? ""
                throw FileError(description: "has no usable DTSTART\(why), so it cannot be placed in time")
            }
            let dtstart = icalproperty_get_dtstart(startProperty)
            guard icaltime_is_null_time(dtstart) == 0, icaltime_is_valid_time(dtstart) != 0 else {
                throw FileError(description: "has a DTSTART that is not a date or time")
            }
            if let text = icalcomponent_get_uid(component).map({ String(cString: $0) }), !text.isEmpty {
                (uid, derivedUID) = (text, false)
            } else {
                (uid, derivedUID) = (Self.derivedUID(component), true)
            }
            summary = icalcomponent_get_summary(component).map { String(cString: $0) } ?? ""
            allDay = dtstart.is_date != 0
            var wall = try Self.wall(dtstart, field: "DTSTART")
            var zone = zones.zone(of: startProperty, time: dtstart) ?? zones.floating
            // Google writes a series in UTC with the calendar's zone beside it (X-WR-TIMEZONE): it
            // repeats at the same local time there.
            if let calendarZone = zones.calendarZone, icaltime_is_utc(dtstart) != 0 {
                let instant = Self.instant(wall, in: zone)
                wall = Self.wall(of: instant, in: calendarZone)
                zone = calendarZone
            }
            (start, self.zone) = (wall, zone)
            let begin = Self.instant(start, in: zone)
            var length: TimeInterval
            if let endProperty = Self.firstProperty(component, ICAL_DTEND_PROPERTY),
                case let dtend = icalproperty_get_dtend(endProperty), icaltime_is_null_time(dtend) == 0,
                let endWall = try? Self.wall(dtend, field: "DTEND")
            {
                let end = Self.instant(endWall, in: zones.zone(of: endProperty, time: dtend) ?? zones.floating)
                guard end >= begin else { throw FileError(description: "ends (DTEND) before it starts (DTSTART)") }
                length = end.timeIntervalSince(begin)
            } else if let durationProperty = Self.firstProperty(component, ICAL_DURATION_PROPERTY) {
                length = TimeInterval(icaldurationtype_as_int(icalproperty_get_duration(durationProperty)))
                if length < 0 {
                    warnings.append("has a negative DURATION: read as none")
                    length = 0
                }
            } else {
                // RFC 5545 §3.6.1: a date-only event lasts the day; a timed one takes no time.
                length = allDay ? 86_400 : 0
            }
            self.length = length
            let transparent =
                Self.firstProperty(component, ICAL_TRANSP_PROPERTY).map {
                    let transp = icalproperty_get_transp($0)
                    return transp == ICAL_TRANSP_TRANSPARENT || transp == ICAL_TRANSP_TRANSPARENTNOCONFLICT
                } ?? false
            busy = !transparent && icalcomponent_get_status(component) != ICAL_STATUS_CANCELLED
            var rules: [String] = []
            let replacesOne =
                Self.firstProperty(component, ICAL_RECURRENCEID_PROPERTY).map { property in
                    icalproperty_get_first_parameter(property, ICAL_RANGE_PARAMETER).map(icalparameter_get_range)
                        != ICAL_RANGE_THISANDFUTURE
                } ?? false
            for property in Self.properties(component, ICAL_RRULE_PROPERTY) {
                // An override of one occurrence replaces that one and does not repeat, even when
                // it carries its series' RRULE (Evolution and Outlook write it): issue 63.
                if replacesOne {
                    warnings.append("replaces one occurrence (RECURRENCE-ID) but carries an RRULE: read as that one")
                    break
                }
                let rule = icalproperty_get_rrule(property)
                guard rule.freq != ICAL_NO_RECURRENCE, let text = icalproperty_get_value_as_string_r(property) else {
                    warnings.append("has an RRULE libical cannot read: left out")
                    continue
                }
                defer { icalmemory_free_buffer(text) }
                try Self.checkCost(rule, text: String(cString: text))
                rules.append(String(cString: text))
            }
            self.rules = rules
            var extra: [(Date, TimeInterval?)] = []
            for property in Self.properties(component, ICAL_RDATE_PROPERTY) {
                let value = icalproperty_get_rdate(property)
                let isPeriod = icaltime_is_null_time(value.time) != 0
                let time = isPeriod ? value.period.start : value.time
                guard icaltime_is_null_time(time) == 0, let rdate = try? Self.wall(time, field: "RDATE") else {
                    warnings.append("has an RDATE that is not a date or time: left out")
                    continue
                }
                let rdateZone = zones.zone(of: property, time: time) ?? zone
                let instant = Self.instant(rdate, in: rdateZone)
                var own: TimeInterval?
                if isPeriod {
                    if icaltime_is_null_time(value.period.end) == 0,
                        let end = try? Self.wall(value.period.end, field: "RDATE")
                    {
                        own = max(0, Self.instant(end, in: rdateZone).timeIntervalSince(instant))
                    } else {
                        own = TimeInterval(max(0, icaldurationtype_as_int(value.period.duration)))
                    }
                }
                extra.append((instant, own))
            }
            self.extra = replacesOne ? [] : extra
            var excluded: Set<Date> = []
            var excludedDays: Set<LocalDate> = []
            for property in Self.properties(component, ICAL_EXDATE_PROPERTY) {
                let value = icalproperty_get_exdate(property)
                guard icaltime_is_null_time(value) == 0, let exdate = try? Self.wall(value, field: "EXDATE") else {
                    warnings.append("has an EXDATE that is not a date or time: left out")
                    continue
                }
                if value.is_date != 0 && !allDay { excludedDays.insert(exdate.date) }
                excluded.insert(Self.instant(exdate, in: zones.zone(of: property, time: value) ?? zone))
            }
            (exceptions, exceptionDays) = (excluded, excludedDays)
            if let property = Self.firstProperty(component, ICAL_RECURRENCEID_PROPERTY),
                case let value = icalproperty_get_recurrenceid(property), icaltime_is_null_time(value) == 0,
                let id = try? Self.wall(value, field: "RECURRENCE-ID")
            {
                let range = icalproperty_get_first_parameter(property, ICAL_RANGE_PARAMETER).map {
                    icalparameter_get_range($0)
                }
                recurrence = Recurrence(
                    instant: Self.instant(id, in: zones.zone(of: property, time: value) ?? zone),
                    day: value.is_date != 0 ? id.date : nil, thisAndFuture: range == ICAL_RANGE_THISANDFUTURE)
            } else {
                recurrence = nil
            }
            let time = { (kind: icalproperty_kind, read: (OpaquePointer) -> icaltimetype) -> Date in
                guard let property = Self.firstProperty(component, kind), case let value = read(property),
                    icaltime_is_null_time(value) == 0
                else { return .distantPast }
                return Date(timeIntervalSince1970: TimeInterval(icaltime_as_timet(value)))
            }
            version = Version(
                sequence: Int(icalcomponent_get_sequence(component)),
                modified: time(ICAL_LASTMODIFIED_PROPERTY, icalproperty_get_lastmodified),
                stamp: time(ICAL_DTSTAMP_PROPERTY, icalproperty_get_dtstamp))
            self.warnings = warnings
        }

        /// A UID for an event that has none, from its content: the same event in a file read
        /// again gets the same one (`FNV1a` of its text: it names, it does not protect).
        private static func derivedUID(_ component: OpaquePointer) -> String {
            "hearth-derived-" + String(FNV1a.hash(LibICal.text(component).utf8), radix: 16)
        }

        /// Whether `recurrence` names one of this series' occurrences (by its instant, or by its
        /// day when given as a DATE), looking a day either side of it.
        func hasOccurrence(at recurrence: Recurrence, budget: inout Budget) throws(FileError) -> Bool {
            let day = recurrence.day ?? self.day(of: recurrence.instant)
            let near = try occurrences(from: day.adding(days: -1), through: day.adding(days: 1), budget: &budget)
            return near.contains { occurrence in
                occurrence.start == recurrence.instant
                    || recurrence.day.map { self.day(of: occurrence.start) == $0 } == true
            }
        }

        /// Every occurrence that starts on `from...through` (or began up to its length before),
        /// with its length: DTSTART (the first instance, RFC 5545 §3.8.5.3), each RRULE's and each
        /// RDATE, less the EXDATEs.
        func occurrences(
            from: LocalDate, through: LocalDate, budget: inout Budget
        ) throws(FileError) -> [(start: Date, length: TimeInterval)] {
            var walls = [start]
            let lookBack = from.adding(days: -Int((length / 86_400).rounded(.up)) - 1)
            for text in rules {
                var rule = icalrecurrencetype_from_string(text)
                guard rule.freq != ICAL_NO_RECURRENCE else { continue }
                let floating = icaltimetype(
                    year: Int32(start.date.year), month: Int32(start.date.month), day: Int32(start.date.day),
                    hour: Int32(start.time.hour), minute: Int32(start.time.minute), second: Int32(start.time.second),
                    is_date: allDay ? 1 : 0, is_daylight: 0, zone: nil)
                // A rule's UNTIL in UTC is the series' last instant: compared with its wall times,
                // it is that instant's wall time in the series' zone (a Vienna 10:00 series
                // UNTIL=…T080000Z in summer ends with that day's occurrence).
                if icaltime_is_null_time(rule.until) == 0, rule.until.is_date == 0, icaltime_is_utc(rule.until) != 0,
                    let until = try? Self.wall(rule.until, field: "UNTIL")
                {
                    let local = Self.wall(of: Self.instant(until, in: TimeZone(identifier: "UTC")!), in: zone)
                    (rule.until.year, rule.until.month, rule.until.day) = (
                        Int32(local.date.year), Int32(local.date.month), Int32(local.date.day)
                    )
                    (rule.until.hour, rule.until.minute, rule.until.second) = (
                        Int32(local.time.hour), Int32(local.time.minute), Int32(local.time.second)
                    )
                }
                rule.until.zone = nil
                try budget.checkTime()
                guard let iterator = icalrecur_iterator_new(rule, floating) else {
                    throw FileError(description: "has an RRULE libical cannot expand")
                }
                defer { icalrecur_iterator_free(iterator) }
                // Jump near the range when the rule allows (not with COUNT, which counts from DTSTART).
                if rule.count == 0, lookBack > start.date {
                    var jump = floating
                    (jump.year, jump.month, jump.day) = (
                        Int32(lookBack.year), Int32(lookBack.month), Int32(lookBack.day)
                    )
                    icalrecur_iterator_set_start(iterator, jump)
                }
                var steps = 0
                var found = 0
                while true {
                    steps += 1
                    try budget.step(steps)
                    let next = icalrecur_iterator_next(iterator)
                    guard icaltime_is_null_time(next) == 0, let wall = try? Self.wall(next, field: "RRULE") else {
                        break
                    }
                    if wall.date > through { break }
                    if wall.date >= lookBack {
                        walls.append(wall)
                        found += 1
                    }
                    if found > maximumOccurrences {
                        throw FileError(
                            description:
                                "repeats more than \(maximumOccurrences) times in the range (RRULE too frequent)")
                    }
                }
            }
            var lengths: [Date: TimeInterval] = [:]
            for wall in walls where !exceptionDays.contains(wall.date) {
                lengths[Self.instant(wall, in: zone)] = length
            }
            for (instant, own) in extra { lengths[instant] = own ?? length }
            for instant in exceptions { lengths[instant] = nil }
            return lengths.map { (start: $0.key, length: $0.value) }.sorted { $0.start < $1.start }
        }

        /// The wall day of `instant` in the event's zone (for a DATE `RECURRENCE-ID`).
        func day(of instant: Date) -> LocalDate { Self.wall(of: instant, in: zone).date }

        /// Refuses a rule finer than daily that also filters (`BY…`): libical steps it a second,
        /// minute or hour at a time until the filters match, so `FREQ=SECONDLY;BYMONTH=2;
        /// BYMONTHDAY=29` searches years of seconds for each occurrence (a 150-byte file held an
        /// import for over 100 s; `FREQ=MINUTELY;BYDAY=MO;BYHOUR=9` from year 13 for 86 s).
        /// Calendars write such series as DAILY or WEEKLY rules; an unfiltered HOURLY to
        /// SECONDLY rule steps once an occurrence and stays bounded by `maximumSteps`.
        private static func checkCost(_ rule: icalrecurrencetype, text: String) throws(FileError) {
            guard
                rule.freq == ICAL_SECONDLY_RECURRENCE || rule.freq == ICAL_MINUTELY_RECURRENCE
                    || rule.freq == ICAL_HOURLY_RECURRENCE
            else { return }
            guard !text.split(separator: ";").contains(where: { $0.uppercased().hasPrefix("BY") }) else {
                throw FileError(
                    description:
                        "has an RRULE finer than daily with filters (\(text)): Hearth expands FREQ=HOURLY, "
                        + "MINUTELY and SECONDLY only without BY… parts")
            }
        }

        static func instant(_ wall: (date: LocalDate, time: LocalTime), in zone: TimeZone) -> Date {
            HouseholdTime(timeZone: zone).instant(wall.date, wall.time)
        }

        /// `instant` as a wall date and time in `zone`.
        static func wall(of instant: Date, in zone: TimeZone) -> (date: LocalDate, time: LocalTime) {
            (LocalDate(instant, in: zone), LocalTime(instant, in: zone))
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

        private static func firstProperty(_ component: OpaquePointer, _ kind: icalproperty_kind) -> OpaquePointer? {
            icalcomponent_get_first_property(component, kind)
        }

        /// libical's X-LIC-ERROR text as a person reads it: its "Removing entire property:" tail
        /// (with nothing after it for an empty value) becomes what was dropped. "No value for
        /// DESCRIPTION property. Removing entire property:" reads "DESCRIPTION has no value: left
        /// out"; "Parse error in value string for DTSTART property. Removing entire property:
        /// nope" reads "Parse error in value string for DTSTART property ('nope'): left out".
        static func plainParseError(_ text: String) -> String {
            guard let match = text.firstMatch(of: /^(?<head>.*?)\.?\s*Removing entire property:?\s*(?<value>.*)$/)
            else { return text }
            var head = String(match.head)
            if let empty = head.firstMatch(of: /^No value for (?<name>[A-Za-z0-9-]+) property$/) {
                head = "\(empty.name) has no value"
            }
            let value = match.value.trimmingCharacters(in: .whitespaces)
            return head + (value.isEmpty ? "" : " ('\(value.prefix(80))')") + ": left out"
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
