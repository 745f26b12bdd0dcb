import Foundation
import HearthBus
import HearthCore

/// The year view: twelve cards in their colours, a conflicted card's competing values with
/// "keep this", open suggestions with Accept and Decline, and each card's history.
extension HouseholdPages {
    func year(_ query: Query) async throws -> [String: Any] {
        let year = Int(query["year"] ?? "") ?? todayDate.year
        async let listing = store.send(EventCommands.List(year: year))
        async let suggestionReply = store.send(EventCommands.Suggestions(status: "open"))
        async let conflictReply = store.send(HistoryCommands.Conflicts())
        async let historyReply = store.send(HistoryCommands.History(year: year))
        let (cards, suggestions, conflicts, history) = try await (listing, suggestionReply, conflictReply, historyReply)
        var byMonth: [Int: [String: Any]] = [:]
        for card in cards.cards {
            var values = try JSONValue(reply: card).mustacheObject
            values["path"] = "/year?year=\(year)"
            byMonth[card.month] = values
        }
        for suggestion in suggestions.suggestions where suggestion.year == year {
            var list = byMonth[suggestion.month]?["suggestions"] as? [[String: Any]] ?? []
            var values = try JSONValue(reply: suggestion).mustacheObject
            values["day_ordinal"] = suggestion.day.map(Ordinal.english)
            list.append(values)
            byMonth[suggestion.month]?["suggestions"] = list
        }
        let prefix = String(format: "%04d-", year)
        for conflict in conflicts.conflicts {
            let id = conflict.id
            guard id.hasPrefix(prefix), let month = Int(id.dropFirst(prefix.count).prefix(2)) else { continue }
            var values = try JSONValue(reply: conflict).mustacheObject
            values["field"] = String(id.split(separator: "/").last ?? "")
            values["values"] = try conflict.values.map { value -> [String: Any] in
                var shown = try JSONValue(reply: value).mustacheObject
                shown["shown"] = Self.describe(value.value)
                shown["conflict"] = id
                return shown
            }
            var list = byMonth[month]?["conflicts"] as? [[String: Any]] ?? []
            list.append(values)
            byMonth[month]?["conflicts"] = list
        }
        for group in history.months {
            byMonth[group.month]?["has_history"] = true
            byMonth[group.month]?["history"] = try group.changes.reversed().map { change in
                var values = try JSONValue(reply: change).mustacheObject
                values["when"] = Self.localTime(change.time, timeZone)
                values["summary"] = change.changes.sorted { $0.key < $1.key }.map {
                    "\($0.key): \(Self.describe($0.value.from)) → \(Self.describe($0.value.to))"
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
    static func describe(_ value: FieldJSON) -> String {
        switch value {
        case .text(let text): text
        case .int(let number): String(number)
        case .bool(let flag): flag ? "yes" : "no"
        case .null: "—"
        case .list: "…"
        }
    }
}
