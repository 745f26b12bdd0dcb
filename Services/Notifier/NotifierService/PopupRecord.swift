import Foundation
import HearthBus

/// The popups on screen, by key, with the id the notification server gave each, kept in
/// `$HEARTH_HOME/run/notifier-popups.json`: a notifier that restarts takes them over
/// (`DesktopNotifications.adopt`), so it can close the ones that are over and replace the rest in
/// place instead of leaving stale popups on screen.
///
/// Written on a serial queue of its own (file I/O never runs on the cooperative pool), atomically
/// (a temporary file renamed into place) and private (0600); the latest state wins.
final class PopupRecord: Sendable {
    let path: String
    private let queue = DispatchQueue(label: "hearth.notifier.popups")

    init(runDirectory: String) {
        path = (runDirectory as NSString).appendingPathComponent("notifier-popups.json")
    }

    /// What the last run left: key → server id. Empty when there is none or it cannot be read.
    func load() -> [String: UInt32] {
        guard let bytes = FileManager.default.contents(atPath: path),
            let object = try? JSONValue.parse(Array(bytes)).objectValue
        else { return [:] }
        return object.compactMapValues { value in value.intValue.flatMap { UInt32(exactly: $0) } }
    }

    /// Replaces the record with `popups`.
    func save(_ popups: [String: UInt32]) {
        let bytes = JSONValue.object(popups.mapValues { .int(Int64($0)) }).jsonBytes
        queue.async { [path] in
            let temporary = path + ".tmp"
            guard
                FileManager.default.createFile(
                    atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
            else { return }
            rename(temporary, path)
        }
    }
}
