import Foundation
import HTTPTypes
import HearthBus
import Hummingbird
import HummingbirdCore

/// Builds the household page's routes: one GET per view, one POST per action, the live feed
/// (`/events`) and the static files.
///
/// An action answers a page's script with the view's refreshed main part (`X-Hearth-Fragment:
/// 1`) and a page without script with a redirect back to the view (303, post/redirect/get); a
/// refused action shows the view again with the refusal beside the field it names (422).
struct WebRouter {
    let pages: HouseholdPages
    let live: LiveFeed
    let gate: HouseholdGate

    static let fragmentHeader = HTTPField.Name("X-Hearth-Fragment")!

    /// The responder: the gate around the router, so that it also answers requests no route
    /// matches (404) and errors, with the same headers and the same token rule.
    func build() -> CallbackResponder<BasicRequestContext> {
        let routes = routes().buildResponder()
        let gate = self.gate
        return CallbackResponder { request, context in
            try await gate.handle(request, context: context) { request, context in
                try await routes.respond(to: request, context: context)
            }
        }
    }

    private func routes() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.get("/") { _, _ in Response(status: .seeOther, headers: [.location: "/year"]) }
        for view in (PageRenderer.views + PageRenderer.unlisted).map(\.name) {
            router.get("/\(view)") { request, _ in
                await pages.show(view, Self.query(request.uri), fragment: Self.isFragment(request))
            }
        }
        router.get("/events") { _, _ in await events() }
        router.get("/assets/:file") { _, context in try asset(try context.parameters.require("file")) }
        // Asked for by browsers and feed readers that do not read the page's <link rel="icon">.
        router.get("/favicon.ico") { _, _ in try asset("hearth-icon.svg") }
        addYearActions(router)
        addTodayActions(router)
        addPeopleActions(router)
        addGameActions(router)
        addUndoActions(router)
        addCalendarRoutes(router)
        return router
    }

    // MARK: - Actions

    /// Reads the form, runs `action`, and answers as the type comment says.
    func act(
        _ request: Request, view: String, _ action: (URLForm) async throws -> Void
    ) async throws -> Response {
        let bytes = try await request.body.collect(upTo: URLForm.maximumBytes)
        let form: URLForm
        do {
            form = try URLForm(String(buffer: bytes))
        } catch {
            return pages.failure(view, error, fragment: Self.isFragment(request))
        }
        let back = Self.back(form["back"], view: view)
        let query = Self.query(URI(back))
        let fragment = Self.isFragment(request)
        do {
            try await action(form)
        } catch {
            guard let refusal = HouseholdPages.refusal(error) else {
                return pages.failure(view, error, fragment: fragment)
            }
            return await pages.show(view, query, fragment: fragment, refused: refusal, form: form)
        }
        // What the action changed is read anew (its bus event may not have arrived yet).
        pages.cache.invalidate(view)
        if fragment { return await pages.show(view, query, fragment: true) }
        return Response(status: .seeOther, headers: [.location: back])
    }

    /// Where to go after an action: the form's `back` if it is one of this site's view
    /// addresses (never another site's: `//host` and `/\host` are refused), else the view.
    static func back(_ given: String?, view: String) -> String {
        guard let given, given.hasPrefix("/\(view)"), !given.hasPrefix("//"), !given.contains("\\"),
            given.utf8.count < 512
        else { return "/\(view)" }
        return given
    }

    static func query(_ uri: URI) -> HouseholdPages.Query {
        // Read as a form sends it (a GET form's spaces come as `+`, a typed plus as `%2B`); a
        // query no form would send (a name twice) as its parameters, the first of each name.
        if let raw = uri.query, let form = try? URLForm(raw) { return form.fields }
        var query: HouseholdPages.Query = [:]
        for (key, value) in uri.queryParameters where query[String(key)] == nil {
            query[String(key)] = String(value)
        }
        return query
    }

    static func isFragment(_ request: Request) -> Bool { request.headers[fragmentHeader] == "1" }

    // MARK: - Live feed and files

    /// The live feed: server-sent events, one `change` event naming an area per bus change, a
    /// comment every 15 s so that a dropped connection is noticed on both sides.
    private func events() async -> Response {
        guard let (id, lines) = await live.connect() else {
            var refusal = HouseholdGate.refusal(
                .serviceUnavailable, "Too many pages are open on this Hearth; try again in a minute.")
            refusal.headers[.retryAfter] = "60"
            return refusal
        }
        let live = self.live
        let headers: HTTPFields = [
            .contentType: "text/event-stream", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no",
        ]
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                do {
                    try await writer.write(ByteBuffer(string: "retry: 1000\nevent: hello\ndata: {}\n\n"))
                    for await line in lines { try await writer.write(ByteBuffer(string: line)) }
                    await live.remove(id)
                    try await writer.finish(nil)
                } catch {
                    await live.remove(id)
                    throw error
                }
            })
    }

    /// A static file from memory (`hearth.css`, `hearth.js`, `hearth-icon.svg`).
    private func asset(_ name: String) throws -> Response {
        guard let (type, bytes) = pages.renderer.assets[name] else { throw HTTPError(.notFound) }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: bytes))
    }
}
