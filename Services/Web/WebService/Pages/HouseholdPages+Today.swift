import Foundation
import HearthBus
import HearthCore

/// The today view: the day's todos and habits with tick boxes (a repeating one ticks that day's
/// occurrence), the household's lists (shopping, packing…) with their open items, a tick box each
/// and a box to add one, the week or month with counts per day, the priority, status and kind
/// filters, and the daily note with its mood.
extension HouseholdPages {
    /// The spans the view shows: the chosen day's list with its week or month of counts.
    static let spans = ["week", "month"]

    func today(_ query: Query) async throws -> [String: Any] {
        let today = todayDate
        let day = query["date"].flatMap { try? LocalDate(parsing: $0, field: "date") } ?? today
        let span = Self.spans.contains(query["span"] ?? "") ? query["span"]! : "week"
        let (from, to) = span == "month" ? day.wholeMonth : day.week(startingOn: weekStart)
        var filters: [String: String] = [:]
        for name in ["priority", "status", "kind", "for"] {
            if let value = query[name], !value.isEmpty { filters[name] = value }
        }
        let dayCommand = TodoCommands.Calendar(
            from: day.description, to: day.description, priority: filters["priority"], status: filters["status"],
            kind: filters["kind"], assignee: filters["for"])
        var rangeCommand = dayCommand
        (rangeCommand.from, rangeCommand.to) = (from.description, to.description)
        async let dayReply = store.send(dayCommand)
        async let rangeReply = store.send(rangeCommand)
        async let noteReply = store.send(NoteCommands.Show(date: day.description))
        async let collectionsReply = store.send(CollectionCommands.List())
        async let membersReply = store.send(MemberCommands.List())
        let (listed, range, note, collections, members) = try await (
            dayReply, rangeReply, noteReply, collectionsReply, membersReply
        )
        let memberNames = members.members.map(\.name)
        // The lists under the same filters: none for another kind or for done todos.
        let showLists = (query["kind"] ?? "").isEmpty || query["kind"] == "list"
        let lists =
            showLists && query["status"] != "done"
            ? try await self.lists(
                collections, priority: query["priority"].flatMap { $0.isEmpty ? nil : $0 },
                assignee: query["for"].flatMap { $0.isEmpty ? nil : $0 }, path: Self.address("/today", query)) : []
        // The view's address for a day, with this span and these filters.
        func address(_ date: String) -> String {
            Self.address("/today", filters.merging(["date": date, "span": span]) { $1 })
        }
        let todos = try (listed.days.first?.todos ?? []).map { todo -> [String: Any] in
            var values = try JSONValue(reply: todo).mustacheObject
            values["path"] = address(day.description)
            values["next_done"] = todo.done ? "0" : "1"
            values["has_priority"] = todo.priority != "none"
            values["streak"] = todo.habit?.streakText ?? false
            return values
        }
        let days = try range.days.map { entry -> [String: Any] in
            var values = try JSONValue(reply: entry).mustacheObject
            let date = entry.date
            values["open"] = entry.counts.open
            values["done"] = entry.counts.done
            values["today"] = date == today.description
            values["chosen"] = date == day.description
            values["link"] = address(date)
            values["label"] = Self.dayLabel(date)
            return values
        }
        let mood = note.mood
        return [
            "date": day.description, "label": Self.dayLabel(day.description), "is_today": day == today,
            "previous": day.adding(days: -1).description, "next": day.adding(days: 1).description, "span": span,
            "span_week": span == "week", "span_month": span == "month", "path": address(day.description),
            "todos": todos,
            "none": todos.isEmpty, "days": days, "lists": lists, "has_lists": !lists.isEmpty,
            "note_text": note.text ?? "",
            "moods": Todos.Mood.allCases.map { ["mood": $0.rawValue, "selected": $0.rawValue == mood] },
            "filters": [
                "priority": Self.options(Todos.Priority.allCases.map(\.rawValue), query["priority"]),
                "status": Self.options(["open", "done"], query["status"]),
                "kind": Self.options(Todos.Kind.allCases.map(\.rawValue), query["kind"]),
                "assignee": Self.options(memberNames, query["for"], any: "anyone"),
                "has_members": !memberNames.isEmpty,
            ],
        ]
    }

    /// The household's lists (collections of kind `list`), each with its open items that have no
    /// date (a dated one shows on its day, and the list says how many do): a kitchen display is
    /// where the shopping list lives.
    /// With `assignee` (a member's name), only the items for that member.
    func lists(
        _ collections: CollectionList, priority: String?, assignee: String?, path: String
    ) async throws -> [[String:
        Any]]
    {
        var lists: [[String: Any]] = []
        for collection in collections.collections where collection.kind == "list" {
            let reply = try await store.send(TodoCommands.List(collection: collection.id, assignee: assignee))
            let wanted = reply.todos.filter { todo in !todo.completed && priority.map { todo.priority == $0 } ?? true }
            // Dated ones show on their days; the list says how many, rather than "Nothing on it"
            // when all of them have dates (issue 63).
            let dated = wanted.filter { $0.due != nil }.count
            let open = try wanted.filter { $0.due == nil }.map { todo in
                var values = try JSONValue(reply: todo).mustacheObject
                values["path"] = path
                return values
            }
            var list: [String: Any] = [
                "id": collection.id, "name": collection.name, "icon": collection.icon ?? "", "items": open,
                "empty": open.isEmpty, "path": path, "done": collection.done,
            ]
            if dated > 0 {
                list["dated_note"] = "\(dated) open with a date, shown on \(dated == 1 ? "its day" : "their days")"
            }
            lists.append(list)
        }
        return lists
    }

    /// A select's options with the chosen one marked (the first, `any`, is empty).
    static func options(_ values: [String], _ chosen: String?, any: String = "any") -> [[String: Any]] {
        [["value": "", "label": any, "selected": (chosen ?? "").isEmpty]]
            + values.map { ["value": $0, "label": $0, "selected": $0 == chosen] }
    }

    /// "Mon 23 Nov" for `2026-11-23`.
    static func dayLabel(_ text: String) -> String {
        guard let date = try? LocalDate(parsing: text, field: "date") else { return text }
        let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(weekdays[date.weekday - 1]) \(date.day) \(months[date.month - 1])"
    }
}
