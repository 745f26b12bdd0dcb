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
        let monday = day.adding(days: -(day.weekday - 1))
        let reply = try await store.request(
            "timetable.days",
            args: [
                "member": .string(member), "from": .string(monday.description),
                "to": .string(monday.adding(days: 13).description),
            ])
        let days = reply["days"]?.arrayValue ?? []
        let now = Self.clock(Date(), in: timeZone)
        let isToday = day == today
        // The chosen day: each lesson marked current (on now) or next (the first still to come).
        let chosen = days.first { $0["date"]?.stringValue == day.description }
        var lessons: [[String: Any]] = []
        var nextNamed = false
        var current: String?
        var next: String?
        for lesson in chosen?["lessons"]?.arrayValue ?? [] {
            var values = lesson.mustacheObject
            let start = lesson["start"]?.stringValue ?? ""
            let end = lesson["end"]?.stringValue ?? ""
            if isToday, start <= now, now < end {
                values["current"] = true
                current = lesson["subject"]?.stringValue
            } else if isToday, now < start, !nextNamed {
                values["next"] = true
                nextNamed = true
                next = lesson["subject"]?.stringValue.map { "\($0) at \(start)" }
            }
            lessons.append(values)
        }
        return [
            "member": member, "members": names.map { ["name": $0, "selected": $0 == member] },
            "date": day.description, "label": Self.dayLabel(day.description), "is_today": isToday,
            "previous": day.adding(days: -1).description, "next_day": day.adding(days: 1).description,
            "week": chosen?["week"]?.intValue.map { Int($0) } ?? 0, "status": chosen?["status"]?.stringValue ?? "",
            "school": chosen?["status"] == "school", "lessons": lessons, "no_lessons": lessons.isEmpty,
            "current_subject": current ?? false, "next_subject": next ?? false,
            "grids": [Array(days.prefix(7)), Array(days.dropFirst(7).prefix(7))].map {
                Self.grid($0, today: isToday ? today.description : nil, now: now)
            },
        ]
    }

    /// One week as a grid: its periods (ordered by start time) down, Monday to Friday across.
    static func grid(_ days: [JSONValue], today: String?, now: String) -> [String: Any] {
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
                let start = lesson?["start"]?.stringValue ?? ""
                let end = lesson?["end"]?.stringValue ?? ""
                cell["current"] = lesson != nil && day["date"]?.stringValue == today && start <= now && now < end
                return cell
            }
            return ["period": period.code, "cells": cells]
        }
        return [
            "week": weekdays.first?["week"]?.intValue.map { Int($0) } ?? 0,
            "from": dayLabel(weekdays.first?["date"]?.stringValue ?? ""),
            "heads": weekdays.map { ["label": dayLabel($0["date"]?.stringValue ?? "")] },
            "rows": rows, "empty": rows.isEmpty,
        ]
    }

    /// The wall-clock time `HH:MM` at `instant` in `zone` (lessons' times are compared as text).
    static func clock(_ instant: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }
}
