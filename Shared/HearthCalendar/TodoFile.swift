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
/// (RECURRENCE-ID) with STATUS:COMPLETED, and each day skipped or paused an EXDATE (it is not due
/// that day, in every app's expansion); each subtask a `VTODO` of its own, RELATED-TO its todo
/// (RELTYPE=PARENT). A todo with a reminder carries a `VALARM` at its due time (TRIGGER
/// RELATED=END, PT0S: RFC 5545 §3.8.6.3 relates a VTODO's end to its DUE); one for a member,
/// `X-HEARTH-FOR` with the member's name (another app keeps it as it came, Hearth's import reads
/// it back).
public enum TodoFile {
    /// The calendar text of `todos`, stamped `stamp` (DTSTAMP).
    public static func text(_ todos: [TodoView], stamp: Date, name: String) -> String {
        _ = LibICal.ready
        return LibICal.text(vtodos(todos, stamp: stamp), in: LibICal.calendar(product: "Todos", name: name))
    }

    /// The `VTODO`s of `todos` alone, without a calendar around them (a feed joins several).
    public static func components(_ todos: [TodoView], stamp: Date) -> String {
        _ = LibICal.ready
        return LibICal.text(vtodos(todos, stamp: stamp), in: nil)
    }

    /// Each todo's `VTODO`, then one for each day it was done, then its subtasks'.
    private static func vtodos(_ todos: [TodoView], stamp: Date) -> [OpaquePointer] {
        let dtstamp = LibICal.utc(stamp)
        var components: [OpaquePointer] = []
        for todo in todos {
            components.append(component(todo, stamp: dtstamp))
            for date in todo.completions ?? [] {
                guard let day = try? LocalDate(parsing: date, field: "date") else { continue }
                let done = component(todo, stamp: dtstamp, completed: true)
                let occurrence = LibICal.floating(day, time(todo))
                icalcomponent_add_property(done, icalproperty_new_recurrenceid(occurrence))
                if let due = icalcomponent_get_first_property(done, ICAL_DUE_PROPERTY) {
                    icalproperty_set_due(due, occurrence)
                }
                components.append(done)
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
                components.append(child)
            }
        }
        return components
    }

    /// A todo's due time, if it has one.
    private static func time(_ todo: TodoView) -> LocalTime? {
        todo.time.flatMap { try? LocalTime(parsing: $0, field: "time") }
    }

    /// The property naming the member a todo is for.
    static let forProperty = "X-HEARTH-FOR"

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
        let start = LibICal.floating(due, time(todo))
        icalcomponent_add_property(component, icalproperty_new_due(start))
        if completed == nil,
            let rule = Recurrence(todoRepeat: todo.repeat, due: todo.due, until: todo.until, monthEnd: todo.monthEnd)
        {
            // A repeating todo's series starts on its first due date (RFC 5545 §3.8.5.3: DTSTART).
            icalcomponent_add_property(component, icalproperty_new_dtstart(start))
            let recurrence = icalrecurrencetype_from_string(rule.rule)
            icalcomponent_add_property(component, icalproperty_new_rrule(recurrence))
            for date in todo.skips ?? [] {
                guard let day = try? LocalDate(parsing: date, field: "date") else { continue }
                icalcomponent_add_property(component, icalproperty_new_exdate(LibICal.floating(day, time(todo))))
            }
        }
        if completed == nil, let member = todo.assignee?.name {
            let property = icalproperty_new_x(member)!
            icalproperty_set_x_name(property, forProperty)
            icalcomponent_add_property(component, property)
        }
        if completed == nil, todo.remind {
            let alarm = icalcomponent_new_valarm()!
            icalcomponent_add_property(alarm, icalproperty_new_action(ICAL_ACTION_DISPLAY))
            icalcomponent_add_property(alarm, icalproperty_new_description(todo.title))
            let trigger = icalproperty_new_trigger(icaltriggertype_from_string("PT0S"))!
            icalproperty_add_parameter(trigger, icalparameter_new_related(ICAL_RELATED_END))
            icalcomponent_add_property(alarm, trigger)
            icalcomponent_add_component(component, alarm)
        }
        return component
    }
}

extension TodoFile {
    /// A todo read from another app's `VTODO`, as Hearth keeps todos.
    public struct Imported: Sendable, Equatable {
        public let uid: String
        public var title: String
        public var description: String?
        public var due: LocalDate?
        public var time: LocalTime?
        /// `Todos.Priority` (PRIORITY 1–4 high, 5 medium, 6–9 low).
        public var priority: String
        public var completed: Bool
        /// `Todos.Repeat`, its end and `Todos.MonthEnd`.
        public var `repeat`: String
        public var until: LocalDate?
        public var monthEnd: String
        /// Its first CATEGORIES value: the collection it goes to.
        public var category: String?
        /// The days of a repeating todo marked done (overrides with STATUS:COMPLETED).
        public var completions: [LocalDate] = []
        /// The UID of its parent (RELATED-TO, RELTYPE=PARENT): it is a subtask.
        public var parent: String?
        /// The days of a repeating todo skipped (EXDATE).
        public var skips: [LocalDate] = []
        /// The member it is for (`X-HEARTH-FOR`), by name.
        public var member: String?
        /// It has an alarm (a `VALARM`): its reminder is on.
        public var remind = false
    }

