import HearthCore
import Synchronization

/// How far along a service's long commands are, so a terminal can show a progress line while it
/// waits: the caller names a command's work with a token (its `progress` argument), the handler
/// reports what it has done as it goes, and `progress {token}` (another request, answered
/// beside the long one) reads it back.
///
/// A work may have parts (a `sync now` syncs with several devices at once): each reports its
/// own done and total, and the token's progress is their sum. At most `kept` tokens are held;
/// the oldest goes first, so callers that never ask cost nothing lasting.
public final class ProgressBoard: Sendable {
    /// The most tokens held at once.
    public static let kept = 64
    /// The longest token taken (a UUID's text is 36).
    public static let maximumTokenLength = 64

    private struct Work {
        var parts: [String: (done: Int, total: Int)] = [:]
        var unit: String
        let started: ContinuousClock.Instant
    }

    private let works = Mutex<(byToken: [String: Work], order: [String])>(([:], []))

    public init() {}

    /// The token a request gives (`progress`), if it is one the board takes.
    public static func token(_ arguments: [String: JSONValue]) -> String? {
        guard let token = arguments["progress"]?.stringValue, !token.isEmpty,
            token.utf8.count <= maximumTokenLength
        else { return nil }
        return token
    }

    /// Records that `part` of the work under `token` has done `done` of `total` `unit`s. Does
    /// nothing without a token.
    public func report(_ token: String?, part: String = "", done: Int, total: Int, unit: String) {
        guard let token else { return }
        works.withLock { state in
            if state.byToken[token] == nil {
                state.byToken[token] = Work(unit: unit, started: .now)
                state.order.append(token)
                if state.order.count > Self.kept { state.byToken[state.order.removeFirst()] = nil }
            }
            state.byToken[token]?.unit = unit
            state.byToken[token]?.parts[part] = (max(0, done), max(0, total))
        }
    }

    /// Forgets the work under `token` (it ended).
    public func finish(_ token: String?) {
        guard let token else { return }
        works.withLock { state in
            state.byToken[token] = nil
            state.order.removeAll { $0 == token }
        }
    }

    /// What `progress {token}` answers: `known` false for a token nothing reported yet (or one
    /// that ended); else `done`, `total` (0 while unknown), `unit` and `elapsed_ms`.
    public func json(_ token: String) -> JSONValue {
        works.withLock { state in
            guard let work = state.byToken[token] else { return Self.encoded(ProgressReport(known: false)) }
            let done = work.parts.values.reduce(0) { $0 + $1.done }
            let total = work.parts.values.reduce(0) { $0 + $1.total }
            let elapsed = ContinuousClock.now - work.started
            return Self.encoded(
                ProgressReport(
                    known: true, done: done, total: total, unit: work.unit,
                    elapsedMs: elapsed.components.seconds * 1_000
                        + elapsed.components.attoseconds / 1_000_000_000_000_000))
        }
    }

    /// A report as reply data: its fields are whole numbers, text and a boolean, which always
    /// encode (`null`, which a reader refuses by name, should one ever not).
    private static func encoded(_ report: ProgressReport) -> JSONValue { JSONValue(wire: report) }
}
