import CLibICal
import Foundation

/// The time zones of one iCalendar file, as Foundation's IANA zones: every time is resolved to
/// an instant by Foundation (`HouseholdTime`), never by libical, whose own conversion drifts
/// across daylight-saving changes.
///
/// A `TZID` is read, in order, as: an IANA name (`Europe/Berlin`; if the file's `VTIMEZONE` of
/// that name disagrees with IANA's rules, IANA's are used and a warning says so); an IANA name
/// behind a vendor prefix (`/mozilla.org/20070129_1/America/New_York`,
/// `/freeassociation.sourceforge.net/Tzfile/Europe/Berlin`, `custom_America/New_York`); a Windows
/// zone name as Outlook and Exchange write them (`W. Europe Standard Time`, `WindowsZones`); the
/// IANA zone whose offsets equal, day by day over the year in question, those of the file's own
/// `VTIMEZONE` of that name (`Western/Central Europe`, `/Europe/CUSTOM`). A `TZID` none of these
/// resolves is read as floating time, with a warning. Floating times are in the calendar's
/// `X-WR-TIMEZONE` (Google's exports) when it names a zone, else in the household's.
struct CalendarZones {
    /// The zone of floating times.
    let floating: TimeZone
    /// `X-WR-TIMEZONE`, when the file names a zone: its UTC times are also read as that zone's
    /// wall times, so a series written in UTC repeats at the same local time across a
    /// daylight-saving change, as Google Calendar means it.
    let calendarZone: TimeZone?
    /// The file's `VTIMEZONE` components by `TZID`.
    private let definitions: [String: OpaquePointer]
    private var resolved: [String: Resolution] = [:]
    /// Warnings about zones, once each.
    private(set) var warnings: [String] = []

    private enum Resolution {
        case zone(TimeZone)
        case floating
    }

    /// - Parameter root: the file without its events (`CalendarFile.split`), if it has more.
    init(root: OpaquePointer?, household: TimeZone) {
        var definitions: [String: OpaquePointer] = [:]
        var calendarZone: TimeZone?
        if let root {
            for component in LibICal.components(ICAL_VTIMEZONE_COMPONENT, in: root) {
                if let property = icalcomponent_get_first_property(component, ICAL_TZID_PROPERTY),
                    let tzid = icalproperty_get_tzid(property).map({ String(cString: $0) })
                {
                    definitions[tzid] = definitions[tzid] ?? component
                }
            }
            calendarZone =
                LibICal.components(ICAL_VCALENDAR_COMPONENT, in: root).lazy.compactMap(Self.calendarZone)
                .first
        }
        self.definitions = definitions
        self.calendarZone = calendarZone
        floating = calendarZone ?? household
    }

    /// A calendar's `X-WR-TIMEZONE`, when it names a zone.
    private static func calendarZone(_ calendar: OpaquePointer) -> TimeZone? {
        var property = icalcomponent_get_first_property(calendar, ICAL_X_PROPERTY)
        while let current = property {
            if icalproperty_get_x_name(current).map({ String(cString: $0).uppercased() }) == "X-WR-TIMEZONE",
                let value = icalproperty_get_x(current).map({ String(cString: $0) })
            {
                return named(value.trimmingCharacters(in: .whitespaces))
            }
            property = icalcomponent_get_next_property(calendar, ICAL_X_PROPERTY)
        }
        return nil
    }

