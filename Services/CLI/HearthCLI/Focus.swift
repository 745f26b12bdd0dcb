import ArgumentParser
import Foundation
import HearthBus
import HearthCore

#if canImport(Glibc)
    import Glibc
#endif

/// `hearth focus COLLECTION`: one open todo of a plan or list at a time, full screen.
struct Focus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus",
        abstract: "Step through the open todos of a plan or list one at a time (d done, s skip, n next, q quit).",
        discussion: """
            Shows one open todo at a time — title, due time, collection, subtasks, the time spent \
            on it and in the session. d completes it (through the store, like `hearth todo done`), \
            s skips it for this session, n moves on and brings it round again later, q quits. The \
            end summary counts what was done and skipped and the total time. --json prints the \
            queue instead. Habits are refused: they are done on their days, not worked through.
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The plan or list: its name or id.", completion: Completions.collection) var collection: String

    func run() async throws {
        let collections = try await ServiceCall.send(options, .store, CollectionCommands.List())
        let wanted = collection.lowercased()
        guard
            let found = collections.collections.first(where: {
                $0.name.lowercased() == wanted || $0.id.hasPrefix(wanted)
            })
        else {
            throw Self.refusal("'collection': no collection '\(collection)'", options)
        }
        if found.kind == "habit" {
            throw Self.refusal(
                "'collection': \(found.name) is a habit: focus mode steps through "
                    + "a plan or a list (habits are done on their days: see `hearth calendar day`)", options)
        }
        let listed = try await ServiceCall.send(
            options, .store, TodoCommands.List(collection: found.id, today: try Dates.day("today", options)))
        // The open one-off todos, in the store's order (due date, time, title).
        let queue = listed.todos.filter { !$0.completed && $0.repeat == "none" }
        if options.json {
            return Output.json(["collection": try JSONValue(reply: found), "queue": try JSONValue(reply: queue)])
        }
        var session = FocusSession(queue: queue, collection: found.name)
        let terminal = Terminal()
        terminal.enter()
        let keys = terminal.keys()
        let ticks = AsyncStream<Void> { continuation in
            let task = Task {
                // The clock on screen moves once a second: a display timer.
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    continuation.yield()
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        let events = AsyncStream<FocusEvent> { continuation in
            let keyTask = Task {
                for await key in keys { continuation.yield(.key(key)) }
                continuation.yield(.key(UInt8(ascii: "q")))
            }
            let tickTask = Task { for await _ in ticks { continuation.yield(.tick) } }
            continuation.onTermination = { _ in
                keyTask.cancel()
                tickTask.cancel()
            }
        }
        terminal.draw(session.screen(now: Date()))
        for await event in events {
            if case .key(let key) = event {
                switch key {
                case UInt8(ascii: "d"):
                    if let todo = session.current?.id {
                        do {
                            _ = try await ServiceCall.send(options, .store, TodoCommands.Done(id: todo))
                            session.done()
                        } catch {
                            session.message = "could not complete it: \(error)"
                        }
                    }
                case UInt8(ascii: "s"): session.skip()
                case UInt8(ascii: "n"): session.next()
                case UInt8(ascii: "q"): session.quit()
                default: break
                }
            }
            if session.finished { break }
            terminal.draw(session.screen(now: Date()))
        }
        terminal.leave()
        for line in session.summary(now: Date()) { Output.line(line) }
    }

    enum FocusEvent: Sendable {
        case key(UInt8)
        case tick
    }

    static func refusal(_ message: String, _ options: GlobalOptions) -> ExitCode {
        Output.error("hearth: \(message)")
        return ExitCode(2)
    }
}

/// The state of one focus session: the queue, what was done and skipped, and the clocks.
struct FocusSession {
    private(set) var queue: [TodoView]
    let collection: String
    let started = Date()
    private(set) var currentStarted = Date()
    private(set) var doneCount = 0
    private(set) var skipped = 0
    private(set) var finished = false
    var message: String?

    init(queue: [TodoView], collection: String) {
        self.queue = queue
        self.collection = collection
    }

    var current: TodoView? { queue.first }

    mutating func done() {
        guard !queue.isEmpty else { return }
        queue.removeFirst()
        doneCount += 1
        moved()
    }

    mutating func skip() {
        guard !queue.isEmpty else { return }
        queue.removeFirst()
        skipped += 1
        moved()
    }

    /// On to the next todo; this one comes round again at the end.
    mutating func next() {
        guard queue.count > 1 else { return }
        queue.append(queue.removeFirst())
        moved()
    }

    mutating func quit() { finished = true }

    private mutating func moved() {
        currentStarted = Date()
        message = nil
        if queue.isEmpty { finished = true }
    }

    static func clock(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds)
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
            : String(format: "%02d:%02d", whole / 60, whole % 60)
    }

    func screen(now: Date) -> [String] {
        var lines = ["Focus · \(collection) · \(queue.count) open · done \(doneCount) · skipped \(skipped)", ""]
        guard let todo = current else { return lines + ["Nothing open here."] }
        lines.append("  " + Output.visible(todo.title))
        var when: [String] = []
        if let due = todo.due { when.append("due \(due)" + (todo.time.map { " " + $0 } ?? "")) }
        if todo.priority != "none" { when.append(todo.priority) }
        when.append(Output.visible(todo.collectionName ?? collection))
        lines.append("  " + when.joined(separator: " · "))
        for subtask in todo.subtasks {
            lines.append("    \(subtask.completed ? "[x]" : "[ ]") \(Output.visible(subtask.title))")
        }
        lines.append("")
        lines.append(
            "  on this todo \(Self.clock(now.timeIntervalSince(currentStarted))) · session \(Self.clock(now.timeIntervalSince(started)))"
        )
        if let message { lines.append("  " + Output.visible(message)) }
        lines.append("")
        lines.append("  d done · s skip · n next · q quit")
        return lines
    }

    /// The end line: a skipped todo is still open (it was only left for this session).
    func summary(now: Date) -> [String] {
        [
            "Focus on \(collection) ended: done \(doneCount), skipped \(skipped), \(queue.count + skipped) still open, "
                + "total time \(Self.clock(now.timeIntervalSince(started)))"
        ]
    }
}

/// The terminal in focus mode: the alternate screen, keys one at a time without echo, and a
/// reader thread for them (a read on standard input blocks, so it never runs on the pool).
final class Terminal: Sendable {
    private let saved: termios?

    init() {
        var settings = termios()
        saved = isatty(STDIN_FILENO) == 1 && tcgetattr(STDIN_FILENO, &settings) == 0 ? settings : nil
    }

    func enter() {
        if var raw = saved {
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        }
        Output.write("\u{1B}[?1049h\u{1B}[?25l")
    }

    func leave() {
        if var saved { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        Output.write("\u{1B}[?25h\u{1B}[?1049l")
    }

    func draw(_ lines: [String]) {
        Output.write("\u{1B}[2J\u{1B}[H" + lines.joined(separator: "\r\n") + "\r\n")
    }

    /// Bytes typed, from a thread of its own; ends at end of input.
    func keys() -> AsyncStream<UInt8> {
        AsyncStream { continuation in
            let thread = Thread {
                var byte: UInt8 = 0
                while read(STDIN_FILENO, &byte, 1) == 1 { continuation.yield(byte) }
                continuation.finish()
            }
            thread.name = "hearth-focus-keys"
            thread.start()
        }
    }
}
