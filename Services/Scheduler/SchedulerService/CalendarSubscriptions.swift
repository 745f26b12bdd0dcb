import Foundation
import HearthBus
import HearthCore
import HearthHost

/// Busy times subscribed to by URL (`hearth plan busy subscribe`): fetches a source over HTTP,
/// as calendar apps read a subscribed calendar, and hands what it got to the store.
///
/// A read asks with the last good read's validators (`If-None-Match`, `If-Modified-Since`), so
/// an unchanged calendar costs a 304; the store then reads the copy kept here again (its window
/// moves on a day). A 200's body goes to `<copy>.part`, the store imports it
/// (`plan.busy.import` with `source`), and only then does it replace the copy, so a login page,
/// a truncated body or a file the store refuses never replaces a good calendar: the failure is
/// recorded (`plan.busy.failed`), the busy times stay as they were, and the source is tried
/// again in an hour. Copies live in `HEARTH_HOME/calendars/`, one per URL (named by its FNV-1a);
/// those no source names any more are removed.
///
/// One read of a source at a time: the daily loop and `busy.read` share it.
actor CalendarSubscriptions {
    /// Each response's body is at most the store's largest calendar file.
    static let maximumBytes = 32 * 1024 * 1024
    /// A read (headers and the whole body) that has not finished in this long fails: a server
    /// sending a byte every 10 s kept a read alive for 14 minutes when only the headers were
    /// bounded (issue 62).
    let deadline: Duration
    /// Redirects followed at most.
    static let maximumRedirects = 5
    /// The ports this device's own listeners serve (hearth-web's): a source may not redirect to
    /// one of them on this machine, or the household's own feed would be read as busy times
    /// (issue 62).
    let ownPorts: Set<Int>

    private let store: CommandClient
    private let directory: String
    private let clock: any SchedulerClock
    private var reading: [String: Task<BusyReads.Read, any Error>] = [:]
    /// The sources `forget` last kept the copies of.
    private var forgotten: Set<String>?

    init(
        home: String, store: CommandClient, clock: any SchedulerClock, deadline: Duration = .seconds(30),
        ownPorts: Set<Int> = []
    ) {
        (self.store, self.clock, self.deadline, self.ownPorts) = (store, clock, deadline, ownPorts)
        directory = (home as NSString).appendingPathComponent("calendars")
    }

    /// Reads `source` now (or joins the read already under way); throws only when the store did
    /// not answer.
    func read(_ source: BusySource) async throws -> BusyReads.Read {
        if let running = reading[source.url] { return try await running.value }
        let task = Task { try await fetch(source) }
        reading[source.url] = task
        defer { reading[source.url] = nil }
        return try await task.value
    }

    /// Removes the copies of calendars no longer subscribed to. The folder is walked only when
    /// the sources differ from the last walk's (the loop calls this on every look, a minute
    /// apart at most). A walk counts once it is over: a `busy.read` arriving while the loop's walk
    /// runs walks too, so its reply never comes before the copies are gone.
    func forget(except sources: [BusySource]) async {
        let urls = Set(sources.map(\.url))
        guard urls != forgotten else { return }
        defer { forgotten = urls }
        let kept = Set(urls.map(copy(of:)))
        let directory = directory
        await offPool {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for name in names {
                let path = (directory as NSString).appendingPathComponent(name)
                if !kept.contains(path.hasSuffix(".part") ? String(path.dropLast(5)) : path) {
                    try? FileManager.default.removeItem(atPath: path)
                }
            }
        }
    }

    /// Where the last good body of `url` is kept.
    nonisolated func copy(of url: String) -> String {
        let name = String(FNV1a.hash(url.utf8), radix: 16)
        return (directory as NSString).appendingPathComponent("\(name).ics")
    }

    // MARK: - One read

    private enum Outcome {
        case fetched(Data, etag: String?, lastModified: String?)
        case unchanged
        case failed(String)
    }

    private nonisolated func fetch(_ source: BusySource) async throws -> BusyReads.Read {
        let copy = copy(of: source.url)
        let kept = await offPool { FileManager.default.fileExists(atPath: copy) }
        let outcome = await get(source, conditional: kept)
        let now = ReminderBoard.milliseconds(clock.now())
        switch outcome {
        case .failed(let reason):
            return try await failed(source, reason, now)
        case .unchanged:
            let imported = try await importing(source, copy, etag: source.etag, source.lastModified, now)
            return BusyReads.Read(url: source.url, unchanged: true, imported: imported.0, error: imported.1)
        case .fetched(let body, let etag, let lastModified):
            let part = copy + ".part"
            if let reason = await write(body, to: part) { return try await failed(source, reason, now) }
            let imported = try await importing(source, part, etag: etag, lastModified, now)
            if imported.0 != nil {
                // rename(2): the copy is the old calendar or the new one, never half of either.
                await offPool { _ = rename(part, copy) }
            } else {
                await offPool { try? FileManager.default.removeItem(atPath: part) }
            }
            return BusyReads.Read(url: source.url, unchanged: false, imported: imported.0, error: imported.1)
        }
    }

    /// The GET, conditional on the validators of the last good read when its copy is kept,
    /// following at most `maximumRedirects` redirects, none to this device's own listeners. The
    /// URL's credentials go only to the host it names.
    private nonisolated func get(_ source: BusySource, conditional: Bool) async -> Outcome {
        guard var parts = URLComponents(string: source.url) else { return .failed("not a URL") }
        let (user, password) = (parts.user, parts.password)
        (parts.user, parts.password) = (nil, nil)
        let (deadline, first, ownPorts) = (self.deadline, parts, self.ownPorts)
        do {
            return try await Self.within(deadline) { () async throws -> Outcome in
                var current = first
                var seen: Set<String> = []
                while true {
                    let place = Self.place(current)
                    let url = current.string ?? source.url
                    guard seen.insert(url).inserted, seen.count <= Self.maximumRedirects + 1 else {
                        return .failed("\(Self.place(first)) redirects in a loop or more than 5 times")
                    }
                    if let refusal = await Self.ownListener(current, ports: ownPorts) { return .failed(refusal) }
                    var request = HTTPGet(url: url, maximumBytes: Self.maximumBytes, timeout: deadline)
                    if let user, current.host == first.host, current.port == first.port {
                        (request.user, request.password) = (user, password ?? "")
                    }
                    request.headers = [
                        "User-Agent: Hearth (busy times from a subscribed calendar)",
                        "Accept: text/calendar, */*;q=0.1",
                    ]
                    if conditional {
                        if let etag = source.etag { request.headers.append("If-None-Match: \(etag)") }
                        if let date = source.lastModified { request.headers.append("If-Modified-Since: \(date)") }
                    }
                    let response = try await request.run()
                    switch response.status {
                    case 301, 302, 303, 307, 308:
                        guard let location = response.headers["location"],
                            let next = URL(string: location, relativeTo: URL(string: url))?.absoluteURL,
                            next.scheme == "http" || next.scheme == "https",
                            let components = URLComponents(url: next, resolvingAgainstBaseURL: false),
                            components.host?.isEmpty == false
                        else { return .failed("\(place) redirects without an http(s) address to go to") }
                        current = components
                    case 304 where conditional: return .unchanged
                    case 200:
                        return .fetched(
                            response.body, etag: response.headers["etag"],
                            lastModified: response.headers["last-modified"])
                    default:
                        return .failed(
                            "the server answered HTTP \(response.status)"
                                + (Self.phrase(response.status).isEmpty ? "" : " \(Self.phrase(response.status))"))
                    }
                }
            }
        } catch is WholeReadTimeout {
            return .failed(Self.tooSlow(parts, deadline))
        } catch HTTPGet.Failure.timeout {
            return .failed(Self.tooSlow(parts, deadline))
        } catch HTTPGet.Failure.tooLarge {
            return .failed("the calendar is over the \(Self.maximumBytes / 1_048_576) MiB limit")
        } catch let failure as HTTPGet.Failure {
            return .failed(Self.reason(failure, host: parts.host ?? "", port: parts.port))
        } catch {
            return .failed("cannot read from \(Self.place(parts)): \(error)")
        }
    }

    private static func tooSlow(_ parts: URLComponents, _ deadline: Duration) -> String {
        "\(place(parts)) did not send the whole calendar within \(deadline.milliseconds / 1_000) s"
    }

    /// The reason phrase of the statuses a calendar server answers with.
    static func phrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }

    /// Why `parts` may not be read, when it is one of this device's own listeners (a port of
    /// `ports` on this machine), or `nil`.
    static func ownListener(_ parts: URLComponents, ports: Set<Int>) async -> String? {
        let port = parts.port ?? (parts.scheme == "https" ? 443 : 80)
        guard ports.contains(port), let host = parts.host else { return nil }
        guard await offPool({ MachineAddresses.isThisMachine(host) }) else { return nil }
        return "\(place(parts)) is this device's own hearth-web: its feeds are this household's own times, "
            + "not busy times (a redirect there is refused)"
    }

    /// A read that ran past its deadline.
    struct WholeReadTimeout: Error {}

    /// `work`'s result if it finishes within `limit`; past it, `work` is cancelled (the
    /// connection closes) and `WholeReadTimeout` thrown.
    static func within<Result: Sendable>(
        _ limit: Duration, _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw WholeReadTimeout()
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private static func place(_ parts: URLComponents) -> String {
        parts.port.map { "\(parts.host ?? ""):\($0)" } ?? parts.host ?? ""
    }

    /// A transport failure in a person's words.
    static func reason(_ failure: HTTPGet.Failure, host: String, port: Int?) -> String {
        let place = port.map { "\(host):\($0)" } ?? host
        switch failure {
        case .connect(ECONNREFUSED): return "nothing answers at \(place) (connection refused)"
        case .connect(EHOSTUNREACH), .connect(ENETUNREACH):
            return "\(place) cannot be reached from here (is it on this network?)"
        case .connect(let code): return "cannot reach \(place): \(String(cString: strerror(code)))"
        case .resolve: return "cannot find \(host) (its name does not resolve)"
        case .connectTimeout: return "no connection to \(place) within 5 s"
        case .timeout: return "\(place) did not send the calendar within 30 s"
        case .tooLarge: return "the calendar is over the \(maximumBytes / 1_048_576) MiB limit"
        case .closed: return "\(place) closed the connection before answering"
        case .certificate(let why): return "\(place)'s certificate is not trusted here: \(why)"
        case .cancelled: return "the read of \(place) was stopped"
        case .other(let why): return "cannot read from \(place): \(why)"
        }
    }

    /// Writes a fetched body; the reason it could not be, or `nil`.
    private nonisolated func write(_ body: Data, to path: String) async -> String? {
        let directory = directory
        return await offPool { () -> String? in
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                // Another member's calendar: readable by the household's own user only (it was
                // 0644 under the default umask: issue 62).
                guard
                    FileManager.default.createFile(
                        atPath: path, contents: body, attributes: [.posixPermissions: 0o600])
                else { return "cannot keep a copy in \(directory)" }
                PrivateFile.tighten(path)
                return nil
            } catch {
                return "cannot keep a copy in \(directory): \(error.localizedDescription)"
            }
        }
    }

    /// `plan.busy.import` of `path` for `source`: what the store read, or why it refused the
    /// calendar (recorded on the source). Throws when the store does not answer.
    private nonisolated func importing(
        _ source: BusySource, _ path: String, etag: String?, _ lastModified: String?, _ now: Int64
    ) async throws -> (BusyImport?, String?) {
        let command = BusyCommands.Import(
            path: path, source: source.url, etag: etag, lastModified: lastModified, now: now)
        do {
            return (try await store.send(command), nil)
        } catch CommandClientError.refused(let refusal) {
            // Refused as a calendar (not UTF-8, no VCALENDAR, too large): recorded on the source.
            // Not found: unsubscribed meanwhile, nothing to record.
            if refusal.code != "not_found" { _ = try await failed(source, refusal.message, now) }
            return (nil, refusal.message)
        }
    }

    /// Records a failed read on the source (one unsubscribed meanwhile is let go).
    private nonisolated func failed(
        _ source: BusySource, _ reason: String, _ now: Int64
    ) async throws -> BusyReads.Read {
        do {
            _ = try await store.send(BusyCommands.Failed(source: source.url, error: reason, now: now))
        } catch CommandClientError.refused(let refusal) where refusal.code == "not_found" {}
        return BusyReads.Read(url: source.url, unchanged: false, error: reason)
    }
}
