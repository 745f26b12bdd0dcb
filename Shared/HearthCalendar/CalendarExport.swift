import CLibICal
import Foundation
import HearthCore

/// Writes events as an iCalendar file (RFC 5545) through libical, for other calendar apps.
public enum CalendarExport {
    /// One event to write. Times are written in UTC, which every calendar app reads.
    public struct Event: Sendable {
        public let uid: String
        public let summary: String
        public let start: Date
        public let end: Date
        /// Whether it still happens (`CONFIRMED`) or not (`CANCELLED`, so an app that imported
        /// it before removes it).
        public let cancelled: Bool
        /// Raised whenever the event changes, so apps take the newer copy (RFC 5545 §3.8.7.4).
        public let sequence: Int
        public let description: String?
        /// An all-day event's first and last day (DTSTART and DTEND as dates; `start` and `end`
        /// are then not written).
        public var days: (first: LocalDate, last: LocalDate)?
        public var location: String?
        /// LAST-MODIFIED.
        public var lastModified: Date?
        /// An RRULE (RFC 5545 text), with `start` (or `days.first`) its first occurrence.
        public var rule: String?

        public init(
            uid: String, summary: String, start: Date, end: Date, cancelled: Bool, sequence: Int,
            description: String? = nil
        ) {
            self.uid = uid
            self.summary = summary
            self.start = start
            self.end = end
            self.cancelled = cancelled
            self.sequence = sequence
            self.description = description
        }
    }

    /// The calendar text of `events`, stamped `stamp` (DTSTAMP).
    public static func text(_ events: [Event], stamp: Date, name: String) -> String {
        _ = LibICal.ready
        let calendar = LibICal.calendar(product: "Social planner", method: ICAL_METHOD_PUBLISH, name: name)
        defer { icalcomponent_free(calendar) }
        for event in events {
            let component = icalcomponent_new_vevent()!
            icalcomponent_add_property(component, icalproperty_new_uid(event.uid))
            icalcomponent_add_property(component, icalproperty_new_dtstamp(utc(stamp)))
            if let days = event.days {
                icalcomponent_add_property(component, icalproperty_new_dtstart(date(days.first)))
                icalcomponent_add_property(component, icalproperty_new_dtend(date(days.last.adding(days: 1))))
            } else {
                icalcomponent_add_property(component, icalproperty_new_dtstart(utc(event.start)))
                icalcomponent_add_property(component, icalproperty_new_dtend(utc(event.end)))
            }
            if let rule = event.rule {
                icalcomponent_add_property(component, icalproperty_new_rrule(icalrecurrencetype_from_string(rule)))
            }
            if let location = event.location {
                icalcomponent_add_property(component, icalproperty_new_location(location))
            }
            if let modified = event.lastModified {
                icalcomponent_add_property(component, icalproperty_new_lastmodified(utc(modified)))
            }
            icalcomponent_add_property(component, icalproperty_new_summary(event.summary))
            icalcomponent_add_property(component, icalproperty_new_sequence(Int32(clamping: event.sequence)))
            icalcomponent_add_property(
                component, icalproperty_new_status(event.cancelled ? ICAL_STATUS_CANCELLED : ICAL_STATUS_CONFIRMED))
            if let description = event.description {
                icalcomponent_add_property(component, icalproperty_new_description(description))
            }
            icalcomponent_add_component(calendar, component)
        }
        return LibICal.text(calendar)
    }

    private static func date(_ day: LocalDate) -> icaltimetype {
        var value = icaltime_null_time()
        (value.year, value.month, value.day, value.is_date) = (Int32(day.year), Int32(day.month), Int32(day.day), 1)
        return value
    }

    private static func utc(_ date: Date) -> icaltimetype {
        icaltime_from_timet_with_zone(
            time_t(date.timeIntervalSince1970.rounded(.down)), 0, icaltimezone_get_utc_timezone())
    }
}
