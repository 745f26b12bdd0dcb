import BusService
import Foundation
import HearthBus
import HearthCalendar
import HearthCore
import HearthTesting
import Logging
import StoreService
import Testing

@testable import SchedulerService

/// Check-in reminders end to end: bus, store and scheduler in process with the scheduler's clock
/// driven by the test, a real `hearth-notifier` process raising popups on a private D-Bus
/// session's notification test server, and the test pressing their buttons there.
@Suite("hearth-scheduler: check-in reminders with Done, Snooze and Reschedule", .serialized, .timeLimit(.minutes(2)))
struct CheckInReminderTests {
    private func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test(
        "a reminder pops up at start minus lead; Snooze +1 hour moves past a clash; Reschedule offers slots; Done restarts the cadence"
    )
    func checkIns() async throws {
        try await SchedulerTestStack.run(at: instant("2026-11-23T09:00:00Z")) { stack in  // Monday morning, GMT
            let (clock, server, session, context, configuration) = (
                stack.clock, stack.server, stack.session, stack.context, stack.configuration
            )
            let commands = (store: stack.store, scheduler: stack.scheduler)
            _ = try await commands.store.request("plan.prefs.set", args: ["lead": 30])
            for (name, last) in [("Sam", "2026-11-02"), ("Ann", "2026-11-09")] {
                _ = try await commands.store.request("people.add", args: ["name": .string(name)])
                _ = try await commands.store.request(
                    "people.goal",
                    args: [
                        "person": .string(name), "every": 14, "duration": "1h", "windows": ["Mon-Fri 18:00-21:00"],
                        "last": .string(last),
                    ])
            }
            let notifier = try await stack.startNotifier()
            let reminders = try Subscriber(
                context: context, endpoint: configuration.busSubscribeEndpoint,
                prefixes: ["reminder.rescheduled", "reminder.done"])
            let bus = CommandClient(context: context, endpoint: configuration.commandEndpoint(.bus))
            #expect(await reminders.waitUntilSubscribed(bus: bus, timeout: .seconds(5)))
            await bus.close()
            try await stack.withScheduler {
                /// Waits until the scheduler holds `count` check-in reminders, `raised` of them raised.
                func loaded(_ count: Int) async throws {
                    let deadline = ContinuousClock.now + .seconds(10)
                    while ContinuousClock.now < deadline {
                        let list = try await commands.scheduler.request("plan.reminders")["reminders"]?.arrayValue ?? []
                        if list.count == count { return }
                    }
                    Issue.record("the scheduler never held \(count) check-in reminders")
                }
                var popups = Popups(server: server, notifier: notifier)
                func press(_ call: JSONValue, _ action: String) async throws {
                    #expect(
                        try await session.press(id: UInt32(try #require(call["id"]?.intValue)), action: action) == 0)
                }
                /// Waits for the scheduler's `topic` event on the bus (at most 10 s).
                func announced(_ topic: String) async -> Bool {
                    let heard = await withTimeout(.seconds(10)) { () async -> Bool? in
                        var events = reminders.makeAsyncIterator()
                        while let message = await events.next() {
                            if case .event(let name, _) = message, name == topic { return true }
                        }
                        return nil
                    }
                    return heard ?? false
                }
                func item(_ name: String) async throws -> JSONValue? {
                    let next = try await commands.store.request(
                        "plan.next", args: ["count": 10, "now": 1_795_424_400_000])
                    return next["items"]?.arrayValue?.first { $0["name"]?.stringValue == name }
                }

                // The refresh at start placed Sam at 18:00 and Ann at 19:00.
                try await loaded(2)
                #expect(try await item("Sam")?["start"] == "2026-11-23T18:00:00.000Z")
                #expect(try await item("Ann")?["start"] == "2026-11-23T19:00:00.000Z")

                clock.advance(to: instant("2026-11-23T17:30:00Z"))
                let sam = try await popups.next("Catch up with Sam")
                #expect(sam["body"]?.stringValue?.contains("Due 18:00") == true)
                #expect(
                    sam["actions"]?.arrayValue?.compactMap(\.stringValue)
                        == [
                            "done", "Done", "snooze-60", "+1 hour", "snooze-1440", "+1 day", "snooze-4320", "+3 days",
                            "reschedule", "Reschedule",
                        ])
                // +1 hour is 19:00, Ann's: moved on to 20:00.
                try await press(sam, "snooze-60")
                _ = try await popups.next("Moved to Mon 20:00")
                #expect(try await item("Sam")?["start"] == "2026-11-23T20:00:00.000Z")

                clock.advance(to: instant("2026-11-23T18:30:00Z"))
                let ann = try await popups.next("Catch up with Ann")
                try await press(ann, "reschedule")
                let offer = try await popups.next("Reschedule: Catch up with Ann")
                let labels = offer["actions"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(labels.count >= 6, "at least three slots: \(labels)")
                // Sam's 18:00 was snoozed away, so Monday 18:30 is free; Tuesday follows.
                #expect(labels.prefix(4) == ["slot-0", "Mon 18:30", "slot-1", "Tue 18:00"])
                try await press(offer, "slot-1")
                // The scheduler announces the move once the store has committed it.
                #expect(await announced("reminder.rescheduled"))
                #expect(try await item("Ann")?["start"] == "2026-11-24T18:00:00.000Z")

                clock.advance(to: instant("2026-11-23T19:30:00Z"))
                let moved = try await popups.next("Catch up with Sam")
                try await press(moved, "done")
                #expect(await announced("reminder.done"))
                let person = try await commands.store.request("people.show", args: ["person": "Sam"])
                #expect(person["last"] == "2026-11-23")
                #expect(person["due"] == "2026-12-07")
                #expect(person["items"]?.arrayValue?.first?["status"] == "done")
            }
            await reminders.close()
            notifier.signal(SIGTERM)
            _ = await notifier.waitForExit(timeout: .seconds(5))
        }
    }
}

@Suite("hearth-scheduler: when a check-in's reminder comes")
struct PlanBoardTests {
    @Test("lead minutes before the start, but never inside the planner's quiet hours: their end instead")
    func quietHours() async throws {
        let board = PlanBoard(clock: HouseholdTime(timeZone: TimeZone(identifier: "Europe/London")!))
        let item = { (id: String, start: String, end: String) -> JSONValue in
            [
                "id": .string(id), "title": "Catch up with Sam", "name": "Sam", "start": .string(start),
                "end": .string(end), "fired": false, "person": "sam", "duration": 60, "status": "pending",
                "origin": "auto", "previous": .null, "conflicted": false,
            ]
        }
        let sources: JSONValue = [
            "lead": 30, "refresh": "06:00:00", "quiet": "22:00-07:00",
            "items": [
                item("early", "2026-11-24T07:15:00.000Z", "2026-11-24T08:15:00.000Z"),
                item("evening", "2026-11-24T18:00:00.000Z", "2026-11-24T19:00:00.000Z"),
                item("dawn", "2026-11-24T06:50:00.000Z", "2026-11-24T07:30:00.000Z"),
            ],
        ]
        await board.load(try sources.decode(PlanSources.self))
        let fires = Dictionary(
            uniqueKeysWithValues: await board.upcoming().reminders.map { ($0.id, $0.fires) })
        #expect(fires["plan:early"] == "2026-11-24T07:00:00.000Z")
        #expect(fires["plan:evening"] == "2026-11-24T17:30:00.000Z")
        // Never after the start: one placed by hand at 06:50 reminds at 06:50.
        #expect(fires["plan:dawn"] == "2026-11-24T06:50:00.000Z")
    }
}
