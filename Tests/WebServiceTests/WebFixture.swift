import Foundation
import HTTPTypes
import HearthBus
import HearthHost
import HearthTesting
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import WebService

/// A real stack (bus, store, turn, sync processes on a temporary home) and the page's router
/// built on it, driven in process by `PageClient`.
struct WebFixture {
    let context: ZMQContext
    let stack: TestStack
    let store: CommandClient
    let turn: CommandClient
    let web: WebService
    let device: String

    /// The address the test client's requests carry (its `:authority`), and so the page's own origin.
    static let host = "localhost"
    /// What a form posted by the page itself carries.
    static let sameOrigin: HTTPFields = [.origin: "http://\(host)", HTTPField.Name("Host")!: host]

    /// - Parameter clock: now, for the views (a fixed time shows a chosen day as today).
    init(environment: [String: String] = [:], clock: @escaping @Sendable () -> Date = { Date() }) async throws {
        context = try ZMQContext()
        let environment = ["HEARTH_TIME_ZONE": "UTC"].merging(environment) { $1 }
        stack = try await TestStack([.bus, .store, .turn, .sync], environment: environment, context: context)
        store = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(5))
        turn = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.turn), timeout: .seconds(5))
        device = try DeviceIdentity.load(home: stack.home.path)
        web = try WebService(
            configuration: stack.configuration, context: context, device: device, logger: Logger(label: "test.web"),
            clock: clock)
    }

    /// Runs `body` with a client of the page's router.
    func withClient<T: Sendable>(_ body: @Sendable (PageClient) async throws -> T) async throws -> T {
        try await body(PageClient(responder: try await web.responder()))
    }

    /// Stops the stack's processes and closes the clients.
    func close() async {
        await store.close()
        await turn.close()
        _ = await stack.stop()
    }
}

/// What the page answered a `PageClient` request.
struct PageResponse: Sendable {
    let head: HTTPResponse
    let body: ByteBuffer

    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
    /// The body as text.
    var text: String { String(buffer: body) }
}

/// Sends requests straight to the page's router, in process, as hearth-web's HTTP server hands them
/// over: a request with its head and whole body, a context on a channel of its own, the response's
/// body written out in full. It stands in for HummingbirdTesting's router client, whose package
/// (through its live client) brought AsyncHTTPClient, swift-nio-ssl's BoringSSL and swift-nio-http2
/// into every test build for nothing these tests use (issue 64; the real server over loopback is
/// WebLiveTests' part).
struct PageClient: Sendable {
    let responder: CallbackResponder<BasicRequestContext>

    /// The response to `method uri` with `headers` and `body`; an error the router throws is a 500,
    /// as the server answers it.
    func execute(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil
    ) async throws -> PageResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(
                method: method, scheme: "http", authority: WebFixture.host, path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = BasicRequestContext(
            source: ApplicationRequestContextSource(
                channel: NIOAsyncTestingChannel(), logger: Logger(label: "test.web.request")))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        let collected = Collected()
        try await response.body.write(BodyCollector(into: collected))
        return PageResponse(head: response.head, body: collected.bytes.withLock { $0 })
    }

    /// A GET of `uri` as a browser on this machine sends it.
    func get(
        _ uri: String, headers: HTTPFields = [HTTPField.Name("Host")!: WebFixture.host]
    ) async throws -> PageResponse {
        try await execute(uri: uri, method: .get, headers: headers)
    }

    /// A form posted by the page (same origin), as a page with script posts it when `fragment`.
    func post(
        _ uri: String, _ fields: [(String, String)], fragment: Bool = false,
        headers: HTTPFields = WebFixture.sameOrigin
    ) async throws -> PageResponse {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        if fragment { headers[HTTPField.Name("X-Hearth-Fragment")!] = "1" }
        let body = fields.map { "\($0.0)=\(URLForm.escape($0.1))" }.joined(separator: "&")
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    /// A response's body as its writer hands it over (the writer is consumed by the body).
    private final class Collected: Sendable {
        let bytes = Mutex(ByteBuffer())
    }

    /// Gathers a response's body into `into`.
    private struct BodyCollector: ResponseBodyWriter {
        let into: Collected
        mutating func write(_ part: ByteBuffer) async throws {
            into.bytes.withLock { _ = $0.writeImmutableBuffer(part) }
        }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
