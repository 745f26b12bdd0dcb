import CLibICal
import Foundation
import Synchronization

/// The household's zone as a `VTIMEZONE`, for times written on its wall clock with `TZID`.
///
/// A repeating time written in UTC moves an hour at each daylight-saving change (a daily 08:00
/// habit in London showed at 07:00 from November: issue 63); written as `DTSTART;TZID=Europe/
/// London:…T080000` it stays at 08:00, and RFC 5545 §3.6.5 asks for the zone's `VTIMEZONE` in the
/// same calendar. libical builds it from the system's zoneinfo (Debian's tzdata, so its rules
/// are IANA's); its `TZID` becomes the IANA name calendar apps know (libical prefixes its own),
/// and of its observances only those still in force from `Self.fromYear` on are kept (libical
/// writes every rule since 1847: 386 lines for London, 41 kept; Tokyo keeps its standard time of
/// 1951 on).
public enum CalendarTimeZone {
    /// Observances that end before this year are left out.
    static let fromYear: Int32 = 2000

    private static let cache = Mutex<[String: String]>([:])

    /// The `VTIMEZONE` text of `zone`, or `nil` for UTC and a zone libical does not know.
    public static func text(_ zone: TimeZone) -> String? {
        if let kept = cache.withLock({ $0[zone.identifier] }) { return kept }
        _ = LibICal.ready
        guard let component = component(zone) else { return nil }
        defer { icalcomponent_free(component) }
        let text = LibICal.text(component)
        cache.withLock { $0[zone.identifier] = text }
        return text
    }

    /// Whether times in `zone` are written with its `TZID` (every zone but UTC that libical knows).
    public static func writesTZID(_ zone: TimeZone) -> Bool { text(zone) != nil }

    /// A new `VTIMEZONE` (the caller frees it).
    private static func component(_ zone: TimeZone) -> OpaquePointer? {
        guard zone.secondsFromGMT() != 0 || zone.nextDaylightSavingTimeTransition != nil,
            let builtin = icaltimezone_get_builtin_timezone(zone.identifier),
            let source = icaltimezone_get_component(builtin), let component = icalcomponent_new_clone(source)
        else { return nil }
        if let tzid = icalcomponent_get_first_property(component, ICAL_TZID_PROPERTY) {
            icalproperty_set_tzid(tzid, zone.identifier)
        }
        var observances: [(component: OpaquePointer, last: Int)] = []
        var child = icalcomponent_get_first_component(component, ICAL_ANY_COMPONENT)
        while let current = child {
            observances.append((current, lastOnset(current)))
            child = icalcomponent_get_next_component(component, ICAL_ANY_COMPONENT)
        }
        // Those with an onset from the cutoff on, and the one in force at the cutoff (the latest
        // onset before it: Tokyo's standard time since 1951, London's from the 1990s' rules).
        let cutoff = Int(fromYear) * 10_000
        let inForce = observances.filter { $0.last < cutoff }.max { $0.last < $1.last }?.component
        for observance in observances where observance.last < cutoff && observance.component != inForce {
            icalcomponent_remove_component(component, observance.component)
            icalcomponent_free(observance.component)
        }
        return component
    }

    /// An observance's last onset as YYYYMMDD: its RRULE's UNTIL (none: for ever), its last
    /// RDATE, else its DTSTART.
    private static func lastOnset(_ observance: OpaquePointer) -> Int {
        func day(_ time: icaltimetype) -> Int { Int(time.year) * 10_000 + Int(time.month) * 100 + Int(time.day) }
        var last = day(icalcomponent_get_dtstart(observance))
        if let rule = icalcomponent_get_first_property(observance, ICAL_RRULE_PROPERTY) {
            let until = icalproperty_get_rrule(rule).until
            return icaltime_is_null_time(until) != 0 ? Int.max : max(last, day(until))
        }
        var date = icalcomponent_get_first_property(observance, ICAL_RDATE_PROPERTY)
        while let current = date {
            last = max(last, day(icalproperty_get_rdate(current).time))
            date = icalcomponent_get_next_property(observance, ICAL_RDATE_PROPERTY)
        }
        return last
    }
}
