import BusService
import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import Logging
import StoreService
import Synchronization
import Testing

@testable import SchedulerService

/// A clock the test moves: `wait` returns when the clock reaches the deadline (or the service's
/// own wake-up fires), never because real time passed.
final class ManualSchedulerClock: SchedulerClock {
    private struct State {
        var now: Date
        var waiting: [AsyncSignal] = []
    }
    private let state: Mutex<State>

    init(_ start: Date) { state = Mutex(State(now: start)) }

    func now() -> Date { state.withLock { $0.now } }

    func wait(until deadline: Date?, or wake: AsyncSignal) async {
        let due = state.withLock { state -> Bool in
            if let deadline, deadline <= state.now { return true }
            state.waiting.append(wake)
            return false
        }
        if due { return }
        _ = await wake.wait(timeout: .seconds(60))
    }

    func advance(to date: Date) {
        let waiting = state.withLock { state in
            state.now = date
            defer { state.waiting = [] }
            return state.waiting
        }
        for signal in waiting { signal.fire() }
    }
}

@Suite("hearth-scheduler in process, its clock driven by the test", .serialized, .timeLimit(.minutes(1)))
struct SchedulerClockTests {
    private func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test(
        "London's autumn change: a 01:30 reminder fires at the first 01:30 only, a 09:00 one at 09:00 GMT, then the next day's 01:30"
    )
    func autumnInLondon() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let configuration = try home.configuration(["HEARTH_TIME_ZONE": "Europe/London"])
        let clock = ManualSchedulerClock(instant("2026-10-24T23:00:00Z"))  // 00:00 BST on the 25th
        let device = UUIDText.make()
        let bus = try BusService(
            configuration: configuration, context: context, device: device, logger: Logger(label: "bus"))
        let store = try StoreService(
            configuration: configuration, context: context, device: device, logger: Logger(label: "store"))
        let scheduler = try SchedulerService(
            configuration: configuration, context: context, device: device, logger: Logger(label: "scheduler"),
            clock: clock)
        let events = try Subscriber(
            context: context, endpoint: configuration.busSubscribeEndpoint, prefixes: ["reminder."])
        let commands = (
            store: CommandClient(
                context: context, endpoint: configuration.commandEndpoint(.store), timeout: .seconds(5)),
            scheduler: CommandClient(
                context: context, endpoint: configuration.commandEndpoint(.scheduler), timeout: .seconds(5)),
            bus: CommandClient(context: context, endpoint: configuration.commandEndpoint(.bus), timeout: .seconds(1))
        )
        try await withRunning([bus, store, scheduler]) {
            try #require(await events.waitUntilSubscribed(bus: commands.bus, timeout: .seconds(5)))
            _ = try await commands.store.request("collection.add", args: ["name": "Habits", "kind": "habit"])
            var ids: [String] = []
            for (title, time) in [("Night feed", "01:30"), ("Vitamins", "09:00")] {
                let added = try await commands.store.request(
                    "todo.add",
                    args: [
                        "title": .string(title), "collection": "Habits", "due": "2026-10-25", "time": .string(time),
                        "repeat": "daily", "remind": true,
                    ])
                ids.append(try #require(added["todo"]?["id"]?.stringValue))
            }
            // The scheduler has both from the change feed before the clock moves.
            // (Nothing is published when it takes a change in, so its answer is asked for.)
            var listed = 0
            let deadline = ContinuousClock.now + .seconds(5)
            while listed < 2 && ContinuousClock.now < deadline {
                listed = try await commands.scheduler.request("reminder.list")["reminders"]?.arrayValue?.count ?? 0
            }
            try #require(listed == 2)

            var iterator = events.makeAsyncIterator()
            func next() async throws -> (topic: String, id: String, due: String) {
                while let message = await iterator.next() {
                    guard case .event(let topic, let envelope) = message else { continue }
                    return (
                        topic, envelope.data["reminder"]?["id"]?.stringValue ?? "",
                        envelope.data["reminder"]?["due"]?.stringValue ?? ""
                    )
                }
                throw CancellationError()
            }
            clock.advance(to: instant("2026-10-25T00:30:00Z"))  // the first 01:30 (BST)
            let first = try await next()
            #expect(first.id == "\(ids[0])@2026-10-25")
            #expect(first.due == "2026-10-25T00:30:00.000Z")
            clock.advance(to: instant("2026-10-25T01:30:00Z"))  // the second 01:30 (GMT): nothing
            clock.advance(to: instant("2026-10-25T09:00:00Z"))  // 09:00 GMT
            let vitamins = try await next()
            #expect(vitamins.id == "\(ids[1])@2026-10-25")
            #expect(vitamins.due == "2026-10-25T09:00:00.000Z")
            clock.advance(to: instant("2026-10-26T01:30:00Z"))
            let nextNight = try await next()
            #expect(nextNight.id == "\(ids[0])@2026-10-26")
        }
        await events.close()
        await commands.store.close()
        await commands.scheduler.close()
        await commands.bus.close()
    }
}

@Suite("hearth-scheduler: the system clock's waits")
struct SystemClockTests {
    @Test("a wait for hours returns after the longest wait, so a wait cut short never holds a timer for hours")
    func capped() async {
        let clock = SystemSchedulerClock(longestWait: .milliseconds(100))
        let started = ContinuousClock.now
        await clock.wait(until: Date().addingTimeInterval(7_200), or: AsyncSignal())
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(90) && waited < .seconds(5), "\(waited)")
        // No deadline: the same bound.
        let again = ContinuousClock.now
        await clock.wait(until: nil, or: AsyncSignal())
        #expect(ContinuousClock.now - again < .seconds(5))
        // A deadline sooner than the cap is kept; a fired signal returns at once.
        let signal = AsyncSignal()
        signal.fire()
        let fired = ContinuousClock.now
        await SystemSchedulerClock().wait(until: Date().addingTimeInterval(3_600), or: signal)
        #expect(ContinuousClock.now - fired < .seconds(1))
    }
}
