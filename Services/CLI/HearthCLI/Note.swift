import ArgumentParser
import Foundation
import HearthBus

/// `hearth note`: one note a day, with a mood.
struct Note: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Daily notes: a mood (happy, calm, neutral, sad, stressed, angry) and free text.",
        subcommands: [Set.self, Show.self, List.self]
    )

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
            var arguments: [String: JSONValue] = ["date": .string(date)]
            if let mood { arguments["mood"] = .string(mood) }
            if edit {
                let current = try await ServiceCall.run(options, .store, "note.show", ["date": .string(date)])
                arguments["text"] = .string(
                    try await Self.editText(current["text"]?.stringValue ?? words.joined(separator: " ")))
            } else if !words.isEmpty {
                arguments["text"] = .string(words.joined(separator: " "))
            }
            let reply = try await ServiceCall.run(options, .store, "note.set", arguments)
            if options.json { return Output.json(reply) }
            Output.line(
                (reply["unchanged"] == true ? "unchanged: " : "saved: ") + Note.describe(reply["note"] ?? .null))
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
        static let configuration = CommandConfiguration(abstract: "A day's note (default today).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The day: YYYY-MM-DD, today or yesterday.") var date = "today"

        func run() async throws {
            let reply = try await ServiceCall.run(
                options, .store, "note.show", ["date": .string(try Dates.day(date, options))])
            if options.json { return Output.json(reply) }
            if reply["empty"] == true { return Output.line("no note for \(reply["date"]?.stringValue ?? date)") }
            Output.line(Note.describe(reply))
            if let text = reply["text"]?.stringValue {
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) { Output.line("  " + line) }
            }
            for (field, values) in (reply["conflicts"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                let shown = (values.arrayValue ?? []).map { $0.stringValue ?? $0.jsonText }
                Output.line(
                    "  conflict in \(field), both kept: \(shown.joined(separator: " | ")) (see `hearth conflicts`)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Notes, newest first, with a count of each mood.")

        @OptionGroup var options: GlobalOptions
        @Option(help: "From this day on (YYYY-MM-DD).") var since: String?
        @Option(help: "Only notes with this mood.") var mood: String?

        func run() async throws {
            var arguments: [String: JSONValue] = [:]
            if let since { arguments["since"] = .string(try Dates.day(since, options)) }
            if let mood { arguments["mood"] = .string(mood) }
            let reply = try await ServiceCall.run(options, .store, "note.list", arguments)
            if options.json { return Output.json(reply) }
            let notes = reply["notes"]?.arrayValue ?? []
            if notes.isEmpty { Output.line("no notes") }
            for note in notes {
                let firstLine = note["text"]?.stringValue?.split(separator: "\n").first.map(String.init) ?? ""
                Output.line(Note.describe(note) + (firstLine.isEmpty ? "" : "  " + firstLine))
            }
            let moods = (reply["moods"]?.objectValue ?? [:]).sorted {
                ($0.value.intValue ?? 0, $1.key) > ($1.value.intValue ?? 0, $0.key)
            }
            if !moods.isEmpty {
                Output.line("moods: " + moods.map { "\($0.key) \($0.value.intValue ?? 0)" }.joined(separator: ", "))
            }
        }
    }

    static func describe(_ note: JSONValue) -> String {
        "\(note["date"]?.stringValue ?? "?") \(note["mood"]?.stringValue ?? "(no mood)")"
            + (note["conflicted"] == true ? " (conflict)" : "")
    }
}
