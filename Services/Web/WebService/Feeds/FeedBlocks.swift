import Synchronization

/// Each calendar feed area's text, kept until the bus says its area of the page changed (and for
/// at most `lifetime`), so a card changed re-renders the year's cards, not four timetables.
///
/// A text rendered while its area changed is not kept (a generation per area, read before the
/// render and checked before keeping), as in `PageCache`.
final class FeedBlocks: Sendable {
    /// How long a text is kept without any change of its area: what bounds how stale a feed can be
    /// if a bus event is lost (calendar apps read a feed every 15 minutes or more).
    static let lifetime: Duration = .seconds(10)
    /// The most bytes of text kept (beyond it every text is dropped and rendered again).
    static let maximumBytes = 16 << 20

    private struct Entry {
        let text: String
        let rendered: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// The UTF-8 bytes of the kept texts.
        var bytes = 0
        var generations: [String: Int] = [:]
        /// Raised when every area changed ("*"), also those no render has asked about yet.
        var epoch = 0

        /// An area's generation: both counts only rise, so their sum changes with either.
        func generation(_ area: String) -> Int { generations[area, default: 0] &+ epoch }
    }

    private let state = Mutex(State())

    /// The text of `key`, if it is kept and fresh; else the generation of `area` to render it at.
    func lookup(_ key: String, area: String) -> (text: String?, generation: Int) {
        state.withLock { state in
            let generation = state.generation(area)
            guard let entry = state.entries[key], ContinuousClock.now - entry.rendered < Self.lifetime else {
                return (nil, generation)
            }
            return (entry.text, generation)
        }
    }

    /// Keeps `text` unless `area` changed since `generation`.
    func keep(_ key: String, area: String, text: String, generation: Int) {
        state.withLock { state in
            guard state.generation(area) == generation else { return }
            state.bytes -= state.entries.removeValue(forKey: key)?.text.utf8.count ?? 0
            if state.entries.count >= 200 || state.bytes + text.utf8.count > Self.maximumBytes {
                state.entries.removeAll()
                state.bytes = 0
            }
            state.entries[key] = Entry(text: text, rendered: .now)
            state.bytes += text.utf8.count
        }
    }

    /// How many texts are kept, and their bytes (for tests).
    var size: (texts: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.bytes) } }

    /// The page's `area` changed ("*": every area).
    func invalidate(_ area: String) {
        state.withLock { state in
            if area == "*" {
                state.epoch &+= 1
                state.entries.removeAll()
                state.bytes = 0
                return
            }
            state.generations[area, default: 0] &+= 1
            state.entries = state.entries.filter { !$0.key.hasPrefix(area + ":") }
            state.bytes = state.entries.values.reduce(0) { $0 + $1.text.utf8.count }
        }
    }
}
