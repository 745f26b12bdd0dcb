import Foundation
import HearthBus
import HearthCore
import HearthNotify
import Synchronization
import Testing

@testable import NotifierService

/// The notifier's state in one actor: what shows, what is held, what is retried, what is closed,
/// against a sink that records every show and close in the order the board queued them.
@Suite("Popup board", .timeLimit(.minutes(1)))
struct PopupBoardTests {
    static let here = "device-here"

    /// Records the board's shows and closes, in order; fails the first `failures` shows.
    final class RecordingSink: PopupSink {
        enum Operation: Equatable {
            case show(String, summary: String)
            case close(String)
        }

        private let log = Mutex<[Operation]>([])
        private let failures: Atomic<Int>

        init(failures: Int = 0) { self.failures = Atomic(failures) }

        var operations: [Operation] { log.withLock { $0 } }

        func operations(for key: String) -> [Operation] {
            operations.filter {
                switch $0 {
                case .show(let shown, _), .close(let shown): shown == key
                }
            }
        }

        func show(
            _ notification: DesktopNotification, key: String,
            completion: @escaping @Sendable (Result<UInt32, NotificationError>) -> Void
        ) {
            log.withLock { $0.append(.show(key, summary: notification.summary)) }
            let fail = failures.subtract(1, ordering: .relaxed).newValue >= 0
            completion(fail ? .failure(NotificationError(message: "no server")) : .success(7))
        }

        func close(key: String, completion: (@Sendable () -> Void)?) {
            log.withLock { $0.append(.close(key)) }
            completion?()
        }

        func adopt(_ popups: [String: UInt32]) {}
    }

    /// The board's `notify.*` reports, awaitable one by one.
    struct Reports {
        let stream: AsyncStream<(String, JSONValue)>
        let sink: AsyncStream<(String, JSONValue)>.Continuation

        init() { (stream, sink) = AsyncStream.makeStream() }

        func next(_ type: String) async -> JSONValue? {
            await withTimeout(.seconds(5)) {
                for await (reported, data) in stream where reported == type { return data }
                return nil
            }
        }
    }

    /// Quiet hours from an hour ago to two hours ahead in this machine's time zone: now is quiet.
    static func quietNow() throws -> NotifySettings {
        let calendar = Calendar.current
        func clock(_ date: Date) -> String {
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            return String(format: "%02d:%02d", parts.hour!, parts.minute!)
        }
        var settings = NotifySettings()
        settings.quietHours = try QuietHours(parsing: "\(clock(Date() - 3_600))-\(clock(Date() + 7_200))")
        return settings
    }

    static func board(
        _ sink: RecordingSink, settings: NotifySettings = NotifySettings(), reports: Reports? = nil
    )
        -> PopupBoard
    {
        PopupBoard(
            catalog: NotificationCatalog(device: here), settings: settings, sink: sink,
            report: { type, data in reports?.sink.yield((type, data)) })
    }

    static func reminder(_ id: String, _ title: String, at date: Date = Date()) -> (String, Envelope) {
        (
            "reminder.due",
            Envelope(
                source: "scheduler", device: "d", seq: 1, timestamp: date, type: "reminder.due",
                data: ["reminder": ["id": .string(id), "title": .string(title)]])
        )
    }

    static func reminderDone(_ id: String) -> (String, Envelope) {
        (
            "reminder.done",
            Envelope(
                source: "scheduler", device: "d", seq: 2, type: "reminder.done",
                data: ["reminder": ["id": .string(id)]])
        )
    }

    static func yourTurn(_ code: String, seq: Int64) -> (String, Envelope) {
        (
            "turn.\(code).your-turn",
            Envelope(
                source: "turn", device: here, seq: UInt64(seq), type: "turn.your-turn",
                data: [
                    "code": .string(code), "seq": .int(seq), "turn": 1,
                    "player": ["id": "p", "name": "Ann", "device": .string(here)],
                ])
        )
    }

