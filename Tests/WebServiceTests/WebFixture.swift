import Foundation
import HTTPTypes
import HearthBus
import HearthHost
import HearthTesting
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import WebService

/// A real stack (bus, store, turn, sync processes on a temporary home) and the page's router
/// built on it, driven through Hummingbird's test client.
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

    /// Runs `body` with a test client of the page's router.
    func withClient<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let application = Application(responder: try await web.responder())
        return try await application.test(.router) { client in try await body(client) }
    }

    /// Stops the stack's processes and closes the clients.
    func close() async {
        await store.close()
        await turn.close()
        _ = await stack.stop()
    }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }
}

extension TestClientProtocol {
    /// A GET of `uri` as a browser on this machine sends it.
    func get(
        _ uri: String, headers: HTTPFields = [HTTPField.Name("Host")!: WebFixture.host]
    ) async throws
        -> TestResponse
    {
        try await execute(uri: uri, method: .get, headers: headers)
    }

    /// A form posted by the page (same origin), as a page with script posts it when `fragment`.
    func post(
        _ uri: String, _ fields: [(String, String)], fragment: Bool = false,
        headers: HTTPFields = WebFixture.sameOrigin
    ) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        if fragment { headers[HTTPField.Name("X-Hearth-Fragment")!] = "1" }
        let body = fields.map { "\($0.0)=\(URLForm.escape($0.1))" }.joined(separator: "&")
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
    }
}
