import CLibICal

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
}
