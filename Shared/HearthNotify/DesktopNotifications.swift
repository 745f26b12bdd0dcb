import CLibNotify
import Foundation
import HearthCore
import Synchronization

/// One desktop notification to show, in the terms of the freedesktop specification.
public struct DesktopNotification: Sendable, Equatable {
    public enum Urgency: Int32, Sendable { case low = 0, normal = 1, critical = 2 }

    public var summary: String
    public var body: String
    public var icon: String
    public var urgency: Urgency
    public var category: String?
    /// Milliseconds on screen; 0 keeps it until acted on, -1 uses the server's default.
    public var timeout: Int32
    /// Buttons: action key and label, in order.
    public var actions: [(key: String, label: String)]
    /// The sound to play, as the freedesktop `sound-name` hint: a name from the XDG sound naming
    /// specification (`bell`, `dialog-warning`, `message-new-instant`); `nil` for none.
    public var sound: String?

    public init(
        summary: String, body: String = "", icon: String = "", urgency: Urgency = .normal, category: String? = nil,
        timeout: Int32 = -1, actions: [(key: String, label: String)] = [], sound: String? = nil
    ) {
        self.sound = sound
        self.summary = summary
        self.body = body
        self.icon = icon
        self.urgency = urgency
        self.category = category
        self.timeout = timeout
        self.actions = actions
    }

    /// The longest summary, body and button label a popup shows, in characters: text from other
    /// devices (a 7,000-character "name") must never fill the screen.
    public static let maximumSummary = 120
    public static let maximumBody = 600
    public static let maximumLabel = 40

    /// The notification as a server is given it: each text cut to its maximum (ending in "…"
    /// where it was cut), and summary and body with markup escaped (`&`, `<`, `>`), since servers
    /// that render markup (dunst's default) would otherwise turn a title from another device
    /// into a link or styling.
    public var clipped: DesktopNotification {
        // Both run for every popup, so the common case costs a scan of bytes: no more bytes than
        // the limit means no more characters, and text without `&<>` is returned as it is. (Three
        // Foundation `replacingOccurrences` calls per text were 5% of the notifier's CPU under
        // `hearth-bench notify`, measured with perf.)
        func clip(_ text: String, _ limit: Int) -> String {
            text.utf8.count <= limit || text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
        }
        func escaped(_ text: String) -> String {
            let markup: (UInt8) -> Bool = {
                $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">")
            }
            guard text.utf8.contains(where: markup) else { return text }
            var out = ""
            out.reserveCapacity(text.utf8.count + 16)
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
        var copy = self
        copy.summary = escaped(clip(summary, Self.maximumSummary))
        copy.body = escaped(clip(body, Self.maximumBody))
        copy.actions = actions.map { ($0.key, clip($0.label, Self.maximumLabel)) }
        return copy
    }

    public static func == (lhs: DesktopNotification, rhs: DesktopNotification) -> Bool {
        lhs.summary == rhs.summary && lhs.body == rhs.body && lhs.icon == rhs.icon && lhs.urgency == rhs.urgency
            && lhs.category == rhs.category && lhs.timeout == rhs.timeout && lhs.sound == rhs.sound
            && lhs.actions.map(\.key) == rhs.actions.map(\.key) && lhs.actions.map(\.label) == rhs.actions.map(\.label)
    }
}

/// A button pressed on a notification.
public struct NotificationAction: Sendable, Equatable {
    /// The key the notification was shown under (see `show(_:key:)`).
    public let key: String
    /// The action key of the button.
    public let action: String
}

/// Why a notification could not be shown.
public struct NotificationError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(message: String) { self.message = message }

    public var description: String { message }
}

/// Raises desktop notifications through libnotify, on a GLib main loop that runs on its own
/// thread (libnotify needs the loop to deliver button presses; it must never run on the
/// cooperative pool). Every libnotify call happens on that thread.
///
/// Notifications are shown under a key (such as `turn.J7X-3`): showing again under the same key
/// replaces the earlier popup (the replaces-id mechanism) instead of adding one.
public final class DesktopNotifications: Sendable {
    /// Buttons pressed, in order.
    public let actions: AsyncStream<NotificationAction>

    private let continuation: AsyncStream<NotificationAction>.Continuation
    private let loop: LoopHandle
    private let shown = Mutex<[String: NotificationHandle]>([:])

