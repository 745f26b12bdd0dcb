import Foundation
import HearthBus
import Hummingbird
import Synchronization

/// A calendar served over HTTP on loopback as a family NAS serves one: behind basic auth, with an
/// ETag, answering 304 to a matching `If-None-Match`; the test changes what it serves (a new
/// calendar, an error status, a login page) and reads every request it was sent, stamped with
/// the scheduler's clock.
final class CalendarServer: Sendable {
    struct Request: Sendable {
        let ifNoneMatch: String?
        let authorization: String?
        let at: Date
        let status: Int
    }

    private struct State {
        var body = ""
        var etag = "\"0\""
        var contentType = "text/calendar; charset=utf-8"
        /// An error status to answer with instead of the calendar.
        var failing: HTTPResponse.Status?
        var requests: [Request] = []
    }

    static let credentials = "Basic " + Data("ann:s3cret".utf8).base64EncodedString()

    private let state = Mutex(State())
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// Serves `body` from now on under a new ETag (`contentType` as a server would label it).
    func serve(_ body: String, etag: String, contentType: String = "text/calendar; charset=utf-8") {
        state.withLock { ($0.body, $0.etag, $0.contentType, $0.failing) = (body, etag, contentType, nil) }
    }

    /// Answers every request with `status` (`nil`: serve the calendar again).
    func fail(with status: HTTPResponse.Status?) { state.withLock { $0.failing = status } }

    var requests: [Request] { state.withLock { $0.requests } }

    /// Runs the server on a free loopback port while `body` runs with its base URL.
    func run(_ body: (_ base: String) async throws -> Void) async throws {
        let router = Router()
        router.get("family.ics") { request, _ -> Response in self.answer(request) }
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                if let number = channel.localAddress?.port { port.yield(number) }
            })
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await application.runService() }
            let number = await withTimeout(.seconds(10)) { await ports.first { _ in true } }
            guard let number else {
                tasks.cancelAll()
                throw CancellationError()
            }
            do {
                try await body("http://127.0.0.1:\(number)")
            } catch {
                tasks.cancelAll()
                throw error
            }
            tasks.cancelAll()
        }
    }

    private func answer(_ request: Hummingbird.Request) -> Response {
        let (ifNoneMatch, authorization) = (request.headers[.ifNoneMatch], request.headers[.authorization])
        return state.withLock { state in
            let status: HTTPResponse.Status
            var headers: HTTPFields = [:]
            var body = ""
            if authorization != Self.credentials {
                (status, headers[.wwwAuthenticate]) = (.unauthorized, "Basic realm=\"nas\"")
            } else if let failing = state.failing {
                status = failing
            } else if ifNoneMatch == state.etag {
                (status, headers[.eTag]) = (.notModified, state.etag)
            } else {
                (status, body) = (.ok, state.body)
                (headers[.eTag], headers[.contentType]) = (state.etag, state.contentType)
            }
            state.requests.append(
                Request(ifNoneMatch: ifNoneMatch, authorization: authorization, at: now(), status: status.code))
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
    }
}
