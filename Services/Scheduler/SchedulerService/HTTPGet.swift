import CCurl
import Foundation
import HearthBus
import Synchronization

/// One HTTP(S) GET through libcurl (Debian's `libcurl4`, TLS by the system's OpenSSL and its
/// certificate store), as a subscribed calendar is read: no redirect followed (the caller checks
/// where each leads), the body bounded, the whole transfer bounded in time, and a cancelled task
/// ending it at once.
///
/// Why libcurl rather than AsyncHTTPClient, which this replaced: AsyncHTTPClient brought two
/// copies of BoringSSL, swift-nio-ssl, swift-nio-http2 and swift-certificates into the build, for
/// one GET a day per calendar. Measured on the 2-core CI machine (2026-12-06, a clean release
/// build of 734 s): the two BoringSSL targets alone took 225 s and the rest of AsyncHTTPClient's
/// own tree 144 s, in each of the debug and the release build.
///
/// The transfer blocks its thread, so it runs off the cooperative pool (`offPool`).
struct HTTPGet: Sendable {
    /// What came back: the status, the headers asked for (by lower-case name) and the body.
    struct Response: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data
    }

    /// Why a transfer did not give a response.
    enum Failure: Error, Equatable {
        /// Nothing listens at the address, or it cannot be reached (`errno` of the connect).
        case connect(errno: Int32)
        /// The host's name does not resolve.
        case resolve
        /// No connection within the connect timeout.
        case connectTimeout
        /// The whole transfer did not finish within `timeout`.
        case timeout
        /// The body passed `maximumBytes`.
        case tooLarge
        /// The server closed the connection before answering in full.
        case closed
        /// The server's certificate is not trusted for its name.
        case certificate(String)
        /// The task was cancelled.
        case cancelled
        /// Anything else libcurl reports, in its words.
        case other(String)
    }

    let url: String
    var user: String?
    var password: String?
    /// Request headers, `Name: value`.
    var headers: [String] = []
    /// The response headers to return, by lower-case name.
    var wanted: Set<String> = ["etag", "last-modified", "location"]
    var maximumBytes: Int
    var connectTimeout: Duration = .seconds(5)
    var timeout: Duration

    private static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Performs the GET; a cancelled task aborts it.
    func run() async throws(Failure) -> Response {
        let cancelled = CancelFlag()
        let request = self
        do {
            return try await withTaskCancellationHandler {
                try await offPool { () throws(Failure) -> Response in try request.perform(cancelled) }
            } onCancel: {
                cancelled.set()
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .other("\(error)")
        }
    }

    /// The transfer, blocking this thread.
    private func perform(_ cancelled: CancelFlag) throws(Failure) -> Response {
        guard Self.ready, let handle = curl_easy_init() else { throw .other("libcurl could not start") }
        defer { curl_easy_cleanup(handle) }
        let sink = Sink(maximumBytes: maximumBytes, wanted: wanted, cancelled: cancelled)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        _ = hearth_curl_string(handle, CURLOPT_URL, url)
        _ = hearth_curl_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = hearth_curl_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = hearth_curl_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = hearth_curl_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout.milliseconds))
        _ = hearth_curl_long(handle, CURLOPT_TIMEOUT_MS, Int(timeout.milliseconds))
        // gzip and deflate decoded as they come; the body's bound counts the decoded bytes.
        _ = hearth_curl_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        if let user {
            _ = hearth_curl_long(handle, CURLOPT_HTTPAUTH, 1)  // CURLAUTH_BASIC (a cast macro Swift cannot import)
            _ = hearth_curl_string(handle, CURLOPT_USERNAME, user)
            _ = hearth_curl_string(handle, CURLOPT_PASSWORD, password ?? "")
        }
        _ = hearth_curl_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        _ = hearth_curl_data_function(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().body(data, size * count)
        }
        _ = hearth_curl_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = hearth_curl_data_function(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().header(data, size * count)
        }
        _ = hearth_curl_pointer(handle, CURLOPT_HEADERDATA, context)
        _ = hearth_curl_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = hearth_curl_progress_function(handle) { context, _, _, _, _ in
            Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().cancelled.isSet ? 1 : 0
        }
        _ = hearth_curl_pointer(handle, CURLOPT_XFERINFODATA, context)
        let code = withExtendedLifetime(sink) { curl_easy_perform(handle) }
        guard code == CURLE_OK else {
            var osError = 0
            _ = hearth_curl_info_long(handle, CURLINFO_OS_ERRNO, &osError)
            throw Self.failure(code, osError: Int32(osError), sink: sink, handle: handle)
        }
        var status = 0
        _ = hearth_curl_info_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return Response(status: status, headers: sink.headers, body: sink.data)
    }

    private static func failure(
        _ code: CURLcode, osError: Int32, sink: Sink, handle: UnsafeMutableRawPointer
    ) -> Failure {
        switch code {
        case CURLE_COULDNT_CONNECT: return .connect(errno: osError == 0 ? ECONNREFUSED : osError)
        case CURLE_COULDNT_RESOLVE_HOST: return .resolve
        case CURLE_OPERATION_TIMEDOUT:
            // A connect that never finished, or a transfer that did not end in time.
            var connected = 0
            _ = hearth_curl_info_long(handle, CURLINFO_PRIMARY_PORT, &connected)
            return connected == 0 ? .connectTimeout : .timeout
        case CURLE_WRITE_ERROR where sink.overflowed: return .tooLarge
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_SEND_ERROR: return .closed
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CONNECT_ERROR:
            return .certificate(String(cString: curl_easy_strerror(code)))
        default: return .other(String(cString: curl_easy_strerror(code)))
        }
    }
}

/// Whether a transfer's task was cancelled, read by libcurl's progress callback on the
/// transfer's thread.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// Where one transfer's body and headers go. `@unchecked Sendable`: it is made, filled and read
/// on the one thread that runs `curl_easy_perform` (libcurl calls the callbacks on that thread,
/// during that call); only `cancelled`, itself thread-safe, is set from another.
private final class Sink: @unchecked Sendable {
    let maximumBytes: Int
    let wanted: Set<String>
    let cancelled: CancelFlag
    var data = Data()
    var headers: [String: String] = [:]
    var overflowed = false

    init(maximumBytes: Int, wanted: Set<String>, cancelled: CancelFlag) {
        (self.maximumBytes, self.wanted, self.cancelled) = (maximumBytes, wanted, cancelled)
    }

    /// A piece of the body: kept, or the transfer stopped (returning less than was given) once
    /// past the bound.
    func body(_ bytes: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let bytes, data.count + count <= maximumBytes else {
            overflowed = true
            return 0
        }
        data.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    /// One header line. A status line starts a response (after a `100 Continue`, another), so
    /// the headers kept are the last response's.
    func header(_ bytes: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let bytes else { return 0 }
        let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = [:]
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            if wanted.contains(name) {
                headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return count
    }
}