    /// What a file gave: its todos, and those refused with why.
    public struct Reading: Sendable {
        public var todos: [Imported] = []
        public var problems: [(todo: String, reason: String)] = []
    }

    /// Reads every `VTODO` of `text`: times in a zone are read on the household's wall clock
    /// (`zone`), floating ones as they are. A todo is refused (with the reason) when it has no
    /// SUMMARY or repeats in a way Hearth's repeats cannot keep (COUNT, INTERVAL, BY… parts).
    public static func read(_ text: String, zone: TimeZone) throws(CalendarFile.FileError) -> Reading {
        _ = LibICal.ready
        guard text.uppercased().contains("BEGIN:VTODO") else {
            throw CalendarFile.FileError(description: "holds no VTODO (no todos to import)")
        }
        guard let root = icalparser_parse_string(text) else {
            throw CalendarFile.FileError(description: "could not be parsed as iCalendar")
        }
        defer { icalcomponent_free(root) }
        var zones = CalendarZones(root: root, household: zone)
        let components = LibICal.components(ICAL_VTODO_COMPONENT, in: root)
        var reading = Reading()
        var overrides: [(uid: String, day: LocalDate)] = []
        for (index, component) in components.enumerated() {
            let uid = icalcomponent_get_uid(component).map { String(cString: $0) } ?? ""
            let name = "todo \(index + 1)" + (uid.isEmpty ? "" : " (UID \(uid))")
            let done = icalcomponent_get_status(component) == ICAL_STATUS_COMPLETED
            if let property = icalcomponent_get_first_property(component, ICAL_RECURRENCEID_PROPERTY) {
                if done, let day = wall(icalproperty_get_recurrenceid(property), property, &zones, zone)?.date {
                    overrides.append((uid, day))
                }
                continue
            }
            do {
                reading.todos.append(try imported(component, uid: uid, zones: &zones, household: zone))
            } catch {
                reading.problems.append((name, error.description))
            }
        }
        for (uid, day) in overrides {
            if let index = reading.todos.firstIndex(where: { $0.uid == uid }) {
                reading.todos[index].completions.append(day)
            }
        }
        return reading
    }