    /// The zone a time is written in: UTC (`Z`), its `TZID` (`nil` when that is read as
    /// floating), or floating.
    mutating func zone(of property: OpaquePointer, time: icaltimetype) -> TimeZone? {
        if icaltime_is_utc(time) != 0 { return TimeZone(identifier: "UTC")! }
        guard let parameter = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER),
            let tzid = icalparameter_get_tzid(parameter).map({ String(cString: $0) })
        else { return nil }
        switch resolve(tzid, year: Int(time.year)) {
        case .zone(let zone): return zone
        case .floating: return nil
        }
    }

    private mutating func resolve(_ tzid: String, year: Int) -> Resolution {
        if let known = resolved[tzid] { return known }
        let resolution: Resolution
        if let zone = TimeZone(identifier: tzid) {
            if let definition = definitions[tzid], !Self.agrees(definition, with: zone, year: year) {
                warnings.append(
                    "the file's VTIMEZONE \(tzid) disagrees with the IANA zone of that name: IANA's rules are used")
            }
            resolution = .zone(zone)
        } else if let zone = Self.named(tzid) {
            resolution = .zone(zone)
        } else if let definition = definitions[tzid], let zone = Self.matching(definition, year: year, hint: tzid) {
            resolution = .zone(zone)
        } else {
            warnings.append(
                "unknown time zone TZID=\(tzid)\(definitions[tzid] == nil ? " (no VTIMEZONE)" : " (its VTIMEZONE matches no IANA zone)"): its times are read as floating, in \(floating.identifier)"
            )
            resolution = .floating
        }
        resolved[tzid] = resolution
        return resolution
    }

    /// An IANA zone a name gives directly, behind a vendor prefix, or as a Windows zone name.
    static func named(_ name: String) -> TimeZone? {
        let trimmed = name.trimmingCharacters(in: CharacterSet(charactersIn: "\"' "))
        if let zone = TimeZone(identifier: trimmed) { return zone }
        if let iana = WindowsZones.iana[trimmed], let zone = TimeZone(identifier: iana) { return zone }
        // A vendor prefix before the IANA name: `/mozilla.org/…/America/New_York`,
        // `/freeassociation.sourceforge.net/Tzfile/…`, `custom_America/New_York`, `posix/…`.
        let parts = trimmed.split(separator: "/").map(String.init)
        for count in [3, 2, 1] where parts.count >= count {
            var candidate = parts.suffix(count).joined(separator: "/")
            if candidate.hasPrefix("custom_") { candidate.removeFirst("custom_".count) }
            if count == 1, !candidate.contains("UTC"), !candidate.contains("GMT") { continue }
            if let zone = TimeZone(identifier: candidate) { return zone }
        }
        return nil
    }

    /// The offsets a libical zone gives at `instants` (only noon UTC is asked, far from any
    /// transition, where its drift cannot show).
    private static func offsets(_ zone: OpaquePointer, at instants: [Date]) -> [Int] {
        instants.map { instant in
            var time = icaltime_from_timet_with_zone(
                time_t(instant.timeIntervalSince1970), 0, icaltimezone_get_utc_timezone())
            var daylight: Int32 = 0
            return Int(icaltimezone_get_utc_offset_of_utc_time(zone, &time, &daylight))
        }
    }

    /// Noon UTC on every day of `year`.
    private static func days(of year: Int) -> [Date] {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        guard let first = utc.date(from: DateComponents(year: year, month: 1, day: 1, hour: 12)) else { return [] }
        return (0..<365).map { first.addingTimeInterval(Double($0) * 86_400) }
    }

    /// Whether a `VTIMEZONE` and an IANA zone give the same offsets on every day of `year`.
    private static func agrees(_ definition: OpaquePointer, with zone: TimeZone, year: Int) -> Bool {
        let days = days(of: year)
        guard let theirs = offsets(of: definition, days: days) else { return true }
        return zip(days, theirs).allSatisfy { zone.secondsFromGMT(for: $0) == $1 }
    }

    private static func offsets(of definition: OpaquePointer, days: [Date]) -> [Int]? {
        guard let clone = icalcomponent_new_clone(definition), let zone = icaltimezone_new() else { return nil }
        defer { icaltimezone_free(zone, 1) }
        guard icaltimezone_set_component(zone, clone) != 0 else { return nil }
        return offsets(zone, at: days)
    }

    /// The IANA zone whose offsets equal a `VTIMEZONE`'s on every day of `year`: one whose name
    /// ends the `TZID` first (`custom_America/New_York`), else the first in name order (zones
    /// that agree for a year give the same instants in it).
    private static func matching(_ definition: OpaquePointer, year: Int, hint: String) -> TimeZone? {
        let days = days(of: year)
        guard let theirs = offsets(of: definition, days: days), !theirs.isEmpty else { return nil }
        // A first pass on two days a month, then every day for the few zones left.
        let samples = days.indices.filter { $0 % 30 == 0 || $0 % 30 == 14 }
        var candidates = TimeZone.knownTimeZoneIdentifiers.sorted().compactMap(TimeZone.init(identifier:)).filter {
            zone in samples.allSatisfy { zone.secondsFromGMT(for: days[$0]) == theirs[$0] }
        }
        candidates = candidates.filter { zone in
            days.indices.allSatisfy { zone.secondsFromGMT(for: days[$0]) == theirs[$0] }
        }
        return candidates.first { hint.hasSuffix($0.identifier) } ?? candidates.first
    }
}
