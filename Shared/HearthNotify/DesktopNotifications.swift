import CLibNotify
import Foundation
import HearthCore
import Synchronization

/// Raises desktop notifications on the session bus's `org.freedesktop.Notifications`, from a
/// GLib main loop that runs on its own thread (GDBus delivers replies and button presses there;
/// it must never run on the cooperative pool). Every D-Bus call and all popup state live on that
/// thread.
///
/// Notifications are shown under a key (such as `turn.J7X-3`): showing again under the same key
/// replaces the earlier popup (the `replaces_id` mechanism) instead of adding one.
///
/// **Pipelined, through GDBus rather than libnotify.** libnotify 0.8's `notify_notification_show`
/// is a synchronous D-Bus round trip (`g_dbus_proxy_call_sync`, marked "TODO: make this
/// nonblocking" in its source) and has no asynchronous form, so a burst of twenty reminders
/// waited for nineteen round trips before the twentieth left: `hearth-bench scheduler` measured
/// `late_p99_ms` 17–24 ms with 20 reminders a second while the scheduler's own part was 2–4 ms.
/// Here each `Notify` is sent with `g_dbus_connection_call` and the next goes out at once;
/// D-Bus delivers one connection's messages in order, so the server still receives them in the
/// order they were queued. Only what needs an answer waits for it, per key (`PopupPipeline`): a
/// replace needs the id the key's show in flight will return, and a close must not overtake
/// the show it closes. Benchmarks/README has the figures with this. libnotify still answers
/// `server()` (`GetServerInformation`), and the calls send what libnotify sends (the icon as
/// `image-path`, `urgency`, `category`, `sound-name`, `sender-pid`).
public final class DesktopNotifications: Sendable {
    /// Buttons pressed, in order.
    public let actions: AsyncStream<NotificationAction>
    /// A notification server took the name (one started, or one restarted after a crash): the
    /// popups an earlier one showed, if any, are gone with it.
    public let serverReplaced: AsyncStream<Void>

    private let continuation: AsyncStream<NotificationAction>.Continuation
    private let replacedKick: AsyncStream<Void>.Continuation
    private let loop: LoopHandle
    private let appName: String
    /// Touched only on the GLib thread; a mutex so the compiler can check that.
    private let pipeline = Mutex(PopupPipeline())
    private let bus = Mutex<SessionBus?>(nil)

    /// The D-Bus address to connect to; `nil` for the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    private let busAddress: String?

