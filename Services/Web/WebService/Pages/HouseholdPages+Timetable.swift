import Foundation
import HearthBus
import HearthCore

/// The timetable view: a member's day with the current period highlighted and the next one
/// named, which rotation week it is, and the fortnight as two grids (periods down, Monday to
/// Friday across).
extension HouseholdPages {
    func timetable(_ query: Query) async throws -> [String: Any] {
        let members = try await store.send(MemberCommands.List())
        let names = members.members.map(\.name)
        let profile = members.profile
        guard let member = query["member"].flatMap({ names.contains($0) ? $0 : nil }) ?? profile ?? names.first else {
            return ["no_members": true, "members": []]
        }
        let today = todayDate
        let day = query["date"].flatMap { try? LocalDate(parsing: $0, field: "date") } ?? today
        // On a weekend the grids show the coming fortnight, not the week just ending.
        let monday = SchoolCalendar.monday(of: day)
        let gridMonday = day.weekday >= 6 ? monday.adding(days: 7) : monday
        let days = try await store.send(
            TimetableCommands.Days(
                from: monday.description, to: gridMonday.adding(days: 13).description, member: member)
        ).days
        let gridDays = days.filter { $0.date >= gridMonday.description }
        let now = LocalTime(clock(), in: timeZone)
        let isToday = day == today
        // The chosen day: the lesson on now and the next one marked (today only).
        let chosen = days.first { $0.date == day.description }
        let dayLessons = chosen?.lessons ?? []
        let (current, next) = isToday ? SchoolCalendar.nowAndNext(dayLessons.map(\.times), at: now) : (nil, nil)
        let lessons = try dayLessons.enumerated().map { index, lesson -> [String: Any] in
            var values = try JSONValue(reply: lesson).mustacheObject
            values["current"] = index == current
            values["next"] = index == next
            // "P3" for a lesson, "AM Registration" for a registration.
            let period = Period(code: lesson.periodCode)
            values["period_label"] = period.map { $0.name.first?.isNumber == true ? "P\($0.name)" : $0.name } ?? ""
            return values
        }
        return [
            "member": member, "members": names.map { ["name": $0, "selected": $0 == member] },
            "date": day.description, "label": Self.dayLabel(day.description), "is_today": isToday,
            "previous": day.adding(days: -1).description, "next_day": day.adding(days: 1).description,
            "week": chosen?.week ?? 0, "status": chosen.map(Self.statusWord) ?? "",
            "school": chosen?.isSchoolDay ?? false, "lessons": lessons, "no_lessons": lessons.isEmpty,
            "current_subject": current.map { dayLessons[$0].subject } ?? false,
            "next_subject": next.map { "\(dayLessons[$0].subject) at \(dayLessons[$0].start ?? "")" } ?? false,
            // Nothing more today: the first lesson of the next day that has one (Monday's, on a
            // Sunday), so the page never ends at "No more lessons today".
            "next_later": (isToday && next == nil && current == nil ? Self.firstLater(after: day, in: days) : nil)
                ?? false,
            "grids": try [Array(gridDays.prefix(7)), Array(gridDays.dropFirst(7).prefix(7))].map {
                try Self.grid($0, today: isToday ? today.description : nil, now: now)
            },
        ]
    }

    /// "Maths on Monday at 08:50": the first lesson after `day` in `days`.
    static func firstLater(after day: LocalDate, in days: [TimetableDayView]) -> String? {
        guard let later = days.first(where: { $0.date > day.description && !$0.lessons.isEmpty }),
            let lesson = later.lessons.first
        else { return nil }
        let date = (try? LocalDate(parsing: later.date, field: "date"))
        let weekday = date.map { Self.weekdayNames[$0.weekday - 1] } ?? later.date
        let when = date == day.adding(days: 1) ? "tomorrow" : "on \(weekday)"
        return "\(lesson.subject) \(when)" + (lesson.start.map { " at \($0)" } ?? "")
    }

    private static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// One week as a grid: its periods (ordered by start time) down, Monday to Friday across.
    static func grid(_ days: [TimetableDayView], today: String?, now: LocalTime) throws -> [String: Any] {
        let weekdays = days.filter { $0.weekday <= 5 }
        var periods: [(code: String, start: String)] = []
        for lesson in weekdays.flatMap(\.lessons) where !periods.contains(where: { $0.code == lesson.periodCode }) {
            periods.append((lesson.periodCode, lesson.start ?? ""))
        }
        periods.sort { ($0.start, $0.code) < ($1.start, $1.code) }
        let rows = try periods.map { period -> [String: Any] in
            let cells = try weekdays.map { day -> [String: Any] in
                let lesson = day.lessons.first { $0.periodCode == period.code }
                var cell = try lesson.map { try JSONValue(reply: $0).mustacheObject } ?? [:]
                cell["empty"] = lesson == nil
                cell["current"] =
                    lesson.map { day.date == today && SchoolCalendar.nowAndNext([$0.times], at: now).now == 0 }
                    ?? false
                return cell
            }
            // As a person reads it ("AM Registration"), not as it is stored ("am_registration").
            return ["period": Period(code: period.code)?.name ?? period.code, "cells": cells]
        }
        return [
            "week": weekdays.first?.week ?? 0, "from": dayLabel(weekdays.first?.date ?? ""),
            "heads": weekdays.map { ["label": dayLabel($0.date)] }, "rows": rows, "empty": rows.isEmpty,
        ]
    }

    /// `school`, `weekend` or `holiday`, as the page's classes name a day.
    static func statusWord(_ day: TimetableDayView) -> String {
        switch day.status {
        case .school: "school"
        case .weekend: "weekend"
        case .holiday: "holiday"
        }
    }
}
