import CLibNotify
import Foundation

// The helpers of `DesktopNotifications`' GLib thread: the C string list its calls take, the
// objects its D-Bus replies and signals carry back, its connection and its loop.

/// `strings` as a NULL-terminated C array for the duration of `body` (also the benchmark's raw
/// `Notify` sender's).
package func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let list = copies.map { UnsafePointer($0) } + [nil]
    return list.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// Work queued for the GLib thread.
final class LoopJob: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// What a `Notify` reply needs: whose it is and whom to tell.
final class ShowReply: Sendable {
    let key: String
    let completion: @Sendable (Result<UInt32, NotificationError>) -> Void
    let connection: SessionBus
    weak let owner: DesktopNotifications?

    init(
        key: String, completion: @escaping @Sendable (Result<UInt32, NotificationError>) -> Void,
        connection: SessionBus, owner: DesktopNotifications
    ) {
        (self.key, self.completion, self.connection, self.owner) = (key, completion, connection, owner)
    }
}

/// What a `CloseNotification` reply needs.
final class CloseReply: Sendable {
    let completion: (@Sendable () -> Void)?
    let connection: SessionBus
    init(completion: (@Sendable () -> Void)?, connection: SessionBus) {
        (self.completion, self.connection) = (completion, connection)
    }
}

/// Where a connection's signals go: the notifications object, held weakly so a connection
/// outliving it does not keep it alive.
final class SignalSink: Sendable {
    weak let owner: DesktopNotifications?
    init(owner: DesktopNotifications) { self.owner = owner }
}

/// A private connection to the session bus with its signal subscription. Only the GLib thread
/// uses it: it is created, called, and released there (`close()` drops it on that thread; a
/// reply object holding it is released in its callback, there too).
final class SessionBus: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Set once, on the GLib thread, right after the connection opens.
    var subscription: UInt32 = 0
    var ownerSubscription: UInt32 = 0

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// Whether the bus is still connected.
    var open: Bool { g_dbus_connection_is_closed(pointer) == 0 }

    deinit {
        if subscription != 0 { g_dbus_connection_signal_unsubscribe(pointer, subscription) }
        if ownerSubscription != 0 { g_dbus_connection_signal_unsubscribe(pointer, ownerSubscription) }
        g_dbus_connection_close(pointer, nil, nil, nil)
        hearth_object_unref(UnsafeMutableRawPointer(pointer))
    }
}

/// The GLib main context and loop. The pointers never change after `init`; GLib documents
/// contexts and loops as usable from any thread (`g_main_context_invoke` and `g_main_loop_quit`
/// from others, `g_main_loop_run` on the one that owns it).
final class LoopHandle: @unchecked Sendable {
    let context: OpaquePointer?
    let loop: OpaquePointer?
    init(context: OpaquePointer?, loop: OpaquePointer?) {
        self.context = context
        self.loop = loop
    }
}

/// A GLib error's message ("unknown error" when there is none), the error freed (also the
/// benchmark's raw `Notify` sender's).
package func gErrorMessage(freeing error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return String(cString: error.pointee.message)
}
