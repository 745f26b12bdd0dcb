import ArgumentParser
import CLibNotify
import Foundation
import HearthNotify

/// The floor under `hearth-bench scheduler`'s lateness: the same bursts of popups sent with
/// nothing of Hearth's between the clock and the bus. One thread of this process sleeps until
/// each whole second (`clock_nanosleep` on the wall clock, to the nanosecond), then sends that
/// second's `Notify` calls back to back with GDBus (`hearth_notify_send`, the notifier's own C
/// call, so the messages are the same size and shape: a title, a body, Done and Snooze), not
/// waiting for any reply until the burst is out. No scheduler, ZeroMQ hop, decoding or board:
/// what is left is D-Bus itself (`dbus-daemon` and the server) and this machine's scheduling,
/// which any sender pays.
enum RawNotifyBurst {
    /// Sends `count` popups titled "Raw 0", "Raw 1"…, `perSecond` due at each whole second from
    /// `first` (wall-clock seconds), on the bus at `address`; returns once every call was
    /// answered (or failed) and the thread is gone.
    static func send(count: Int, perSecond: Int, first: Double, address: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            // GDBus blocks and runs its own main context: a thread of its own, never the pool.
            Thread {
                do {
                    try run(count: count, perSecond: perSecond, first: first, address: address)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }

    private static func run(count: Int, perSecond: Int, first: Double, address: String) throws {
        let context = g_main_context_new()
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        var error: UnsafeMutablePointer<GError>?
        guard let connection = hearth_session_connect(address, &error) else {
            throw ValidationError("raw Notify burst: cannot connect to \(address): \(gErrorMessage(freeing: error))")
        }
        defer { hearth_object_unref(UnsafeMutableRawPointer(connection)) }
        // Counted by the replies' callbacks, which run on this thread (its default context).
        let answered = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        answered.initialize(to: 0)
        defer { answered.deallocate() }
        var sent = 0
        while sent < count {
            var due = timespec(tv_sec: Int(first) + sent / perSecond, tv_nsec: 0)
            // Formatted before the wait: Foundation's first format loads its data (milliseconds).
            let time = Date(timeIntervalSince1970: Double(due.tv_sec)).formatted(
                .dateTime.hour(.twoDigits(amPM: .omitted)).minute(.twoDigits))
            while clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &due, nil) == EINTR {}
            let burstEnd = min(count, sent + perSecond)
            while sent < burstEnd {
                withCStrings(["done", "Done", "snooze", "Snooze"]) { actions in
                    hearth_notify_send(
                        connection, "hearth", 0, "Raw \(sent)", "Due \(time)", "appointment-soon", actions, 1,
                        "hearth.reminder", "message-new-instant", 0,
                        { source, result, data in
                            // An answer or a failure alike ends the call: only the count matters.
                            var error: UnsafeMutablePointer<GError>?
                            _ = hearth_notify_finish(OpaquePointer(source), result, nil, &error)
                            _ = gErrorMessage(freeing: error)
                            data!.assumingMemoryBound(to: Int.self).pointee += 1
                        }, answered)
                }
                sent += 1
            }
            // The answers, before sleeping to the next second (they come within milliseconds).
            while answered.pointee < sent { g_main_context_iteration(context, 1) }
        }
    }
}
