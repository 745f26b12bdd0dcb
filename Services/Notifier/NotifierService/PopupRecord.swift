import Foundation
import HearthBus
import HearthHost
import Synchronization

/// The popups on screen, by key, with the id the notification server gave each, kept in
/// `$HEARTH_HOME/run/notifier-popups.json`: a notifier that restarts takes them over
/// (`DesktopNotifications.adopt`), so it can close the ones that are over and replace the rest in
/// place instead of leaving stale popups on screen.
///
/// Written on a serial queue of its own (file I/O never runs on the cooperative pool), whole and
/// private (`PrivateFile.replaceLine`: 0600, a temporary file renamed into place); the latest
/// state wins. Saves that come faster than the disk takes them are coalesced: each write takes
/// the newest state saved by then, and the encoding happens on the queue too, not in the caller.
/// (Before, every new popup encoded and wrote the whole record in turn: in `hearth-bench
/// scheduler`, with up to 1,000 reminders on screen, `perf record` on the notifier found 33% of
/// its samples in the encoding, run by the board, and 16% in the writes.)
final class PopupRecord: Sendable {
    let path: String
    private let queue: DispatchQueue
    /// The newest state not written yet; `nil` when no write is queued.
    private let latest = Mutex<[String: UInt32]?>(nil)
    private let written = Atomic<Int>(0)

    /// - Parameter queue: where the writes run (a test passes one it can suspend).
    init(runDirectory: String, queue: DispatchQueue = DispatchQueue(label: "hearth.notifier.popups")) {
        path = (runDirectory as NSString).appendingPathComponent("notifier-popups.json")
        self.queue = queue
    }

    /// How many times the record was written (for tests and diagnostics).
    var writes: Int { written.load(ordering: .relaxed) }

    /// What the last run left: key → server id. Empty when there is none or it cannot be read.
    func load() -> [String: UInt32] {
        guard let bytes = FileManager.default.contents(atPath: path),
            let object = try? JSONValue.parse(Array(bytes)).objectValue
        else { return [:] }
        return object.compactMapValues { value in value.intValue.flatMap { UInt32(exactly: $0) } }
    }

    /// Replaces the record with `popups`. Queues a write unless one is queued already; that one
    /// takes `popups` when it runs.
    func save(_ popups: [String: UInt32]) {
        let queued = latest.withLock { pending in
            defer { pending = popups }
            return pending != nil
        }
        guard !queued else { return }
        queue.async { [self] in
            guard let popups = latest.withLock({ $0.take() }) else { return }
            let text = JSONValue.object(popups.mapValues { .int(Int64($0)) }).jsonText
            // A failed write keeps the last record (it is a hint for a restart, not the truth).
            guard (try? PrivateFile.replaceLine(at: path, with: text, what: "popup record")) != nil else { return }
            written.add(1, ordering: .relaxed)
        }
    }

    /// Returns once every save made before the call is on disk.
    func flush() async {
        await withCheckedContinuation { done in queue.async { done.resume() } }
    }
}
