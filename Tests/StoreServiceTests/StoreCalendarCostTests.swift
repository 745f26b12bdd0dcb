import Foundation
import HearthBus
import HearthTesting
import Testing

/// A crafted calendar import against a real `hearth-store` process, with the other command's
/// answer times measured on a thread of their own: this test process's cooperative pool is shared
/// with CPU-heavy suites in the full parallel run (a task that computes holds a pool thread until
/// it awaits), so neither the store nor the measuring client runs on it.
@Suite("hearth-store process: a costly calendar import", .serialized, .timeLimit(.minutes(1)))
struct StoreCalendarCostTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test(
        "a calendar of costly rules is cut off at its time limit off the cooperative pool: commands answered meanwhile")
    func costlyCalendar() async throws {
        let home = try TemporaryHome()
        try Data("[household]\ntime_zone = \"Europe/London\"\n".utf8).write(
            to: URL(fileURLWithPath: home.file("hearth.toml")))
        let stack = try await TestStack([.store], home: home, context: context)
        let endpoint = stack.configuration.commandEndpoint(.store)
        // Forty rules libical searches to its last year for (~0.5 s each), one it would search
        // for minutes.
        var text = "BEGIN:VCALENDAR\r\n"
        for n in 1...40 {
            text += "BEGIN:VEVENT\r\nUID:never-\(n)\r\nDTSTART:20200101T090000Z\r\nDURATION:PT1H\r\n"
            text += "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30\r\nEND:VEVENT\r\n"
        }
        text += "BEGIN:VEVENT\r\nUID:seconds\r\nDTSTART:20261101T090000Z\r\nDURATION:PT1H\r\n"
        text += "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let path = home.file("crafted.ics")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        // As many imports at once as the machine has cores: expanded on the store's cooperative
        // pool, they would hold every thread of it for seconds.
        let count = max(2, ProcessInfo.processInfo.activeProcessorCount)
        // Monday 23 November 2026, 09:00 UTC.
        let arguments: [String: JSONValue] = ["path": .string(path), "now": 1_795_424_400_000]
        let importsDone = AsyncSignal()
        let imports = Task {
            defer { importsDone.fire() }
            let client = CommandClient(context: context, endpoint: endpoint, timeout: .seconds(30), attempts: 1)
            defer { Task { await client.close() } }
            return try await withThrowingTaskGroup(of: JSONValue.self) { group in
                for _ in 0..<count { group.addTask { try await client.request("plan.busy.import", args: arguments) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let (answered, slowest, elapsed) = try await Self.askUntil(
            importsDone, command: "plan.prefs", endpoint: endpoint, context: context)
        let replies = try await imports.value
        // The 3 s limit, plus the libical call in progress when it passed.
        #expect(elapsed < .seconds(10), "the imports took \(elapsed)")
        #expect(answered >= 3, "\(answered) answers, the slowest in \(slowest)")
        #expect(slowest < .seconds(1), "\(answered) answers, the slowest in \(slowest)")
        for reply in replies {
            #expect(reply["events"] == 41 && reply["busy"] == 0)
            let reasons = reply["errors"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
            // The rules expanded before the limit simply have no occurrence; the rest are named.
            #expect(reasons.count >= 30, "\(reasons)")
            #expect(reasons.filter { $0.contains("finer than daily with filters") }.count == 1)
            #expect(reasons.allSatisfy { $0.contains("finer than daily") || $0.contains("was not expanded") })
        }
        #expect(await stack.stop()[.store] == 0)
    }

    /// Sends `command` again and again with blocking calls on a thread of its own until `done`
    /// fires; returns how many were answered, the slowest answer, and the time until `done`.
    static func askUntil(
        _ done: AsyncSignal, command: String, endpoint: String, context: ZMQContext
    ) async throws -> (answered: Int, slowest: Duration, elapsed: Duration) {
        try await offPool { () throws -> (Int, Duration, Duration) in
            let socket = try ZMQSocket(context: context, kind: .dealer)
            defer { socket.close() }
            try socket.setLinger(milliseconds: 0)
            try socket.setTimeouts(send: 5_000, receive: 5_000)
            try socket.connect(endpoint)
            let clock = ContinuousClock()
            let started = clock.now
            var (answered, slowest) = (0, Duration.zero)
            while !done.isFired {
                let asked = clock.now
                let request = CommandRequest(command: command)
                _ = try socket.send([[], request.jsonBytes])
                let frames = try #require(try socket.receive(), "\(command) not answered within 5 s")
                let reply = try CommandReply.decode(frames[frames.count - 1])
                #expect(reply.id == request.id)
                slowest = max(slowest, clock.now - asked)
                answered += 1
            }
            return (answered, slowest, clock.now - started)
        }
    }
}
