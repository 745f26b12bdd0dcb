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
        /// The zone whose wall clock `start` and `end` are written on, with its `TZID` (the
        /// calendar then holds its `VTIMEZONE`: `CalendarTimeZone`): a repeating time in UTC
        /// moves an hour at each daylight-saving change. `nil`: in UTC.
        public var zone: TimeZone?

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

    /// The calendar text of `events`, stamped `stamp` (DTSTAMP), with the `VTIMEZONE` of each
    /// zone their times are written in.
    public static func text(_ events: [Event], stamp: Date, name: String) -> String {
        _ = LibICal.ready
        let text = LibICal.text(
            vevents(events, stamp: stamp),
            in: LibICal.calendar(product: "Social planner", method: ICAL_METHOD_PUBLISH, name: name))
        let zones = Set(events.compactMap(\.zone)).compactMap(CalendarTimeZone.text).sorted()
        guard !zones.isEmpty, let body = text.range(of: "BEGIN:VEVENT") else { return text }
        return text.replacingCharacters(in: body.lowerBound..<body.lowerBound, with: zones.joined())
    }

    /// The `VEVENT`s of `events` alone, without a calendar around them (a feed joins several).
    public static func components(_ events: [Event], stamp: Date) -> String {
        _ = LibICal.ready
        return LibICal.text(vevents(events, stamp: stamp), in: nil)
    }

    private static func vevents(_ events: [Event], stamp: Date) -> [OpaquePointer] {
        events.map { event in
            let component = icalcomponent_new_vevent()!
            icalcomponent_add_property(component, icalproperty_new_uid(event.uid))
            icalcomponent_add_property(component, icalproperty_new_dtstamp(LibICal.utc(stamp)))
            if let days = event.days {
                icalcomponent_add_property(component, icalproperty_new_dtstart(LibICal.floating(days.first)))
                icalcomponent_add_property(
                    component, icalproperty_new_dtend(LibICal.floating(days.last.adding(days: 1))))
            } else if let zone = event.zone, CalendarTimeZone.writesTZID(zone) {
                let start = icalproperty_new_dtstart(LibICal.wall(event.start, in: zone))!
                icalproperty_add_parameter(start, icalparameter_new_tzid(zone.identifier))
                icalcomponent_add_property(component, start)
                let end = icalproperty_new_dtend(LibICal.wall(event.end, in: zone))!
                icalproperty_add_parameter(end, icalparameter_new_tzid(zone.identifier))
                icalcomponent_add_property(component, end)
            } else {
                icalcomponent_add_property(component, icalproperty_new_dtstart(LibICal.utc(event.start)))
                icalcomponent_add_property(component, icalproperty_new_dtend(LibICal.utc(event.end)))
            }
            if let rule = event.rule {
                icalcomponent_add_property(component, icalproperty_new_rrule(icalrecurrencetype_from_string(rule)))
            }
            if let location = event.location {
                icalcomponent_add_property(component, icalproperty_new_location(location))
            }
            if let modified = event.lastModified {
                icalcomponent_add_property(component, icalproperty_new_lastmodified(LibICal.utc(modified)))
            }
            icalcomponent_add_property(component, icalproperty_new_summary(event.summary))
            icalcomponent_add_property(component, icalproperty_new_sequence(Int32(clamping: event.sequence)))
            icalcomponent_add_property(
                component, icalproperty_new_status(event.cancelled ? ICAL_STATUS_CANCELLED : ICAL_STATUS_CONFIRMED))
            if let description = event.description {
                icalcomponent_add_property(component, icalproperty_new_description(description))
            }
            return component
        }
    }
}
