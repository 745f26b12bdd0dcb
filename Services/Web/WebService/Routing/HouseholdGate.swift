import HTTPTypes
import HearthBus
import HearthHost
import Hummingbird
import HummingbirdCore
import Synchronization

/// The household token `hearth-web` asks for when it listens beyond loopback; replaced when
/// `hearth web token --revoke` tells the service to read the file again (`token.reload`).
final class TokenHolder: Sendable {
    private let token: Mutex<String?>

    init(_ token: String?) { self.token = Mutex(token) }

    var current: String? { token.withLock { $0 } }

    func replace(_ new: String?) { token.withLock { $0 = new } }
}

/// Who may use the page, and the headers every answer carries.
///
/// - Every request names the page by one of its names (`Host`, checked against
///   `HostAllowlist`), or it gets 400: another site's page whose name was made to resolve to
///   this machine (DNS rebinding) reads nothing and changes nothing.
/// - Beyond loopback (`tokenRequired`), every request shows the household token: the
///   `hearth_token` cookie, or `?token=` once (a GET with it sets the cookie and is redirected
///   to the same address without it, so the token does not stay in the address bar or history).
///   Without it: 401 and nothing else.
/// - A request that changes something (anything but GET and HEAD) must come from the page
///   itself: its `Origin` is this server's, or, without `Origin`, `Sec-Fetch-Site:
///   same-origin`. Another site's form or script (CSRF) gets 403, on loopback too (a page in
///   any tab can post to 127.0.0.1).
/// - Every answer: a content security policy with no inline script and no framing, no
///   referrer, no MIME sniffing.
struct HouseholdGate: Sendable {
    let tokenRequired: Bool
    let token: TokenHolder
    let hosts: HostAllowlist

    static var cookieName: String { "hearth_token" }

    func handle(
        _ request: Request, context: BasicRequestContext,
        next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await admit(request, context: context, next: next)
        } catch let error as HTTPError {
            // Answered here rather than by the server, so that it carries the headers below.
            response = Self.refusal(error.status, error.body ?? error.status.reasonPhrase)
        }
        Self.secure(&response.headers)
        return response
    }

    private func admit(
        _ request: Request, context: BasicRequestContext,
        next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let authority = Self.authority(of: request) else {
            return Self.refusal(.badRequest, "Refused: a request must name the page it asks for (no Host).")
        }
        guard hosts.allows(authority) else {
            return Self.refusal(
                .badRequest,
                "Refused: '\(HostAllowlist.host(of: authority))' is not a name of this Hearth page. "
                    + "If the family opens it by that name, add it to [web] host_names in hearth.toml.")
        }
        if tokenRequired {
            let expected = token.current
            let fromQuery = request.uri.queryParameters.get("token")
            let given = Self.presentedToken(request.head)
            guard let expected, let given, HouseholdToken.matches(given, expected) else {
                return Self.refusal(
                    .unauthorized,
                    "This Hearth page needs the household's token. On a computer of the household, run "
                        + "`hearth web token` and open the address it prints (or scan its QR code).")
            }
            // A calendar feed keeps its `?token=`: calendar apps send the address they were
            // given on every refresh, without cookies.
            if fromQuery != nil, request.method == .get, !request.uri.path.hasSuffix(".ics") {
                var response = Response(status: .seeOther, headers: [.location: Self.withoutToken(request.uri)])
                response.setCookie(
                    Cookie(
                        name: Self.cookieName, value: given, maxAge: 400 * 86_400, path: "/", httpOnly: true,
                        sameSite: .strict))
                return response
            }
        }
        if request.method != .get, request.method != .head, !isSameOrigin(request) {
            return Self.refusal(.forbidden, "Refused: this request did not come from the Hearth page itself.")
        }
        return try await next(request, context)
    }

    /// The name and port the request asked for: its `Host` (an HTTP/1 server puts it in the
    /// request's `:authority`; a test client may leave it a header).
    static func authority(of request: Request) -> String? {
        request.headers[HTTPField.Name("Host")!] ?? request.head.authority
    }

    /// The token a request shows: `?token=`, the `hearth_token` cookie, or `Authorization:
    /// Bearer` (also read per connection, by `ConnectionShare`).
    static func presentedToken(_ head: HTTPRequest) -> String? {
        if let fromQuery = URI(head.path ?? "").queryParameters.get("token") { return fromQuery }
        if let cookie = Cookies(from: head.headerFields[values: .cookie])[cookieName] { return cookie.value }
        guard let value = head.headerFields[.authorization], value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count))
    }

    /// Whether the request comes from the page itself: its `Origin` names one of the page's names
    /// and is the very address it asked (or, without `Origin`, a same-origin fetch).
    private func isSameOrigin(_ request: Request) -> Bool {
        if let origin = request.headers[.origin] {
            guard let authority = Self.authority(of: request), let parsed = HostAllowlist.origin(origin),
                hosts.allows(parsed.authority)
            else { return false }
            return parsed.authority.lowercased() == authority.lowercased()
        }
        return request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "same-origin"
    }

    /// The request's path and query without `token=…`.
    static func withoutToken(_ uri: URI) -> String {
        var query = WebRouter.query(uri)
        query["token"] = nil
        return HouseholdPages.address(uri.path, query)
    }

    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let html =
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Hearth</title>"
            + "<p>\(URLForm.escapeHTML(message))</p></html>"
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func secure(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] =
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
    }
}
