import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth note`: one note a day, with a mood.
struct Note: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Daily notes: a mood (happy, calm, neutral, sad, stressed, angry) and free text.",
        subcommands: [Set.self, Show.self, List.self]
    )

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Write a day's note (default today); --edit opens $EDITOR on its text.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The day (YYYY-MM-DD, today, yesterday) and then the text; or just the text.")
        var words: [String] = []
        @Option(help: "happy, calm, neutral, sad, stressed or angry.") var mood: String?
        @Flag(help: "Write the text in $EDITOR (starting from the day's text).") var edit = false

        func run() async throws {
            var words = words
            var day = "today"
            if let first = words.first,
                ["today", "yesterday", "tomorrow"].contains(first.lowercased())
                    || (first.count == 10 && first.dropFirst(4).first == "-")
            {
                day = first
                words.removeFirst()
            }
            let date = try Dates.day(day, options)
            var command = NoteCommands.Set(date: date, mood: mood)
            if edit {
                let current = try await ServiceCall.send(options, .store, NoteCommands.Show(date: date))
                command.text = try await Self.editText(current.text ?? words.joined(separator: " "))
            } else if !words.isEmpty {
                command.text = words.joined(separator: " ")
            }
            let reply = try await ServiceCall.send(options, .store, command)
            if options.json { return try Output.reply(reply) }
            Output.line((reply.unchanged == true ? "unchanged: " : "saved: ") + Note.describe(reply.note))
        }

        /// Opens `$EDITOR` (else `$VISUAL`, else `vi`) on `text` and returns what was saved.
        static func editText(_ text: String) async throws -> String {
            let path = NSTemporaryDirectory() + "hearth-note-\(getpid()).txt"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let environment = ProcessInfo.processInfo.environment
            let editor = environment["EDITOR"] ?? environment["VISUAL"] ?? "vi"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\(editor) \"$1\"", "sh", path]
            // Waits for the editor without blocking a thread of the cooperative pool.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                process.terminationHandler = { _ in done.resume() }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    done.resume()
                }
            }
            guard process.terminationStatus == 0 else {
                throw ValidationError("the editor (\(editor)) exited with status \(process.terminationStatus)")
            }
            let edited = try String(contentsOfFile: path, encoding: .utf8)
            return edited.hasSuffix("\n") ? String(edited.dropLast()) : edited
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "A day's note (default today).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The day: YYYY-MM-DD, today or yesterday.") var date = "today"

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, NoteCommands.Show(date: try Dates.day(date, options)))
            if options.json { return try Output.reply(reply) }
            if reply.empty == true { return Output.line("no note for \(reply.date)") }
            Output.line(Note.describe(reply))
            if let text = reply.text {
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) { Output.line("  " + line) }
            }
            for (field, values) in (reply.conflicts ?? [:]).sorted(by: { $0.key < $1.key }) {
                let shown = try values.map { value in
                    if case .text(let text) = value { return text }
                    return try JSONValue(encoding: value).jsonText
                }
                Output.line(
                    "  conflict in \(field), both kept: \(shown.joined(separator: " | ")) (see `hearth conflicts`)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Notes, newest first, with a count of each mood.")

        @OptionGroup var options: GlobalOptions
        @Option(help: "From this day on (YYYY-MM-DD).") var since: String?
        @Option(help: "Only notes with this mood.") var mood: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, NoteCommands.List(since: try since.map { try Dates.day($0, options) }, mood: mood))
            if options.json { return try Output.reply(reply) }
            if reply.notes.isEmpty { Output.line("no notes") }
            for note in reply.notes {
                let firstLine = note.text?.split(separator: "\n").first.map(String.init) ?? ""
                Output.line(Note.describe(note) + (firstLine.isEmpty ? "" : "  " + firstLine))
            }
            let moods = reply.moods.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            if !moods.isEmpty {
                Output.line("moods: " + moods.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
        }
    }

    static func describe(_ note: NoteView) -> String {
        "\(note.date) \(note.mood ?? "(no mood)")" + (note.conflicted == true ? " (conflict)" : "")
    }
}