    /// Starts the GLib thread and registers with libnotify as `appName`.
    public init(appName: String = "hearth") {
        (actions, continuation) = AsyncStream.makeStream(of: NotificationAction.self)
        // A private main context, thread-default on the GLib thread: jobs invoked on it from other
        // threads always become sources that run there (on the global default context GLib may
        // run them on the caller's thread instead), and D-Bus replies and button presses are
        // dispatched there too. Creating it does no I/O.
        let context = g_main_context_new()
        let handle = LoopHandle(context: context, loop: g_main_loop_new(context, 0))
        Thread {
            // Named from the thread itself (on Linux only that reaches the kernel's name, which
            // `top -H` and `perf` show); otherwise it inherits its creator's.
            Thread.current.name = "glib notify"
            g_main_context_push_thread_default(handle.context)
            notify_init(appName)
            g_main_loop_run(handle.loop)
            notify_uninit()
            g_main_context_pop_thread_default(handle.context)
        }.start()
        loop = handle
    }

    /// Stops the GLib loop. The notification objects are released on the GLib thread first,
    /// while libnotify is still initialised (released later, from another thread, GLib warns
    /// about signal handlers already gone).
    public func close() {
        onLoop { [self] in
            shown.withLock { $0.removeAll() }
            g_main_loop_quit(loop.loop)
        }
        continuation.finish()
    }

    /// Shows `notification` under `key`, replacing whatever was shown under that key.
    /// - Returns: the id the notification server assigned.
    /// - Throws: `NotificationError` when no notification server answers.
    public func show(_ notification: DesktopNotification, key: String) async throws -> UInt32 {
        try await withCheckedThrowingContinuation { continuation in
            show(notification, key: key) { continuation.resume(with: $0) }
        }
    }

    /// Closes the notification shown under `key`, if any.
    public func close(key: String) async {
        await withCheckedContinuation { continuation in close(key: key) { continuation.resume() } }
    }

    /// Queues `notification` under `key` and returns at once. Shows and closes run on the GLib
    /// thread in the order they were queued, so a caller that queues from one actor gets its
    /// popups in exactly the order it decided them.
    /// - Parameter completion: runs on the GLib thread with the server's id, or the error when no
    ///   notification server answered.
    public func show(
        _ notification: DesktopNotification, key: String,
        completion: @escaping @Sendable (Result<UInt32, NotificationError>) -> Void
    ) {
        let notification = notification.clipped
        onLoop { [self] in completion(Result { () throws(NotificationError) in try present(notification, key: key) }) }
    }

    /// Takes over popups an earlier process showed (their keys and server ids), so showing under
    /// one of those keys replaces that popup and closing it closes it.
    public func adopt(_ popups: [String: UInt32]) {
        onLoop { [self] in
            for (key, id) in popups where shown.withLock({ $0[key] == nil }) {
                guard let pointer = notify_notification_new("", "", "") else { continue }
                hearth_notification_set_id(pointer, Int32(id))
                let handle = NotificationHandle(pointer)
                shown.withLock { $0[key] = handle }
            }
        }
    }

    /// Queues closing the notification shown under `key`, if any (in order with `show`).
    public func close(key: String, completion: (@Sendable () -> Void)? = nil) {
        onLoop { [self] in
            if let handle = shown.withLock({ $0.removeValue(forKey: key) }) {
                var error: UnsafeMutablePointer<GError>?
                _ = notify_notification_close(handle.pointer, &error)
                if let error { g_error_free(error) }
            }
            completion?()
        }
    }

