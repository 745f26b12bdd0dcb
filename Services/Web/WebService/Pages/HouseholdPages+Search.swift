import Foundation
import HearthBus
import HearthCore

/// The search view: what the box in the page's header finds, grouped by kind, each linking to
/// the view that shows it, the matching words marked.
extension HouseholdPages {
    /// The kinds in the order the view shows them, with their headings.
    static let searchGroups: [(kind: String, title: String)] = [
        ("todo", "Todos"), ("note", "Notes"), ("card", "The year"), ("person", "People"), ("lesson", "Lessons"),
    ]

    func search(_ query: Query) async throws -> [String: Any] {
        let text = query["q"] ?? ""
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return ["search_text": text, "empty": true]
        }
        let reply = try await store.send(SearchCommands.Search(text: text, limit: 50))
        let groups = Self.searchGroups.compactMap { group -> [String: Any]? in
            let results = reply.results.filter { $0.kind == group.kind }
            guard !results.isEmpty else { return nil }
            return [
                "kind": group.kind, "title": group.title,
                "results": results.map { result -> [String: Any] in
                    [
                        "title": result.title, "detail": result.detail, "link": Self.link(result),
                        "snippet": result.snippet.map { ["text": $0.text, "match": $0.match] },
                    ]
                },
            ]
        }
        return [
            "search_text": text, "groups": groups, "nothing": groups.isEmpty, "count": reply.results.count,
        ]
    }

    /// The view that shows a result: the today view on its day (an undated todo is in the
    /// lists there), the year, the people, the member's timetable.
    static func link(_ result: SearchResult) -> String {
        switch result.kind {
        case "todo", "note": address("/today", ["date": result.date ?? ""])
        case "card": address("/year", ["year": String(result.id.prefix(4))])
        case "person": "/people"
        case "lesson":
            address("/timetable", ["member": result.detail.components(separatedBy: " · ").first ?? ""])
        default: "/year"
        }
    }
}
