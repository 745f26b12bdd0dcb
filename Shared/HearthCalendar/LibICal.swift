import CLibICal
import Foundation
import HearthCore

/// libical as every part of HearthCalendar uses it.
enum LibICal {
    /// libical aborts the process on an error by default; Hearth's rules are built from checked
    /// values and files come from people, and neither may take a service down. Touch this before
    /// any libical call: a `static let` runs exactly once, thread-safely.
    static let ready: Void = icalerror_set_errors_are_fatal(0)

    /// Every component of `kind` in `component` (itself included), in file order, not looking
    /// inside those found (a `VEVENT`'s `VALARM`s are its own).
    static func components(_ kind: icalcomponent_kind, in component: OpaquePointer) -> [OpaquePointer] {
        if icalcomponent_isa(component) == kind { return [component] }
        var found: [OpaquePointer] = []
        var child = icalcomponent_get_first_component(component, ICAL_ANY_COMPONENT)
        while let current = child {
            found += components(kind, in: current)
            child = icalcomponent_get_next_component(component, ICAL_ANY_COMPONENT)
        }
        return found
    }

    /// A new `VCALENDAR` (the caller frees it) with VERSION 2.0, PRODID `-//Hearth//product//EN`,
    /// `method` if given, and its name for calendar apps (X-WR-CALNAME).
    static func calendar(product: String, method: icalproperty_method? = nil, name: String) -> OpaquePointer {
        let calendar = icalcomponent_new_vcalendar()!
        icalcomponent_add_property(calendar, icalproperty_new_version("2.0"))
        icalcomponent_add_property(calendar, icalproperty_new_prodid("-//Hearth//\(product)//EN"))
        if let method { icalcomponent_add_property(calendar, icalproperty_new_method(method)) }
        let calendarName = icalproperty_new_x(name)!
        icalproperty_set_x_name(calendarName, "X-WR-CALNAME")
        icalcomponent_add_property(calendar, calendarName)
        return calendar
    }

    /// A component's text.
    static func text(_ component: OpaquePointer) -> String {
        guard let text = icalcomponent_as_ical_string_r(component) else { return "" }
        defer { icalmemory_free_buffer(text) }
        return String(cString: text)
    }

    /// An instant as a UTC DATE-TIME, to the second.
    static func utc(_ date: Date) -> icaltimetype {
        icaltime_from_timet_with_zone(
            time_t(date.timeIntervalSince1970.rounded(.down)), 0, icaltimezone_get_utc_timezone())
    }

    /// An instant as a DATE-TIME on `zone`'s wall clock (converted by Foundation, not libical),
    /// for a property that names the zone with `TZID`.
    static func wall(_ date: Date, in zone: TimeZone) -> icaltimetype {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        var value = icaltime_null_time()
        (value.year, value.month, value.day) = (Int32(parts.year!), Int32(parts.month!), Int32(parts.day!))
        (value.hour, value.minute, value.second) = (Int32(parts.hour!), Int32(parts.minute!), Int32(parts.second!))
        value.is_date = 0
        return value
    }

    /// A day as a DATE, or with `time` as a floating DATE-TIME (the household's wall clock).
    static func floating(_ day: LocalDate, _ time: LocalTime? = nil) -> icaltimetype {
        var value = icaltime_null_time()
        (value.year, value.month, value.day, value.is_date) = (Int32(day.year), Int32(day.month), Int32(day.day), 1)
        if let time {
            (value.hour, value.minute, value.second) = (Int32(time.hour), Int32(time.minute), Int32(time.second))
            value.is_date = 0
        }
        return value
    }

    /// `components` as one calendar's text (`calendar` takes them), or as their own texts one
    /// after another, without a calendar around them (for a feed that joins several); freed
    /// either way.
    static func text(_ components: [OpaquePointer], in calendar: OpaquePointer?) -> String {
        guard let calendar else {
            defer { for component in components { icalcomponent_free(component) } }
            return components.map(text).joined()
        }
        defer { icalcomponent_free(calendar) }
        for component in components { icalcomponent_add_component(calendar, component) }
        return text(calendar)
    }
}
