import HearthBus
import HearthCore

/// The open pages' live connections (server-sent events) and what the bus tells them.
///
/// Each bus event becomes one line naming the household area it changed (`LiveFeed.area(of:)`):
/// a page refreshes itself when an area it shows changed (it fetches its own snapshot, so a
/// page never applies a partial change). A page that reconnects after a gap fetches its
/// snapshot on reconnecting, so a missed line costs nothing.
actor LiveFeed {
    /// One connected page's queue of lines.
    typealias Stream = AsyncStream<String>

    private var pages: [Int: Stream.Continuation] = [:]
    private var nextID = 0
    private var closed = false

    /// How many pages are connected.
    var count: Int { pages.count }

    /// The most pages connected at once: a household has a few screens; anything beyond this is
    /// refused (503) rather than allowed to hold the server's memory and tasks.
    static let maximumPages = 512

    /// A new connection: its id (for `remove`) and the lines for it, or `nil` when
    /// `maximumPages` are connected. A slow page keeps the latest 64 lines (it refetches its
    /// snapshot anyway); a closed feed gives a finished stream.
    func connect() -> (id: Int, lines: Stream)? {
        guard pages.count < Self.maximumPages else { return nil }
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(64))
        nextID += 1
        if closed {
            continuation.finish()
        } else {
            pages[nextID] = continuation
        }
        return (nextID, stream)
    }

    /// Forgets a connection whose page went away.
    func remove(_ id: Int) {
        pages.removeValue(forKey: id)?.finish()
    }

    /// Sends `line` to every connected page.
    func broadcast(_ line: String) {
        for continuation in pages.values { continuation.yield(line) }
    }

    /// Ends every connection (the service is stopping) and refuses new ones.
    func close() {
        closed = true
        for continuation in pages.values { continuation.finish() }
        pages.removeAll()
    }

    /// The household area a bus topic changes, as the page names them, or `nil` for a topic no
    /// page shows: `year` (cards, suggestions), `today` (todos, notes), `timetable`, `people`,
    /// `devices` (devices, pairing, sync), `game` (turns).
    static func area(of topic: String) -> String? {
        if topic.hasPrefix("store."), topic.hasSuffix(".changed") {
            let kind = String(topic.dropFirst("store.".count).dropLast(".changed".count))
            return HouseholdDomains.domain(of: kind)?.area
        }
        if topic.hasPrefix("turn.") { return "game" }
        if topic.hasPrefix("sync.") || topic.hasPrefix("pair.") || topic.hasPrefix("device.") { return "devices" }
        if topic.hasPrefix("plan.") { return "people" }
        if topic.hasPrefix("reminder.") { return "today" }
        if topic.hasPrefix("class.") { return "timetable" }
        return nil
    }
}
