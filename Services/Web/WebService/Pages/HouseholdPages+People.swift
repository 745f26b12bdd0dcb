import Foundation
import HearthBus
import HearthCore

/// The people view: "what's next" (three check-ins) with Done, Snooze and Reschedule, and the
/// week's plan.
extension HouseholdPages {
    /// The snooze choices: label and minutes.
    static let snoozes: [(label: String, minutes: Int)] = [("1 hour", 60), ("1 day", 1_440), ("3 days", 4_320)]

    func people(_ query: Query) async throws -> [String: Any] {
        // The household's week (its first day `weekStart`); on its last day, the coming one, not
        // the week just ending.
        let today = todayDate
        let current = today.week(startingOn: weekStart)
        let week = today == current.last ? today.adding(days: 1).week(startingOn: weekStart) : current
        // From the current week's start, so a check-in moved into the coming week still says where
        // from; only the shown week's are listed.
        async let nextReply = store.send(PlanCommands.Next())
        async let weekReply = store.send(
            PlanCommands.List(from: current.first.description, to: week.last.description))
        let (next, planned) = try await (nextReply, weekReply)
        let nextItems = next.items
        // Each check-in's free times for Reschedule, asked for together (a missing answer leaves
        // its list empty; Done and Snooze still work).
        let slots = await withTaskGroup(of: (Int, [String]).self) { group in
            for (index, item) in nextItems.enumerated() {
                group.addTask {
                    let reply = try? await store.send(PlanCommands.Slots(item: item.id))
                    return (index, reply?.slots ?? [])
                }
            }
            return await group.reduce(into: [Int: [String]]()) { $0[$1.0] = $1.1 }
        }
        let upcoming = try nextItems.enumerated().map { index, item -> [String: Any] in
            var values = try JSONValue(reply: item).mustacheObject
            values["when"] = Self.localTime(item.start, timeZone)
            values["snoozes"] = Self.snoozes.map { ["label": $0.label, "minutes": $0.minutes] }
            values["slots"] = (slots[index] ?? []).map { ["value": $0, "label": Self.localTime($0, timeZone)] }
            return values
        }
        // Only live check-ins: one snoozed or rescheduled lives on as its successor, which says
        // where it moved from (a superseded row shown beside it read as a second check-in).
        let byID = Dictionary(planned.items.map { ($0.id, $0) }) { first, _ in first }
        let shown = planned.items.filter { item in
            Timestamp.parse(item.start).map { LocalDate($0, in: timeZone) >= week.first } ?? true
        }
        let items = try shown.filter { !["snoozed", "rescheduled"].contains($0.status) }.map {
            item -> [String: Any] in
            var values = try JSONValue(reply: item).mustacheObject
            values["when"] = Self.localTime(item.start, timeZone)
            values["moved_from"] =
                item.previous.flatMap { byID[$0]?.start }.map { Self.localTime($0, timeZone) } ?? false
            return values
        }
        return [
            "next": upcoming, "no_next": upcoming.isEmpty, "week": items, "no_week": items.isEmpty,
            "coming": week.first > today, "from": Self.dayLabel(week.first.description),
            "to": Self.dayLabel(week.last.description),
        ]
    }

    /// "Mon 23 Nov 18:30" for an instant in ISO 8601, on the household's clock.
    static func localTime(_ text: String?, _ zone: TimeZone) -> String {
        guard let text, let instant = Timestamp.parse(text) else { return text ?? "" }
        let date = LocalDate(instant, in: zone)
        return "\(dayLabel(date.description)) \(LocalTime(instant, in: zone).description.prefix(5))"
    }
}
