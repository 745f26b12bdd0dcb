import Foundation
import HearthBus
import HearthCore

/// The year view: twelve cards in their colours, a conflicted card's competing values with
/// "keep this", open suggestions with Accept and Decline, and each card's history.
extension HouseholdPages {
    func year(_ query: Query) async throws -> [String: Any] {
        let year = Int(query["year"] ?? "") ?? todayDate.year
        async let listing = store.request("event.list", args: ["year": .int(Int64(year))])
        async let suggestionReply = store.request("event.suggestions", args: ["status": "open"])
        async let conflictReply = store.request("conflicts")
        async let historyReply = store.request("history", args: ["year": .int(Int64(year))])
        let (cards, suggestions, conflicts, history) = try await (
            listing, suggestionReply, conflictReply, historyReply
        )
        var byMonth: [Int: [String: Any]] = [:]
        for card in cards["cards"]?.arrayValue ?? [] {
            guard let month = card["month"]?.intValue.map(Int.init) else { continue }
            var values = card.mustacheObject
            values["path"] = "/year?year=\(year)"
            byMonth[month] = values
        }
        for suggestion in suggestions["suggestions"]?.arrayValue ?? [] where suggestion["year"]?.intValue == Int64(year)
        {
            guard let month = suggestion["month"]?.intValue.map(Int.init) else { continue }
            var list = byMonth[month]?["suggestions"] as? [[String: Any]] ?? []
            list.append(suggestion.mustacheObject)
            byMonth[month]?["suggestions"] = list
        }
        let prefix = String(format: "%04d-", year)
        for conflict in conflicts["conflicts"]?.arrayValue ?? [] {
            guard let id = conflict["id"]?.stringValue, id.hasPrefix(prefix),
                let month = Int(id.dropFirst(prefix.count).prefix(2))
            else { continue }
            var values = conflict.mustacheObject
            values["field"] = String(id.split(separator: "/").last ?? "")
            values["values"] = (conflict["values"]?.arrayValue ?? []).map { value -> [String: Any] in
                var shown = value.mustacheObject
                shown["shown"] = Self.describe(value["value"])
                shown["conflict"] = id
                return shown
            }
            var list = byMonth[month]?["conflicts"] as? [[String: Any]] ?? []
            list.append(values)
            byMonth[month]?["conflicts"] = list
        }
        for group in history["months"]?.arrayValue ?? [] {
            guard let month = group["month"]?.intValue.map(Int.init) else { continue }
            byMonth[month]?["has_history"] = true
            byMonth[month]?["history"] = (group["changes"]?.arrayValue ?? []).reversed().map { change in
                var values = change.mustacheObject
                values["when"] = Self.localTime(change["time"]?.stringValue, timeZone)
                values["summary"] = (change["changes"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map {
                    "\($0.key): \(Self.describe($0.value["from"])) → \(Self.describe($0.value["to"]))"
                }.joined(separator: "; ")
                return values
            }
        }
        return [
            "year": year, "previous": year - 1, "next": year + 1,
            "cards": (1...12).compactMap { byMonth[$0] },
        ]
    }

    /// A card field's value as a person reads it (`—` for none).
    static func describe(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .bool(let flag): flag ? "yes" : "no"
        case .none, .null: "—"
        default: "…"
        }
    }
}
