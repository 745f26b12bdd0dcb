import Foundation
import HTTPTypes
import HearthBus
import HearthCore
import Hummingbird
import HummingbirdCore

/// The page's actions: each one command of the service that owns what it changes, with the
/// form's fields passed as they were typed (the service checks them, as for the CLI).
extension WebRouter {
    func addYearActions(_ router: Router<BasicRequestContext>) {
        router.post("/year/suggestions/:id/accept") { request, context in
            let id = try context.parameters.require("id")
            return try await act(request, view: "year") { _ in
                _ = try await pages.store.send(EventCommands.Accept(id: id))
            }
        }
        router.post("/year/suggestions/:id/decline") { request, context in
            let id = try context.parameters.require("id")
            return try await act(request, view: "year") { _ in
                _ = try await pages.store.send(EventCommands.Decline(id: id))
            }
        }
        router.post("/year/conflicts/resolve") { request, _ in
            try await act(request, view: "year") { form in
                _ = try await pages.store.send(HistoryCommands.Resolve(id: form["id"] ?? "", keep: form["keep"] ?? ""))
            }
        }
    }

    func addTodayActions(_ router: Router<BasicRequestContext>) {
        // A tick: done or not done on the form's day (a repeating todo: that day's occurrence).
        router.post("/today/todos/:id/done") { request, context in
            let id = try context.parameters.require("id")
            return try await act(request, view: "today") { form in
                let date = form.text("date")
                if form["done"] == "0" {
                    _ = try await pages.store.send(TodoCommands.Undone(id: id, date: date))
                } else {
                    _ = try await pages.store.send(TodoCommands.Done(id: id, date: date))
                }
            }
        }
        // An item added to a list (a todo with no date in a collection of kind list).
        router.post("/today/lists/:collection/add") { request, context in
            let collection = try context.parameters.require("collection")
            return try await act(request, view: "today") { form in
                _ = try await pages.store.send(TodoCommands.Add(title: form["title"] ?? "", collection: collection))
            }
        }
        router.post("/today/note") { request, _ in
            try await act(request, view: "today") { form in
                // A browser sends a text area's lines with CR LF; the note keeps LF (CR is a
                // control character the note's rules refuse).
                let text = form["text"].map {
                    $0.replacingOccurrences(of: "\r\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
                }
                _ = try await pages.store.send(
                    NoteCommands.Set(date: form["date"] ?? "", mood: form.text("mood"), text: text))
            }
        }
    }

    func addPeopleActions(_ router: Router<BasicRequestContext>) {
        router.post("/people/plan/:item/done") { request, context in
            let item = try context.parameters.require("item")
            return try await act(request, view: "people") { _ in
                _ = try await pages.store.send(PlanCommands.Done(item: item))
            }
        }
        router.post("/people/plan/:item/snooze") { request, context in
            let item = try context.parameters.require("item")
            return try await act(request, view: "people") { form in
                guard let minutes = form.text("minutes").flatMap(Int64.init) else {
                    throw CommandError.invalidArgument("minutes", "must be a whole number of minutes")
                }
                _ = try await pages.store.send(PlanCommands.Snooze(item: item, minutes: Int(minutes)))
            }
        }
        router.post("/people/plan/:item/reschedule") { request, context in
            let item = try context.parameters.require("item")
            return try await act(request, view: "people") { form in
                _ = try await pages.store.send(PlanCommands.Reschedule(item: item, to: .text(form["to"] ?? "")))
            }
        }
    }

    /// Undo and redo from the bar or the Changes view (`/undo/VIEW`), back to that view.
    func addUndoActions(_ router: Router<BasicRequestContext>) {
        for command in [HistoryCommands.Undo.name, HistoryCommands.Redo.name] {
            router.post("/\(command)/:view") { request, context in
                let view = try context.parameters.require("view")
                guard (PageRenderer.views + PageRenderer.unlisted).contains(where: { $0.name == view }) else {
                    throw HTTPError(.notFound)
                }
                return try await act(request, view: view) { _ in
                    _ = try await pages.store.request(command)
                }
            }
        }
    }

    func addGameActions(_ router: Router<BasicRequestContext>) {
        // Done for the player at this device whose turn it is; `seq` is the session as the page
        // showed it, so a second press (or a stale page) is refused rather than passing a turn.
        router.post("/game/done") { request, _ in
            try await act(request, view: "game") { form in
                _ = try await pages.turn.send(
                    TurnCommands.Done(
                        code: form["code"] ?? "", player: form.text("player"), seq: form.text("seq").flatMap(Int64.init)
                    ))
            }
        }
    }
}
