import HearthBus
import HearthTesting
import Testing

/// The notification test server's `Notify` calls, taken one after another: each `next` waits
/// for the following call (an event in the server's output, not a poll) and checks its summary.
struct Popups {
    let server: ChildProcess
    /// The notifier process, whose errors explain a popup that never came.
    let notifier: ChildProcess
    private var seen = 0

    init(server: ChildProcess, notifier: ChildProcess) {
        self.server = server
        self.notifier = notifier
    }

    /// The next popup's call, which must show `summary` (the server writes JSON with non-ASCII
    /// escaped, so lines are parsed, not matched as text).
    mutating func next(_ summary: String) async throws -> JSONValue {
        seen += 1
        let count = seen
        let arrived = await server.output.waitForLines(count) { $0.contains("\"call\": \"Notify\"") }
        try #require(arrived, "no popup '\(summary)'; the notifier said: \(notifier.errors.text)")
        let calls = server.output.lines.filter { $0.contains("\"call\": \"Notify\"") }
        let call = try JSONValue.parse(try #require(calls.count >= count ? calls[count - 1] : nil))
        #expect(call["summary"]?.stringValue == summary)
        return call
    }
}
