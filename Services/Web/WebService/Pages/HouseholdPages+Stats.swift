import Foundation
import HearthBus
import HearthCore

/// The stats view: per habit a heatmap of the weeks shown (GitHub's: a column per week, a row
/// per weekday) and its weekly rate as bars, then each collection's open and done todos. The
/// charts are SVG drawn by the template from the positions worked out here (no script, no chart
/// library), coloured by classes whose colours follow the light or dark scheme, each with a
/// text alternative: the chart's title and description, and a title on every day and bar.
extension HouseholdPages {
    /// The spans the view offers, in weeks.
    static let statsSpans = [4, 12, 26, 52]
    /// A day's square and the step between columns, in the charts' units (pixels at full size).
    static let cell = 12
    static let step = 14
    /// The room for the weekday labels left of the heatmap, and the bars' height.
    static let labels = 32
    static let barHeight = 48

    static let markLabels: [DayMark: String] = [
        .done: "done", .missed: "missed", .skipped: "skipped", .pending: "not done yet", .off: "not due",
    ]

    func stats(_ query: Query) async throws -> [String: Any] {
        let weeks = Int(query["weeks"] ?? "").flatMap { Self.statsSpans.contains($0) ? $0 : nil } ?? 12
        let collection = query["collection"].flatMap { $0.isEmpty ? nil : $0 }
        async let statsReply = store.send(TodoCommands.Stats(collection: collection, weeks: weeks))
        async let collectionsReply = store.send(CollectionCommands.List())
        let (stats, collections) = try await (statsReply, collectionsReply)
        let habits = stats.habits.map { Self.habitChart($0, weeks: stats.weeks) }
        let rows = stats.collections.map { collection -> [String: Any] in
            let due = collection.weeks.reduce(0) { $0 + $1.due }
            let done = collection.weeks.reduce(0) { $0 + $1.done }
            let total = max(1, collection.open + collection.done)
            let doneWidth = Int((Double(collection.done) / Double(total) * 120).rounded())
            return [
                "name": collection.name, "open": collection.open, "done": collection.done,
                "rate": due > 0 ? "\(PeriodRate.percent(done, due)) of \(due) due" : "nothing due",
                "done_width": doneWidth, "open_x": doneWidth, "open_width": 120 - doneWidth,
                "empty": collection.open + collection.done == 0,
            ]
        }
        return [
            "weeks": stats.weeks, "from": Self.dayLabel(stats.from), "to": Self.dayLabel(stats.to),
            "habits": habits, "no_habits": habits.isEmpty, "collections": rows,
            "legend": [DayMark.done, .missed, .skipped, .pending, .off].map {
                ["mark": $0.rawValue, "label": Self.markLabels[$0] ?? ""]
            },
            "spans": Self.statsSpans.map { ["value": $0, "selected": $0 == stats.weeks] },
            "collection_options": Self.options(collections.collections.map(\.name), collection, any: "all"),
        ]
    }

    /// One habit's values: the heatmap's cells and labels, the weekly bars, and the words.
    static func habitChart(_ habit: HabitStatistics, weeks: Int) -> [String: Any] {
        let start = try? LocalDate(parsing: habit.weeks.first?.start ?? "", field: "from")
        let cells = habit.marks.enumerated().map { index, mark -> [String: Any] in
            let date = start.map { Self.dayLabel($0.adding(days: index).description) } ?? ""
            return [
                "x": labels + (index / 7) * step, "y": (index % 7) * step, "mark": mark.rawValue,
                "label": "\(date): \(markLabels[mark] ?? mark.rawValue)",
            ]
        }
        let weekdays = ["Mon", "Wed", "Fri"].enumerated().map { item -> [String: Any] in
            ["label": item.element, "y": item.offset * 2 * step + 10]
        }
        let bars = habit.weeks.enumerated().map { index, week -> [String: Any] in
            let height = Int(((week.rate ?? 0) * Double(barHeight - 2)).rounded()) + 2
            let rate = week.rate.map { _ in "\(PeriodRate.percent(week.done, week.due)), \(week.done) of \(week.due)" }
            return [
                "x": labels + index * step, "y": barHeight - height, "height": height, "none": week.rate == nil,
                "label": "Week of \(Self.dayLabel(week.start)): \(rate ?? "nothing due")",
            ]
        }
        let progress = habit.progress
        let weekday = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        let bestWorst =
            if let best = habit.bestWeekday, let worst = habit.worstWeekday, best != worst {
                "Best on \(weekday[best - 1]), worst on \(weekday[worst - 1])."
            } else { "" }
        let summary =
            "\(habit.done) of \(habit.due) due dates done (\(PeriodRate.percent(habit.done, habit.due))) over \(weeks) weeks; "
            + (progress.streakText ?? "no streak now") + ", best \(progress.best). " + bestWorst
        return [
            "id": habit.id, "title": habit.title, "collection": habit.collection,
            "streak": progress.streakText ?? "No streak now", "best": progress.best,
            "strength": Int((progress.strength * 100).rounded()), "summary": summary, "cells": cells,
            "weekdays": weekdays, "bars": bars, "width": labels + weeks * step, "map_height": 7 * step,
            "bar_height": barHeight, "best_worst": bestWorst,
            "months": habit.months.map { "\($0.monthLabel) \(PeriodRate.percent($0.done, $0.due))" }
                .joined(separator: " · "),
        ]
    }

}
