import Foundation
import HearthBus
import HearthCore

/// Undo on the page: a bar at the top of every view for a few seconds after a change made on
/// this device ("Changed: todo 'Buy milk' · Undo", then "Undone: … · Redo"), and the Changes view
/// listing the last 20 with what each changed. Both act through the store's `undo` and `redo`,
/// the same as `hearth undo`.
extension HouseholdPages {
    /// How long the bar stays after a change or an undo.
    static let undoBarSeconds: Int64 = 15

    /// The bar's values when this device's latest change (or undo) is recent; `nil` otherwise or
    /// when the store does not answer (a view still shows without it).
    func undoBar(now: Date = Date()) async -> [String: Any]? {
        guard let list = try? await store.send(HistoryCommands.UndoSteps(limit: 1)),
            let step = list.steps.first
        else { return nil }
        let milliseconds = Int64(now.timeIntervalSince1970 * 1000)
        let since = step.state == "undone" ? step.undoneAt ?? step.at : step.at
        let left = Self.undoBarSeconds * 1000 - (milliseconds - since)
        guard left > 0, step.state != "dropped" else { return nil }
        let undone = step.state == "undone"
        return [
            "verb": undone ? "Undone" : "Changed", "summary": step.summary, "command": step.command,
            "action": undone ? "redo" : "undo", "label": undone ? "Redo" : "Undo", "expires_ms": left,
        ]
    }

    /// The Changes view: this device's last 20 changes, newest first, with Undo on the newest
    /// not undone and Redo on the last undone.
    func changes(_ query: Query) async throws -> [String: Any] {
        let list = try await store.send(HistoryCommands.UndoSteps(limit: 20))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let newestDone = list.steps.first { $0.state == "done" }?.seq
        let lastUndone = list.steps.filter { $0.state == "undone" }.max { ($0.undoneAt ?? 0) < ($1.undoneAt ?? 0) }?.seq
        let steps = list.steps.map { step -> [String: Any] in
            var values: [String: Any] = [
                "seq": step.seq, "command": step.command, "summary": step.summary,
                "changes": Array(step.changes.prefix(5)),
                "when": step.age(now: now), "undone": step.state == "undone", "dropped": step.state == "dropped",
                "can_undo": step.seq == newestDone, "can_redo": step.seq == lastUndone,
            ]
            // (Mustache shows a section for 0 too: the count only when there are more.)
            if step.entities > 5 { values["more"] = step.entities - 5 }
            return values
        }
        return ["steps": steps, "none": steps.isEmpty]
    }
}
