import Foundation
import HearthBus
import HearthCore

/// The people view: "what's next" (three check-ins) with Done, Snooze and Reschedule, and the
/// week's plan.
extension HouseholdPages {
    /// The snooze choices: label and minutes.
    static let snoozes: [(label: String, minutes: Int)] = [("1 hour", 60), ("1 day", 1_440), ("3 days", 4_320)]

    func people(_ query: Query) async throws -> [String: Any] {
        async let nextReply = store.request("plan.next")
        async let weekReply = store.request("plan.list")
        let (next, week) = try await (nextReply, weekReply)
        var upcoming: [[String: Any]] = []
        for item in next["items"]?.arrayValue ?? [] {
            var values = item.mustacheObject
            values["when"] = Self.localTime(item["start"]?.stringValue, timeZone)
            values["snoozes"] = Self.snoozes.map { ["label": $0.label, "minutes": $0.minutes] }
            if let id = item["id"]?.stringValue,
                let slots = try? await store.request("plan.slots", args: ["item": .string(id)])
            {
                values["slots"] = (slots["slots"]?.arrayValue ?? []).prefix(12).compactMap(\.stringValue).map {
                    ["value": $0, "label": Self.localTime($0, timeZone)]
                }
            }
            upcoming.append(values)
        }
        let items = (week["items"]?.arrayValue ?? []).map { item -> [String: Any] in
            var values = item.mustacheObject
            values["when"] = Self.localTime(item["start"]?.stringValue, timeZone)
            values["pending"] = item["status"] == "pending"
            return values
        }
        return [
            "next": upcoming, "no_next": upcoming.isEmpty, "week": items, "no_week": items.isEmpty,
            "from": Self.dayLabel(week["from"]?.stringValue ?? ""), "to": Self.dayLabel(week["to"]?.stringValue ?? ""),
        ]
    }

    /// "Mon 23 Nov 18:30" for an instant in ISO 8601, on the household's clock.
    static func localTime(_ text: String?, _ zone: TimeZone) -> String {
        guard let text, let instant = Timestamp.parse(text) else { return text ?? "" }
        let date = LocalDate(instant, in: zone)
        return "\(dayLabel(date.description)) \(clock(instant, in: zone))"
    }
}