    @Test("a close racing a quiet-hours release is never undone: the closed reminder does not come back")
    func closeRacesRelease() async throws {
        let noQuiet = NotifySettings()
        for _ in 0..<200 {
            let sink = RecordingSink()
            let board = Self.board(sink, settings: try Self.quietNow())
            let start = Date()
            for (topic, envelope) in [
                Self.reminder("r1", "Feed the cat", at: start), Self.reminder("r2", "Bins", at: start + 1),
            ] {
                await board.take(topic: topic, envelope: envelope)
            }
            #expect(await board.keys.held == ["reminder.r1", "reminder.r2"])
            async let released: Duration? = {
                await board.apply(noQuiet)
                return await board.releaseHeld()
            }()
            async let closed: Void = {
                let (topic, envelope) = Self.reminderDone("r2")
                await board.take(topic: topic, envelope: envelope)
            }()
            _ = await (released, closed)
            #expect(sink.operations(for: "reminder.r2").last == .close("reminder.r2"), "\(sink.operations)")
            #expect(sink.operations(for: "reminder.r1").last == .show("reminder.r1", summary: "Feed the cat"))
            let keys = await board.keys
            #expect(!keys.shown.contains("reminder.r2") && keys.held.isEmpty)
        }
    }

    @Test("a show no server takes is reported once, kept as the latest per key, and shown by a retry")
    func failedShowsRetry() async throws {
        let sink = RecordingSink(failures: 2)
        let reports = Reports()
        let board = Self.board(sink, reports: reports)
        let (topic, envelope) = Self.reminder("r1", "Feed the cat")
        await board.take(topic: topic, envelope: envelope)
        let failed = try #require(await reports.next("notify.failed"))
        #expect(failed["key"] == "reminder.r1")
        #expect(await board.keys.undelivered == ["reminder.r1"])
        #expect(await board.redeliver())
        #expect(await board.redeliver())
        let shown = try #require(await reports.next("notify.shown"))
        #expect(shown["summary"] == "Feed the cat")
        #expect(sink.operations == Array(repeating: .show("reminder.r1", summary: "Feed the cat"), count: 3))
        // The success came in (it is reported after the popup stops being undelivered): nothing
        // is left to retry.
        #expect(await board.keys.undelivered.isEmpty)
        #expect(await !board.redeliver())
    }

    @Test("reconciling with an owner closes the popups of games that are over and keeps the live ones")
    func reconcile() async throws {
        let sink = RecordingSink()
        let board = Self.board(sink)
        for (topic, envelope) in [Self.yourTurn("K2M-4", seq: 3), Self.yourTurn("J7X-3", seq: 5)] {
            await board.take(topic: topic, envelope: envelope)
        }
        #expect(await board.keys.shown == ["turn.K2M-4", "turn.J7X-3"])
        await board.reconcile(
            OwnerSnapshot(keyPrefix: "turn.", isLive: { $0.hasPrefix("turn.J7X-3") }, events: []))
        #expect(await board.keys.shown == ["turn.J7X-3"])
        #expect(sink.operations.last == .close("turn.K2M-4"))
    }

    @Test("a popup that stays, brought twice, is shown once; a brief notice brought twice shows twice")
    func sameTwice() async throws {
        let sink = RecordingSink()
        let reports = Reports()
        let board = Self.board(sink, reports: reports)
        let (topic, envelope) = Self.reminder("r1", "Feed the cat")
        await board.take(topic: topic, envelope: envelope)
        _ = try #require(await reports.next("notify.shown"))
        await board.take(topic: topic, envelope: envelope)
        #expect(sink.operations(for: "reminder.r1").count == 1)
        let synced = Envelope(
            source: "sync", device: "d", seq: 1, type: "sync.completed",
            data: try JSONValue(
                encoding: SyncCompletedEvent(
                    peer: PeerRef(device: "d-mum", name: "Mum"), received: 1, sent: 0, conflicts: 0, bytes: 400,
                    durationMs: 20, detail: "")))
        await board.take(topic: "sync.completed", envelope: synced)
        _ = try #require(await reports.next("notify.shown"))
        await board.take(topic: "sync.completed", envelope: synced)
        #expect(sink.operations(for: "sync.d-mum").count == 2)
    }
}
