import Hummingbird
import Synchronization

/// Rendered views, kept until the bus says their area changed (and for at most a second), with
/// one render at a time per view: under load (a kitchen screen and every phone refreshing on each
/// change) a view is rendered about once per change instead of once per request.
///
/// - A view no one has rendered since its area changed is rendered by the first request; the
///   others asking meanwhile wait for that render rather than each doing it again.
/// - A view older than `lifetime` is rendered again by the first request that finds it so; the
///   others meanwhile get the one-second-old view. `lifetime` also bounds how stale a view can be
///   if a bus event is lost (the bus restarting).
/// - A render that began before a change of its area is not kept (each area has a generation,
///   read before loading and checked before keeping), so a change that lands while a view is being
///   read cannot leave the view from before it in the cache.
final class PageCache: Sendable {
    static let lifetime: Duration = .seconds(1)
    /// The most bytes of views kept (beyond it the cache starts again): keys come from requests,
    /// and a feed is megabytes, so a count alone let random queries grow hearth-web to 1.68 GB.
    static let maximumBytes = 32 << 20

    /// What a request is to do for a view.
    enum Lookup {
        /// Answer with this.
        case cached(Response)
        /// Render it, then `keep` (or `abandon`) it: this request is the one rendering it.
        case render(generation: Int)
    }

    private struct Entry {
        let area: String
        let status: HTTPResponse.Status
        let body: ByteBuffer
        /// The answer's own headers (a calendar feed's); `nil`: a view's (`PageRenderer.response`).
        let headers: HTTPFields?
        let rendered: ContinuousClock.Instant

        var response: Response {
            guard let headers else { return PageRenderer.response(status, body) }
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
        }
    }

    /// The area of the calendar feeds (`/calendar.ics`): they show every area, so a change of any
    /// is a change of theirs.
    static let calendarArea = "calendar"

    private struct State {
        private(set) var entries: [String: Entry] = [:]
        /// The bytes of the kept views' bodies.
        private(set) var bytes = 0
        var generations: [String: Int] = [:]
        /// Views being rendered, with the requests waiting for them.
        var rendering: [String: [CheckedContinuation<Void, Never>]] = [:]

        /// Keeps `entry` under `key`, first dropping every view when it would pass the bounds.
        mutating func keep(_ key: String, _ entry: Entry) {
            bytes -= entries.removeValue(forKey: key)?.body.readableBytes ?? 0
            if entries.count >= 1_000 || bytes + entry.body.readableBytes > PageCache.maximumBytes { removeAll() }
            entries[key] = entry
            bytes += entry.body.readableBytes
        }

        mutating func removeAll() {
            entries.removeAll()
            bytes = 0
        }

        mutating func removeAll(where drop: (Entry) -> Bool) {
            entries = entries.filter { !drop($0.value) }
            bytes = entries.values.reduce(0) { $0 + $1.body.readableBytes }
        }
    }

    private let state = Mutex(State())
    /// The calendar feeds' texts by area, dropped with their area's views.
    let feedBlocks = FeedBlocks()
    /// The clock the lifetime is read on (a test's own clock, to age views without waiting).
    private let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) { self.now = now }

    /// What to do for view `key` of `area`: a cached answer, or render it (after waiting for a
    /// render already under way, if there is no view to answer with meanwhile).
    func lookup(_ key: String, area: String) async -> Lookup {
        while true {
            let found = state.withLock { state -> Lookup? in
                let entry = state.entries[key]
                if let entry, now() - entry.rendered < Self.lifetime || state.rendering[key] != nil {
                    return .cached(entry.response)
                }
                if state.rendering[key] != nil { return nil }
                state.rendering[key] = []
                return .render(generation: state.generations[area, default: 0])
            }
            if let found { return found }
            await withCheckedContinuation { (waiting: CheckedContinuation<Void, Never>) in
                let registered = state.withLock { state -> Bool in
                    guard state.rendering[key] != nil else { return false }
                    state.rendering[key]!.append(waiting)
                    return true
                }
                if !registered { waiting.resume() }
            }
        }
    }

    /// Keeps the view this request rendered (unless `area` changed since `generation`)
    /// and wakes the requests waiting for it.
    func keep(
        _ key: String, status: HTTPResponse.Status, body: ByteBuffer, area: String, generation: Int,
        headers: HTTPFields? = nil
    ) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.generations[area, default: 0] == generation {
                state.keep(key, Entry(area: area, status: status, body: body, headers: headers, rendered: now()))
            }
            return state.rendering.removeValue(forKey: key) ?? []
        }
        for request in waiting { request.resume() }
    }

    /// The render failed (a service did not answer): nothing is kept, and the requests waiting
    /// for it try for themselves.
    func abandon(_ key: String) {
        let waiting = state.withLock { $0.rendering.removeValue(forKey: key) ?? [] }
        for request in waiting { request.resume() }
    }

    /// How many views are kept, and their bytes (for tests).
    var size: (views: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.bytes) } }

    /// How many requests wait for the render of `key` (for tests).
    func waiting(_ key: String) -> Int { state.withLock { $0.rendering[key]?.count ?? 0 } }

    /// `area` changed ("*": every area, after events were lost): its views are read again.
    func invalidate(_ area: String) {
        feedBlocks.invalidate(area)
        state.withLock { state in
            if area == "*" {
                for view in PageRenderer.views { state.generations[view.name, default: 0] &+= 1 }
                state.generations[Self.calendarArea, default: 0] &+= 1
                state.removeAll()
            } else {
                state.generations[area, default: 0] &+= 1
                state.generations[Self.calendarArea, default: 0] &+= 1
                state.removeAll { $0.area == area || $0.area == Self.calendarArea }
            }
        }
    }
}
