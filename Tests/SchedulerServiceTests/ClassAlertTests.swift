import BusService
import Foundation
import HearthBus
import HearthCore
import HearthTesting
import Logging
import StoreService
import Testing

@testable import SchedulerService

/// Next-class notifications end to end: bus, store and scheduler in process with the scheduler's
/// clock driven by the test, and a real `hearth-notifier` process raising popups on a private
/// D-Bus session's notification test server.
@Suite("hearth-scheduler: next-class notifications reach the screen", .serialized, .timeLimit(.minutes(2)))
struct ClassAlertTests {
    private func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test(
        "popups arrive at lead time on school days of the right week only, never in a holiday, with subject, room and teacher"
    )
    func nextClass() async throws {
        try await SchedulerTestStack.run(at: instant("2026-11-15T12:00:00Z")) { stack in  // Sunday noon, GMT
            let (clock, server) = (stack.clock, stack.server)
            let commands = (store: stack.store, scheduler: stack.scheduler)
            // The household: Ann (lead 15) and Bob (notifications off), Week 1 from Monday the 16th,
            // a holiday on Wednesday the 18th.
            for (name, role) in [("Ann", "student"), ("Bob", "student")] {
                _ = try await commands.store.request(
                    "member.add", args: ["name": .string(name), "role": .string(role)])
            }
            _ = try await commands.store.request("member.notify", args: ["member": "Ann", "lead": 15])
            _ = try await commands.store.request("member.notify", args: ["member": "Bob", "off": true])
            _ = try await commands.store.request("timetable.configure", args: ["week1_start": "2026-11-16"])
            _ = try await commands.store.request(
                "timetable.bells", args: ["bells": ["1=09:00-10:00", "2=10:00-11:00"]])
            _ = try await commands.store.request(
                "timetable.holiday.add", args: ["from": "2026-11-18", "to": "2026-11-18", "name": "Inset day"])
            let ann = """
                1,Mon,1,Maths,MrS,R12
                1,Tue,2,English,,R4
                1,Wed,1,Drama,MsD,D1
                1,Thu,1,History,MrH,H2
                2,Mon,1,Art,MsA,A1
                """
            _ = try await commands.store.request(
                "timetable.import", args: ["member": "Ann", "csv": .string(ann), "confirm": true])
            _ = try await commands.store.request(
                "timetable.import", args: ["member": "Bob", "csv": "1,Mon,1,Physics,MrP,P1\n", "confirm": true])

            let notifier = try await stack.startNotifier()
            try await stack.withScheduler {
                /// Waits until the scheduler's board holds `subject` (a load after the clock moved).
                func loaded(_ subject: String) async throws {
                    let deadline = ContinuousClock.now + .seconds(10)
                    while ContinuousClock.now < deadline {
                        let list = try await commands.scheduler.request("class.list").decode(ClassList.self)
                        if list.classes.contains(where: { $0.lesson.subject == subject }) { return }
                    }
                    Issue.record("the scheduler never loaded \(subject)")
                }
                var popups = Popups(server: server, notifier: notifier)
                try await loaded("Maths")
                clock.advance(to: instant("2026-11-16T08:45:00Z"))  // Monday, 15 minutes before Maths
                let maths = try await popups.next("Next: Maths in R12 at 09:00 · MrS")
                #expect(maths["body"] == "Ann · period 1")
                #expect(maths["urgency"] == 1)
                #expect(maths["category"] == "hearth.class")

                clock.advance(to: instant("2026-11-17T09:45:00Z"))
                _ = try await popups.next("Next: English in R4 at 10:00")
                // Wednesday is the holiday: its Drama is never loaded, so never raised.
                clock.advance(to: instant("2026-11-18T08:45:00Z"))
                try await loaded("History")
                clock.advance(to: instant("2026-11-19T08:45:00Z"))
                _ = try await popups.next("Next: History in H2 at 09:00 · MrH")
                // The next Monday is in Week 2: Art, not Maths.
                clock.advance(to: instant("2026-11-23T08:45:00Z"))
                _ = try await popups.next("Next: Art in A1 at 09:00 · MsA")

                let summaries = try server.output.lines.filter { $0.contains("\"call\": \"Notify\"") }.map {
                    try JSONValue.parse($0)["summary"]?.stringValue ?? ""
                }
                #expect(
                    summaries == [
                        "Next: Maths in R12 at 09:00 · MrS", "Next: English in R4 at 10:00",
                        "Next: History in H2 at 09:00 · MrH", "Next: Art in A1 at 09:00 · MsA",
                    ])
                // Raised once: a restart of the scheduler inside the lead does not raise Art again.
                let alerted = try await commands.store.request(
                    "class.sources", args: ["from": "2026-11-23", "to": "2026-11-23"])
                #expect(alerted["members"]?.arrayValue?.first?["alerted_until"]?.intValue == 1_795_424_400_000)
            }
            notifier.signal(SIGTERM)
            _ = await notifier.waitForExit(timeout: .seconds(5))
        }
    }
}
