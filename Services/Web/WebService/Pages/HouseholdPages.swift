import Foundation
import HTTPTypes
import HearthBus
import HearthCore
import Hummingbird
import HummingbirdCore

/// The household page's views and actions, read and done through the owning services' commands
/// (the page never opens the store's database): each view is a loader from the address's query
/// to the template's values, and each action one command whose refusal is shown beside the
/// field it names.
struct HouseholdPages: Sendable {
    let store: CommandClient
    let turn: CommandClient
    let sync: CommandClient
    /// This device's id: the game view's Done is for the players sitting here.
    let device: String
    let renderer: PageRenderer
    let timeZone: TimeZone
    let weekStart: Int
    /// Rendered views, kept until their area changes (at most a second).
    let cache: PageCache
    /// Now: the real time, or a test's fixed one (what day "today" is decides what views show).
    var clock: @Sendable () -> Date = { Date() }

    /// The query of a view's address.
    typealias Query = [String: String]

    /// A view's values from its query.
    /// - Throws: `CommandClientError` when a service refuses or does not answer.
    func load(_ view: String, _ query: Query) async throws -> [String: Any] {
        switch view {
        case "year": try await year(query)
        case "today": try await today(query)
        case "stats": try await stats(query)
        case "search": try await search(query)
        case "timetable": try await timetable(query)
        case "people": try await people(query)
        case "game": try await game(query)
        case "devices": try await devices(query)
        case "changes": try await changes(query)
        default: throw CommandError(code: "not_found", message: "no view '\(view)'")
        }
    }

    /// The view as a page (or its main part for a live refresh), with a refused action's errors
    /// beside their fields and what was typed kept.
    func show(
        _ view: String, _ query: Query, fragment: Bool, refused: CommandError? = nil, form: URLForm? = nil
    ) async -> Response {
        // A view as anyone would see it comes from the cache; one with a refusal and what was
        // typed is this request's own.
        // (A search is its asker's own: it spans every area and is not kept.)
        let shared = refused == nil && form == nil && view != "search"
        let key =
            "\(view)|\(fragment)|"
            + query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        var generation = 0
        if shared {
            switch await cache.lookup(key, area: Self.area(of: view)) {
            case .cached(let response): return response
            case .render(let current): generation = current
            }
        }
        var context: [String: Any]
        do {
            context = try await load(view, query)
        } catch {
            if shared { cache.abandon(key) }
            return failure(view, error, fragment: fragment)
        }
        context["areas"] = Self.area(of: view)
        if var bar = await undoBar() {
            (bar["back"], bar["from"]) = (Self.address("/\(view)", query), view)
            context["undo"] = bar
        }
        if let refused {
            // Beside its field where the view has a place for it, else at the top of the view.
            if let field = Self.field(of: refused), Self.fieldsShown[view, default: []].contains(field) {
                context["errors"] = [field: refused.message]
            } else {
                context["error"] = refused.message
            }
        }
        if let form { context["typed"] = form.fields }
        let status: HTTPResponse.Status = refused == nil ? .ok : .unprocessableContent
        let body = renderer.render(view, context: context, fragment: fragment)
        if shared { cache.keep(key, status: status, body: body, area: Self.area(of: view), generation: generation) }
        return PageRenderer.response(status, body)
    }

    /// The household areas a view shows (`LiveFeed.area(of:)`), space-separated: its own name,
    /// but for the stats, which are the todos' (`today`), and a search or the changes, which span
    /// them.
    static func area(of view: String) -> String {
        switch view {
        case "stats": "today"
        case "search", "changes": "year today timetable people"
        default: view
        }
    }

    /// The fields each view's forms show a refusal beside (any other refusal is shown at the top).
    static let fieldsShown: [String: Set<String>] = ["today": ["mood", "text"], "people": ["to", "minutes"]]

    /// The argument a refusal names: `'title' must be …` → `title`.
    static func field(of error: CommandError) -> String? {
        guard error.message.hasPrefix("'"), let end = error.message.dropFirst().firstIndex(of: "'") else {
            return nil
        }
        let name = error.message[error.message.index(after: error.message.startIndex)..<end]
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." } ? String(name) : nil
    }

    /// The view's place in the page saying what went wrong: a service that did not answer (503),
    /// or what it refused (400, 404), such as a timetable without its Week-1 date. The page stays
    /// live: once the cause is fixed, the change refreshes it into the view.
    func failure(_ view: String, _ error: any Error, fragment: Bool) -> Response {
        let (status, message): (HTTPResponse.Status, String) =
            if let refusal = Self.refusal(error) {
                (refusal.code == "not_found" ? .notFound : .badRequest, refusal.message)
            } else {
                (.serviceUnavailable, "A Hearth service is not answering (\(error)). Is the stack running?")
            }
        return renderer.page(
            view, context: ["message": message, "areas": Self.area(of: view)], fragment: fragment, status: status,
            template: "failure")
    }

    /// What a service (or this page) refused, from an error; `nil` for anything else (a
    /// service that did not answer).
    static func refusal(_ error: any Error) -> CommandError? {
        if case .refused(let refusal) = error as? CommandClientError { return refusal }
        return error as? CommandError
    }

    /// `path?name=value&…` with names and values escaped, names sorted, empty values left out.
    static func address(_ path: String, _ query: [String: String]) -> String {
        let pairs = query.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
            .map { "\(URLForm.escape($0.key))=\(URLForm.escape($0.value))" }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }

    /// Today on the household's clock.
    var todayDate: LocalDate { LocalDate(clock(), in: timeZone) }
}
