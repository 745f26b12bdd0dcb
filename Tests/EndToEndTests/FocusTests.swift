import Foundation
import HearthBus
import HearthTesting
import Testing

/// Focus mode in a real terminal: `hearth focus` runs in a tmux pane, keys are sent with
/// `send-keys` and the screen read with `capture-pane`.
@Suite("End to end: focus mode in tmux", .serialized, .timeLimit(.minutes(2)))
struct FocusTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test(
        "d completes through the store, n brings a todo round again, s skips it, q ends with the counts; a habit is refused"
    )
    func focus() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        let store = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(5))
        _ = try await store.request("collection.add", args: ["name": "Work", "kind": "plan"])
        _ = try await store.request("collection.add", args: ["name": "Habits", "kind": "habit"])
        var ids: [String: String] = [:]
        for (title, due) in [("Alpha", "2026-11-24"), ("Beta", "2026-11-25"), ("Gamma", "2026-11-26")] {
            let added = try await store.request(
                "todo.add", args: ["title": .string(title), "collection": "Work", "due": .string(due)])
            ids[title] = try #require(added["todo"]?["id"]?.stringValue)
        }

        let habit = try await stack.hearth(["focus", "Habits"])
        #expect(habit.status == 2)
        #expect(habit.stderr.contains("Habits is a habit: focus mode steps through a plan or a list"))
        let queue = try JSONValue.parse(try await stack.hearth(["--json", "focus", "Work"]).stdout)
        #expect(queue["queue"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["Alpha", "Beta", "Gamma"])

        let tmux = TmuxPane(name: "focus")
        let hearth = ChildProcess.binaryDirectory + "/hearth"
        try await tmux.start(
            "env HEARTH_HOME=\(stack.home.path) \(hearth) focus Work; tmux -L \(tmux.socket) wait-for -S focus-ended; sleep 60"
        )
        var screen = try await tmux.waitForScreen("Focus · Work · 3 open")
        #expect(screen.contains("Alpha"))
        #expect(screen.contains("due 2026-11-24"))
        #expect(screen.contains("d done · s skip · n next · q quit"))

        try await tmux.send("d")
        screen = try await tmux.waitForScreen("2 open · done 1")
        #expect(screen.contains("Beta"))
        try await tmux.send("n")
        screen = try await tmux.waitForScreen("Gamma")
        try await tmux.send("s")
        screen = try await tmux.waitForScreen("skipped 1")
        #expect(screen.contains("Beta"))  // round again after Gamma
        try await tmux.send("q")
        try await tmux.run(["wait-for", "focus-ended"], timeout: .seconds(10))
        screen = try await tmux.screen()
        await tmux.close()
        // Beta never reached and Gamma skipped: both still open.
        #expect(screen.contains("Focus on Work ended: done 1, skipped 1, 2 still open, total time 00:0"))

        let shown = try await store.request("todo.show", args: ["id": .string(ids["Alpha"]!)])
        #expect(shown["completed"] == true)
        for title in ["Beta", "Gamma"] {
            #expect(try await store.request("todo.show", args: ["id": .string(ids[title]!)])["completed"] == false)
        }
        await store.close()
        _ = await stack.stop()
    }
}
