import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth undo [--list]`: take back the last change made on this device, in any domain.
struct Undo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back the last change made on this device (a card, a todo, a lesson, a person…).",
        discussion: """
            An undo is a new change restoring what the last one replaced, so it syncs to the \
            other devices and stays in history; `hearth redo` brings the change back. A timetable \
            import, a week copied or a template applied is one change. A field another device \
            changed since is left as it is, and undo says so. --list shows the last 20 changes \
            made here, newest first.
            """)

    @OptionGroup var options: GlobalOptions
    @Flag(help: "List the last changes made on this device instead of undoing one.") var list = false
    @Option(help: "How many changes --list shows, 1 to 200.") var limit = 20

    func run() async throws {
        guard list else { return try await Self.act(options, redo: false) }
        let reply = try await ServiceCall.send(options, .store, HistoryCommands.UndoSteps(limit: limit))
        if options.json { return try Output.reply(reply) }
        if reply.steps.isEmpty { Output.line("no changes made on this device yet") }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for step in reply.steps {
            let state =
                step.state == "done"
                ? "" : step.state == "undone" ? "  [undone]" : "  [undone, can no longer be redone]"
            Output.line(
                "\(step.age(now: now).padding(toLength: 10, withPad: " ", startingAt: 0)) \(step.command)  \(Output.visible(step.summary))\(state)"
            )
            for change in step.changes.prefix(step.entities > 1 ? 5 : 1) {
                Output.line("    \(Output.visible(change))")
            }
            if step.entities > 5 { Output.line("    … \(step.entities - 5) more") }
        }
        Output.line(
            "undo takes back \(reply.canUndo ? "the newest not undone" : "nothing (no change to undo)"); redo \(reply.canRedo ? "brings back the last undone" : "has nothing to bring back")"
        )
    }

    /// Runs `undo` or `redo` and prints what it restored and what it left.
    static func act(_ options: GlobalOptions, redo: Bool) async throws {
        let reply =
            redo
            ? try await ServiceCall.send(options, .store, HistoryCommands.Redo())
            : try await ServiceCall.send(options, .store, HistoryCommands.Undo())
        if options.json { return try Output.reply(reply) }
        Output.line("\(redo ? "redid" : "undid"): \(reply.step.command) · \(Output.visible(reply.step.summary))")
        for line in reply.restored.prefix(5) { Output.line("  restored \(Output.visible(line))") }
        if reply.restoredTotal > 5 { Output.line("  … and \(reply.restoredTotal - 5) more restored") }
        for line in reply.left { Output.line("  \(Output.visible(line))") }
        if reply.leftTotal > reply.left.count { Output.line("  … and \(reply.leftTotal - reply.left.count) more left") }
        if reply.restored.isEmpty && reply.left.isEmpty { Output.line("  nothing to restore: it is already as it was") }
    }
}

/// `hearth redo`: bring back the change the last undo took back.
struct Redo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "Bring back what the last undo on this device took back.",
        discussion: "A change made after an undo ends what can be redone, as in any editor.")

    @OptionGroup var options: GlobalOptions

    func run() async throws { try await Undo.act(options, redo: true) }
}