    /// Starts the GLib thread and registers with libnotify as `appName`.
    /// - Parameter busAddress: a bus other than the session's (a test's private one); libnotify's
    ///   `server()` still asks the session's.
    public init(appName: String = "hearth", busAddress: String? = nil) {
        self.appName = appName
        self.busAddress = busAddress
        (actions, continuation) = AsyncStream.makeStream(of: NotificationAction.self)
        (serverReplaced, replacedKick) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // A private main context, thread-default on the GLib thread: jobs invoked on it from other
        // threads always become sources that run there (on the global default context GLib may
        // run them on the caller's thread instead), and the D-Bus replies and signals of calls
        // made there are dispatched there too. Creating it does no I/O.
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

    /// Opens the connection to the bus now, on the GLib thread, rather than in the first popup's
    /// path. Connecting is several round trips (the socket, authentication, `Hello`, the signal
    /// subscription): stage stamps in a throw-away build of `hearth-bench scheduler` found it
    /// took 1.7–2.3 ms between the first reminder reaching the GLib thread and its `Notify`
    /// going out, against 0.1 ms for every later one. When no bus answers, nothing changes: the
    /// first show tries again and reports why it could not.
    public func connect() {
        onLoop { [self] in _ = try? connected() }
    }

    /// Stops the GLib loop, closing the connection to the session bus first. Calls still in
    /// flight are not answered.
    public func close() {
        onLoop { [self] in
            bus.withLock { $0 = nil }
            g_main_loop_quit(loop.loop)
        }
        continuation.finish()
        replacedKick.finish()
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

    /// Queues `notification` under `key` and returns at once. Shows and closes are sent in the
    /// order they were queued, each key's in that order always (a later one for a key waits for
    /// the answer its show in flight brings), so a caller that queues from one actor gets its
    /// popups in exactly the order it decided them.
    /// - Parameter completion: runs on the GLib thread with the server's id, or the error when no
    ///   notification server answered.
    public func show(
        _ notification: DesktopNotification, key: String,
        completion: @escaping @Sendable (Result<UInt32, NotificationError>) -> Void
    ) {
        let notification = notification.clipped
        onLoop { [self] in submit(key, .show(notification, completion)) }
    }

    /// Takes over popups an earlier process showed (their keys and server ids), so showing under
    /// one of those keys replaces that popup and closing it closes it.
    public func adopt(_ popups: [String: UInt32]) {
        onLoop { [self] in pipeline.withLock { $0.adopt(popups) } }
    }

    /// Queues closing the notification shown under `key`, if any (in order with `show`).
    /// - Parameter completion: runs on the GLib thread once the server answered the close (at
    ///   once when there was nothing to close).
    public func close(key: String, completion: (@Sendable () -> Void)? = nil) {
        onLoop { [self] in submit(key, .close(completion)) }
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

    /// Runs `job` now, or after the answer the key's show in flight waits for.
    private func submit(_ key: String, _ job: PopupPipeline.Job) {
        guard let job = pipeline.withLock({ $0.admit(key, job) }) else { return }
        switch job {
        case .show(let notification, let completion):
            send(notification, key: key, completion: completion)
        case .close(let completion):
            let id = pipeline.withLock { $0.forget(key) }
            // (A popup taken over from an earlier run may be this process's first call.)
            guard let id, let connection = try? connected() else {
                completion?()
                return
            }
            let reply = Unmanaged.passRetained(CloseReply(completion: completion, connection: connection))
            hearth_notify_close(
                connection.pointer, id,
                { _, result, data in
                    let reply = Unmanaged<CloseReply>.fromOpaque(data!).takeRetainedValue()
                    var error: UnsafeMutablePointer<GError>?
                    _ = hearth_notify_finish(reply.connection.pointer, result, nil, &error)
                    if let error { g_error_free(error) }
                    reply.completion?()
                }, reply.toOpaque())
        }
    }

    /// Sends one `Notify` (replacing the key's popup, if it has one) and returns; its answer
    /// comes to `answered`.
    private func send(
        _ notification: DesktopNotification, key: String,
        completion: @escaping @Sendable (Result<UInt32, NotificationError>) -> Void
    ) {
        let connection: SessionBus
        do {
            connection = try connected()
        } catch {
            pipeline.withLock { $0.answered(key, id: nil) }
            completion(.failure(error))
            drain(key)
            return
        }
        let replaces = pipeline.withLock { $0.sending(key) }
        let reply = Unmanaged.passRetained(
            ShowReply(key: key, completion: completion, connection: connection, owner: self))
        var actions: [String] = []
        for action in notification.actions { actions += [action.key, action.label] }
        withCStrings(actions) { list in
            hearth_notify_send(
                connection.pointer, appName, replaces, notification.summary, notification.body, notification.icon,
                list, UInt8(notification.urgency.rawValue), notification.category, notification.sound,
                notification.timeout,
                { _, result, data in
                    let reply = Unmanaged<ShowReply>.fromOpaque(data!).takeRetainedValue()
                    var id: UInt32 = 0
                    var error: UnsafeMutablePointer<GError>?
                    let shown = hearth_notify_finish(reply.connection.pointer, result, &id, &error) != 0
                    let message = gErrorMessage(freeing: error)
                    reply.owner?.answered(
                        reply.key, shown ? .success(id) : .failure(DesktopNotifications.unanswered(message)),
                        reply.completion)
                }, reply.toOpaque())
        }
    }

    /// A `Notify`'s answer: the key's id noted, the caller told, then what waited for it sent.
    private func answered(
        _ key: String, _ result: Result<UInt32, NotificationError>,
        _ completion: @Sendable (Result<UInt32, NotificationError>) -> Void
    ) {
        pipeline.withLock { $0.answered(key, id: try? result.get()) }
        completion(result)
        drain(key)
    }

    /// Sends what waited for the key's show in flight, in order, up to the next show (which
    /// waits for its own answer in turn).
    private func drain(_ key: String) {
        while let job = pipeline.withLock({ $0.next(key) }) {
            submit(key, job)
        }
    }

    /// The session bus connection, opened (and subscribed to the server's signals) when there is
    /// none or the last one closed.
    private func connected() throws(NotificationError) -> SessionBus {
        if let open = bus.withLock({ $0?.open == true ? $0 : nil }) { return open }
        var error: UnsafeMutablePointer<GError>?
        guard let pointer = hearth_session_connect(busAddress, &error) else {
            throw Self.unanswered(gErrorMessage(freeing: error))
        }
        let connection = SessionBus(pointer)
        connection.subscription = hearth_notify_subscribe(
            pointer,
            { _, _, _, _, signal, parameters, data in
                let owner = Unmanaged<SignalSink>.fromOpaque(data!).takeUnretainedValue().owner
                guard let owner, let signal, let parameters else { return }
                owner.received(String(cString: signal), parameters)
            }, Unmanaged.passRetained(SignalSink(owner: self)).toOpaque(),
            { data in Unmanaged<SignalSink>.fromOpaque(data!).release() })
        connection.ownerSubscription = hearth_owner_subscribe(
            pointer,
            { _, _, _, _, _, parameters, data in
                let owner = Unmanaged<SignalSink>.fromOpaque(data!).takeUnretainedValue().owner
                var name: UnsafePointer<CChar>?
                guard let owner, let parameters, hearth_signal_new_owner(parameters, &name) != 0, let name else {
                    return
                }
                owner.ownerChanged(String(cString: name))
            }, Unmanaged.passRetained(SignalSink(owner: self)).toOpaque(),
            { data in Unmanaged<SignalSink>.fromOpaque(data!).release() })
        bus.withLock { $0 = connection }
        // Ids a server gave on an earlier connection still name its popups (the server may well
        // be the same one): they are kept for replacing and closing.
        return connection
    }

    /// A server's signal: a button pressed, reported under its popup's key. (`NotificationClosed`
    /// changes nothing: the key keeps its popup's id, so the notifier's own close after a press
    /// still names it, as libnotify did, and a show after it asks to replace an id the server no
    /// longer has, which the specification treats as a new popup.)
    private func received(_ signal: String, _ parameters: OpaquePointer) {
        var id: UInt32 = 0
        var action: UnsafePointer<CChar>?
        guard signal == "ActionInvoked", hearth_signal_action(parameters, &id, &action) != 0, let action,
            let key = pipeline.withLock({ $0.key(of: id) })
        else { return }
        continuation.yield(NotificationAction(key: key, action: String(cString: action)))
    }

    /// The notification server's name changed hands. Given up (`""`): nothing to do until the
    /// next one. Taken: what the previous server showed died with it, so no id it gave names a
    /// popup any more; the owner of this object is told, to show again what should be on screen.
    private func ownerChanged(_ owner: String) {
        guard !owner.isEmpty else { return }
        pipeline.withLock { $0.serverReplaced() }
        replacedKick.yield()
    }

    private static func unanswered(_ message: String) -> NotificationError {
        NotificationError(message: "no notification server answered: \(message)")
    }

    /// Queues `work` on the GLib thread. From any other thread, `g_main_context_invoke` attaches
    /// an idle source of default priority, and GLib dispatches equal-priority sources in the
    /// order they were attached: jobs run in the order queued. (From the GLib thread itself it
    /// runs `work` at once.)
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
