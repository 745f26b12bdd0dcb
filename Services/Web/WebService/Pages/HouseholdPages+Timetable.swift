import Foundation
import HearthBus
import HearthCore

/// The timetable view: a member's day with the current period highlighted and the next one
/// named, which rotation week it is, and the fortnight as two grids (periods down, Monday to
/// Friday across).
extension HouseholdPages {
    func timetable(_ query: Query) async throws -> [String: Any] {
        let members = try await store.request("member.list")
        let names = (members["members"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        let profile = members["profile"]?.stringValue
        guard let member = query["member"].flatMap({ names.contains($0) ? $0 : nil }) ?? profile ?? names.first else {
            return ["no_members": true, "members": []]
        }
        let today = todayDate
        let day = query["date"].flatMap { try? LocalDate(parsing: $0, field: "date") } ?? today
        let monday = SchoolCalendar.monday(of: day)
        let reply = try await store.request(
            "timetable.days",
            args: [
                "member": .string(member), "from": .string(monday.description),
                "to": .string(monday.adding(days: 13).description),
            ])
        let days = reply["days"]?.arrayValue ?? []
        let now = LocalTime(Date(), in: timeZone)
        let isToday = day == today
        // The chosen day: the lesson on now and the next one marked (today only).
        let chosen = days.first { $0["date"]?.stringValue == day.description }
        let dayLessons = chosen?["lessons"]?.arrayValue ?? []
        let (current, next) = isToday ? SchoolCalendar.nowAndNext(dayLessons.map(Self.times), at: now) : (nil, nil)
        let lessons = dayLessons.enumerated().map { index, lesson -> [String: Any] in
            var values = lesson.mustacheObject
            values["current"] = index == current
            values["next"] = index == next
            // "P3" for a lesson, "AM Registration" for a registration.
            let period = lesson["period_code"]?.stringValue.flatMap(Period.init(code:))
            values["period_label"] = period.map { $0.name.first?.isNumber == true ? "P\($0.name)" : $0.name } ?? ""
            return values
        }
        return [
            "member": member, "members": names.map { ["name": $0, "selected": $0 == member] },
            "date": day.description, "label": Self.dayLabel(day.description), "is_today": isToday,
            "previous": day.adding(days: -1).description, "next_day": day.adding(days: 1).description,
            "week": chosen?["week"]?.intValue.map { Int($0) } ?? 0, "status": chosen?["status"]?.stringValue ?? "",
            "school": chosen?["status"] == "school", "lessons": lessons, "no_lessons": lessons.isEmpty,
            "current_subject": current.flatMap { dayLessons[$0]["subject"]?.stringValue } ?? false,
            "next_subject": next.flatMap { index in
                dayLessons[index]["subject"]?.stringValue.map {
                    "\($0) at \(dayLessons[index]["start"]?.stringValue ?? "")"
                }
            } ?? false,
            "grids": [Array(days.prefix(7)), Array(days.dropFirst(7).prefix(7))].map {
                Self.grid($0, today: isToday ? today.description : nil, now: now)
            },
        ]
    }

    /// One week as a grid: its periods (ordered by start time) down, Monday to Friday across.
    static func grid(_ days: [JSONValue], today: String?, now: LocalTime) -> [String: Any] {
        let weekdays = days.filter { ($0["weekday"]?.intValue ?? 7) <= 5 }
        var periods: [(code: String, start: String)] = []
        for lesson in weekdays.flatMap({ $0["lessons"]?.arrayValue ?? [] }) {
            guard let code = lesson["period_code"]?.stringValue, !periods.contains(where: { $0.code == code }) else {
                continue
            }
            periods.append((code, lesson["start"]?.stringValue ?? ""))
        }
        periods.sort { ($0.start, $0.code) < ($1.start, $1.code) }
        let rows = periods.map { period -> [String: Any] in
            let cells = weekdays.map { day -> [String: Any] in
                let lesson = day["lessons"]?.arrayValue?.first { $0["period_code"]?.stringValue == period.code }
                var cell = lesson?.mustacheObject ?? [:]
                cell["empty"] = lesson == nil
                cell["current"] =
                    lesson.map {
                        day["date"]?.stringValue == today && SchoolCalendar.nowAndNext([times($0)], at: now).now == 0
                    }
                    ?? false
                return cell
            }
            // As a person reads it ("AM Registration"), not as it is stored ("am_registration").
            return ["period": Period(code: period.code)?.name ?? period.code, "cells": cells]
        }
        return [
            "week": weekdays.first?["week"]?.intValue.map { Int($0) } ?? 0,
            "from": dayLabel(weekdays.first?["date"]?.stringValue ?? ""),
            "heads": weekdays.map { ["label": dayLabel($0["date"]?.stringValue ?? "")] },
            "rows": rows, "empty": rows.isEmpty,
        ]
    }

    /// A lesson's start and end (`nil` where it has none).
    static func times(_ lesson: JSONValue) -> (start: LocalTime?, end: LocalTime?) {
        func time(_ value: JSONValue?) -> LocalTime? {
            value?.stringValue.flatMap { try? LocalTime(parsing: $0, field: "time") }
        }
        return (time(lesson["start"]), time(lesson["end"]))
    }
}