    /// Which notification server answers on the session bus, asked on the GLib thread
    /// (libnotify's `GetServerInformation` call), or why none does.
    public func server() async -> NotificationServerReply {
        await withCheckedContinuation { continuation in
            onLoop {
                var (name, vendor, version, spec):
                    (
                        UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?,
                        UnsafeMutablePointer<CChar>?
                    ) = (nil, nil, nil, nil)
                guard notify_get_server_info(&name, &vendor, &version, &spec) != 0 else {
                    let session = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""
                    let problem =
                        session.isEmpty
                        ? "no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set for hearth-notifier"
                        : "no notification server answers on the D-Bus session bus"
                    continuation.resume(
                        returning: NotificationServerReply(
                            name: nil, vendor: nil, version: nil, specVersion: nil, problem: problem))
                    return
                }
                func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
                    defer { g_free(pointer) }
                    return pointer.map { String(cString: $0) }
                }
                continuation.resume(
                    returning: NotificationServerReply(
                        name: take(name), vendor: take(vendor), version: take(version), specVersion: take(spec),
                        problem: nil))
            }
        }
    }

    // MARK: - On the GLib thread

    private func present(_ notification: DesktopNotification, key: String) throws(NotificationError) -> UInt32 {
        let existing = shown.withLock { $0[key] }
        let handle: NotificationHandle
        if let existing {
            notify_notification_update(existing.pointer, notification.summary, notification.body, notification.icon)
            notify_notification_clear_actions(existing.pointer)
            handle = existing
        } else {
            guard let pointer = notify_notification_new(notification.summary, notification.body, notification.icon)
            else { throw NotificationError(message: "libnotify could not create a notification") }
            handle = NotificationHandle(pointer)
            shown.withLock { $0[key] = handle }
        }
        notify_notification_set_urgency(handle.pointer, NotifyUrgency(rawValue: UInt32(notification.urgency.rawValue)))
        notify_notification_set_timeout(handle.pointer, notification.timeout)
        if let category = notification.category { notify_notification_set_category(handle.pointer, category) }
        // A replaced popup keeps its hints: a sound not wanted this time is taken off (a null value removes it).
        notify_notification_set_hint(
            handle.pointer, "sound-name", notification.sound.map { g_variant_new_string($0) })
        for action in notification.actions {
            let context = Unmanaged.passRetained(ActionContext(key: key, action: action.key, sink: continuation))
            notify_notification_add_action(
                handle.pointer, action.key, action.label,
                { _, _, data in
                    let context = Unmanaged<ActionContext>.fromOpaque(data!).takeUnretainedValue()
                    context.sink.yield(NotificationAction(key: context.key, action: context.action))
                },
                context.toOpaque(),
                { data in Unmanaged<ActionContext>.fromOpaque(data!).release() })
        }
        var error: UnsafeMutablePointer<GError>?
        guard notify_notification_show(handle.pointer, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw NotificationError(message: "no notification server answered: \(message)")
        }
        return UInt32(hearth_notification_id(handle.pointer))
    }

    /// Queues `work` on the GLib thread. From any other thread, `g_main_context_invoke` attaches
    /// an idle source of default priority, and GLib dispatches equal-priority sources in the
    /// order they were attached: jobs run in the order queued.
    private func onLoop(_ work: @escaping @Sendable () -> Void) {
        let job = Unmanaged.passRetained(LoopJob(work))
        g_main_context_invoke(
            loop.context,
            { data in
                let job = Unmanaged<LoopJob>.fromOpaque(data!).takeRetainedValue()
                job.run()
                return 0  // G_SOURCE_REMOVE
            },
            job.toOpaque())
    }
}

/// Work queued for the GLib thread.
private final class LoopJob: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// What an action callback needs: where to report the press.
private final class ActionContext: Sendable {
    let key: String
    let action: String
    let sink: AsyncStream<NotificationAction>.Continuation

    init(key: String, action: String, sink: AsyncStream<NotificationAction>.Continuation) {
        self.key = key
        self.action = action
        self.sink = sink
    }
}

/// A libnotify notification object. Only the GLib thread touches it (every call goes through
/// `onLoop`); the handle itself only carries the pointer between that thread's jobs.
private final class NotificationHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<NotifyNotification>
    init(_ pointer: UnsafeMutablePointer<NotifyNotification>) { self.pointer = pointer }
    deinit { hearth_notification_unref(pointer) }
}

/// The GLib main context and loop. The pointers never change after `init`; GLib documents
/// contexts and loops as usable from any thread (`g_main_context_invoke` and `g_main_loop_quit`
/// from others, `g_main_loop_run` on the one that owns it).
private final class LoopHandle: @unchecked Sendable {
    let context: OpaquePointer?
    let loop: OpaquePointer?
    init(context: OpaquePointer?, loop: OpaquePointer?) {
        self.context = context
        self.loop = loop
    }
}
