import CLibICal
import Foundation
import HearthCore

/// Todos as an iCalendar file of `VTODO`s (RFC 5545 §3.6.2), through libical, for Thunderbird,
/// Tasks.org, Nextcloud Tasks and the like: `hearth todo export --format ics`.
///
/// Each todo is a `VTODO` with its id as UID: SUMMARY, DESCRIPTION, DUE (a date, or a date and
/// time in the household's zone, floating: a household's "8:00" wherever its devices are),
/// PRIORITY (high 1, medium 5, low 9, RFC 5545 §3.8.1.9), STATUS, CATEGORIES (its collection)
/// and, for a repeating one, its RRULE (`RSCALE=GREGORIAN;…;SKIP=BACKWARD` when month ends
/// clamp, RFC 7529). Each day a repeating todo was done is an override of that occurrence
/// (RECURRENCE-ID) with STATUS:COMPLETED; each subtask a `VTODO` of its own, RELATED-TO its todo
/// (RELTYPE=PARENT).
public enum TodoCalendar {
    /// The calendar text of `todos`, stamped `stamp` (DTSTAMP).
    public static func text(_ todos: [TodoView], stamp: Date, name: String) -> String {
        _ = LibICal.ready
        let calendar = icalcomponent_new_vcalendar()!
        defer { icalcomponent_free(calendar) }
        icalcomponent_add_property(calendar, icalproperty_new_version("2.0"))
        icalcomponent_add_property(calendar, icalproperty_new_prodid("-//Hearth//Todos//EN"))
        let calendarName = icalproperty_new_x(name)!
        icalproperty_set_x_name(calendarName, "X-WR-CALNAME")
        icalcomponent_add_property(calendar, calendarName)
        let dtstamp = utc(stamp)
        for todo in todos {
            icalcomponent_add_component(calendar, component(todo, stamp: dtstamp))
            for date in todo.completions ?? [] {
                guard let day = try? LocalDate(parsing: date, field: "date") else { continue }
                let done = component(todo, stamp: dtstamp, completed: true)
                let occurrence = wall(day, todo.time)
                icalcomponent_add_property(done, icalproperty_new_recurrenceid(occurrence))
                if let due = icalcomponent_get_first_property(done, ICAL_DUE_PROPERTY) {
                    icalproperty_set_due(due, occurrence)
                }
                icalcomponent_add_component(calendar, done)
            }
            for subtask in todo.subtasks {
                let child = icalcomponent_new_vtodo()!
                icalcomponent_add_property(child, icalproperty_new_uid(subtask.id))
                icalcomponent_add_property(child, icalproperty_new_dtstamp(dtstamp))
                icalcomponent_add_property(child, icalproperty_new_summary(subtask.title))
                icalcomponent_add_property(
                    child, icalproperty_new_status(subtask.completed ? ICAL_STATUS_COMPLETED : ICAL_STATUS_NEEDSACTION))
                let parent = icalproperty_new_relatedto(todo.id)!
                icalproperty_add_parameter(parent, icalparameter_new_reltype(ICAL_RELTYPE_PARENT))
                icalcomponent_add_property(child, parent)
                icalcomponent_add_component(calendar, child)
            }
        }
        guard let text = icalcomponent_as_ical_string_r(calendar) else { return "" }
        defer { free(text) }
        return String(cString: text)
    }

    /// One todo's `VTODO` (or, `completed`, an occurrence of it marked done).
    private static func component(_ todo: TodoView, stamp: icaltimetype, completed: Bool? = nil) -> OpaquePointer {
        let component = icalcomponent_new_vtodo()!
        icalcomponent_add_property(component, icalproperty_new_uid(todo.id))
        icalcomponent_add_property(component, icalproperty_new_dtstamp(stamp))
        icalcomponent_add_property(component, icalproperty_new_summary(todo.title))
        if let description = todo.description, !description.isEmpty {
            icalcomponent_add_property(component, icalproperty_new_description(description))
        }
        if let name = todo.collectionName {
            icalcomponent_add_property(component, icalproperty_new_categories(name))
        }
        let done = completed ?? todo.completed
        icalcomponent_add_property(
            component, icalproperty_new_status(done ? ICAL_STATUS_COMPLETED : ICAL_STATUS_NEEDSACTION))
        let priority: Int32 =
            switch Todos.Priority(rawValue: todo.priority) {
            case .high?: 1
            case .medium?: 5
            case .low?: 9
            default: 0
            }
        if priority > 0 { icalcomponent_add_property(component, icalproperty_new_priority(priority)) }
        guard let due = todo.due.flatMap({ try? LocalDate(parsing: $0, field: "due") }) else { return component }
        let start = wall(due, todo.time)
        icalcomponent_add_property(component, icalproperty_new_due(start))
        if completed == nil,
            let rule = Recurrence(todoRepeat: todo.repeat, due: todo.due, until: todo.until, monthEnd: todo.monthEnd)
        {
            // A repeating todo's series starts on its first due date (RFC 5545 §3.8.5.3: DTSTART).
            icalcomponent_add_property(component, icalproperty_new_dtstart(start))
            let recurrence = icalrecurrencetype_from_string(rule.rule)
            icalcomponent_add_property(component, icalproperty_new_rrule(recurrence))
        }
        return component
    }

    /// A due day, with its time when it has one, as floating local time.
    private static func wall(_ day: LocalDate, _ time: String?) -> icaltimetype {
        var value = icaltime_null_time()
        (value.year, value.month, value.day) = (Int32(day.year), Int32(day.month), Int32(day.day))
        if let time, let clock = try? LocalTime(parsing: time, field: "time") {
            (value.hour, value.minute, value.second) = (Int32(clock.hour), Int32(clock.minute), Int32(clock.second))
            value.is_date = 0
        } else {
            value.is_date = 1
        }
        return value
    }

    private static func utc(_ date: Date) -> icaltimetype {
        icaltime_from_timet_with_zone(
            time_t(date.timeIntervalSince1970.rounded(.down)), 0, icaltimezone_get_utc_timezone())
    }
}