    private static func imported(
        _ component: OpaquePointer, uid: String, zones: inout CalendarZones, household: TimeZone
    ) throws(CalendarFile.FileError) -> Imported {
        guard !uid.isEmpty else { throw CalendarFile.FileError(description: "has no UID") }
        guard let title = icalcomponent_get_summary(component).map({ String(cString: $0) }),
            !title.trimmingCharacters(in: .whitespaces).isEmpty
        else { throw CalendarFile.FileError(description: "has no SUMMARY (a todo needs a title)") }
        let priority: String =
            switch icalcomponent_get_first_property(component, ICAL_PRIORITY_PROPERTY).map(icalproperty_get_priority)
            {
            case (1...4)?: Todos.Priority.high.rawValue
            case 5?: Todos.Priority.medium.rawValue
            case (6...9)?: Todos.Priority.low.rawValue
            default: Todos.Priority.none.rawValue
            }
        var todo = Imported(
            uid: uid, title: title,
            description: icalcomponent_get_description(component).map { String(cString: $0) }, priority: priority,
            completed: icalcomponent_get_status(component) == ICAL_STATUS_COMPLETED,
            repeat: Todos.Repeat.none.rawValue, monthEnd: Todos.MonthEnd.skip.rawValue)
        if let property = icalcomponent_get_first_property(component, ICAL_CATEGORIES_PROPERTY),
            let text = icalproperty_get_categories(property).map({ String(cString: $0) })
        {
            todo.category = text.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let property = icalcomponent_get_first_property(component, ICAL_RELATEDTO_PROPERTY),
            let parent = icalproperty_get_relatedto(property).map({ String(cString: $0) })
        {
            let type = icalproperty_get_first_parameter(property, ICAL_RELTYPE_PARAMETER).map(icalparameter_get_reltype)
            if type == nil || type == ICAL_RELTYPE_PARENT { todo.parent = parent }
        }
        var property = icalcomponent_get_first_property(component, ICAL_X_PROPERTY)
        while let current = property {
            if icalproperty_get_x_name(current).map({ String(cString: $0).uppercased() }) == forProperty,
                let name = icalproperty_get_x(current).map({ String(cString: $0) }),
                !name.trimmingCharacters(in: .whitespaces).isEmpty
            {
                todo.member = name.trimmingCharacters(in: .whitespaces)
            }
            property = icalcomponent_get_next_property(component, ICAL_X_PROPERTY)
        }
        todo.remind = icalcomponent_get_first_component(component, ICAL_VALARM_COMPONENT) != nil
        let due = icalcomponent_get_first_property(component, ICAL_DUE_PROPERTY).flatMap { property in
            wall(icalproperty_get_due(property), property, &zones, household)
        }
        let start = icalcomponent_get_first_property(component, ICAL_DTSTART_PROPERTY).flatMap { property in
            wall(icalproperty_get_dtstart(property), property, &zones, household)
        }
        if let day = due ?? start {
            todo.due = day.date
            todo.time = day.time
        }
        if let property = icalcomponent_get_first_property(component, ICAL_RRULE_PROPERTY),
            let value = icalproperty_get_value_as_string_r(property)
        {
            defer { icalmemory_free_buffer(value) }
            try repeats(String(cString: value), into: &todo, zones: &zones, household: household)
            var exdate = icalcomponent_get_first_property(component, ICAL_EXDATE_PROPERTY)
            while let current = exdate {
                if let day = wall(icalproperty_get_exdate(current), current, &zones, household)?.date {
                    todo.skips.append(day)
                }
                exdate = icalcomponent_get_next_property(component, ICAL_EXDATE_PROPERTY)
            }
        } else if let unread = unreadRule(component) {
            // libical drops an RRULE it cannot read (a 180,000-entry BYDAY, a 200,000-digit or a
            // zero UNTIL) and says so in an X-LIC-ERROR: the todo would import as a one-off
            // without a word (issue 62).
            throw CalendarFile.FileError(
                description: "has an RRULE that cannot be read as a rule (\(unread)), so it cannot repeat here")
        }
        return todo
    }

    /// The start of an RRULE libical could not read (from its X-LIC-ERROR), or `nil`.
    private static func unreadRule(_ component: OpaquePointer) -> String? {
        var error = icalcomponent_get_first_property(component, ICAL_XLICERROR_PROPERTY)
        while let current = error {
            if let text = icalproperty_get_xlicerror(current).map({ String(cString: $0) }), text.contains("RRULE") {
                let rule = text.range(of: "property: ").map { String(text[$0.upperBound...]) } ?? text
                return rule.count > 60 ? rule.prefix(60) + "… \(rule.count) characters" : rule
            }
            error = icalcomponent_get_next_property(component, ICAL_XLICERROR_PROPERTY)
        }
        return nil
    }

    /// A rule Hearth's repeats keep: FREQ (daily to yearly), UNTIL, and RFC 7529's
    /// `RSCALE=GREGORIAN;SKIP=BACKWARD` (month ends clamp).
    private static func repeats(
        _ rule: String, into todo: inout Imported, zones: inout CalendarZones, household: TimeZone
    ) throws(CalendarFile.FileError) {
        var parts: [String: String] = [:]
        for part in rule.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { String($0).uppercased() }
            if pair.count == 2 { parts[pair[0]] = pair[1] }
        }
        guard let frequency = parts["FREQ"].flatMap({ Todos.Repeat(rawValue: $0.lowercased()) }),
            frequency != .none
        else {
            throw CalendarFile.FileError(description: "repeats in a way Hearth's repeats cannot keep (\(rule))")
        }
        let kept: Set<String> = ["FREQ", "UNTIL", "RSCALE", "SKIP", "WKST"]
        let others = parts.filter { !kept.contains($0.key) && !($0.key == "INTERVAL" && $0.value == "1") }
        guard others.isEmpty, parts["RSCALE"].map({ $0 == "GREGORIAN" }) ?? true else {
            throw CalendarFile.FileError(
                description:
                    "repeats with \(others.keys.sorted().joined(separator: ", ")) (\(rule)): Hearth's repeats are daily, weekly, monthly or yearly, ended by a date"
            )
        }
        guard todo.due != nil else {
            throw CalendarFile.FileError(description: "repeats but has no DUE or DTSTART (its first day)")
        }
        todo.repeat = frequency.rawValue
        if parts["SKIP"] == "BACKWARD" { todo.monthEnd = Todos.MonthEnd.clamp.rawValue }
        if let until = parts["UNTIL"] {
            let digits = until.prefix(8)
            todo.until = LocalDate(
                year: Int(digits.prefix(4)) ?? 0, month: Int(digits.dropFirst(4).prefix(2)) ?? 0,
                day: Int(digits.dropFirst(6)) ?? 0)
        }
    }

    /// A DUE, DTSTART or RECURRENCE-ID on the household's wall clock (a floating one as written).
    private static func wall(
        _ time: icaltimetype, _ property: OpaquePointer, _ zones: inout CalendarZones, _ household: TimeZone
    ) -> (date: LocalDate, time: LocalTime?)? {
        guard icaltime_is_null_time(time) == 0,
            let date = LocalDate(year: Int(time.year), month: Int(time.month), day: Int(time.day))
        else { return nil }
        if time.is_date != 0 { return (date, nil) }
        guard let clock = LocalTime(hour: Int(time.hour), minute: Int(time.minute), second: min(Int(time.second), 59))
        else { return nil }
        guard let zone = zones.zone(of: property, time: time) else { return (date, clock) }
        let local = CalendarFile.Event.wall(
            of: CalendarFile.Event.instant((date, clock), in: zone), in: household)
        return (local.date, local.time)
    }
}
