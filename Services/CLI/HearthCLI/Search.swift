import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth search TEXT`: anything in the household that matches, best first.
struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search todos, notes, the year's cards, people and lessons.",
        discussion: """
            Every word must begin a word of what is found, whatever its accents (cafe finds Café); \
            quotes, AND, NEAR, *, - and parentheses are searched as text. The matches are in bold \
            on a terminal (unless NO_COLOR is set), in [ ] otherwise. A student's profile finds \
            only its own lessons.
            """)

    @OptionGroup var options: GlobalOptions
    /// Words that begin with `-` are words to search for too (`hearth search -mas`); only the
    /// command's own options are read as options.
    @Argument(parsing: .allUnrecognized, help: "What to search for (a word may begin with -).") var text: [String] = []
    @Option(help: "Only one kind: todo, note, card, person or lesson.") var kind: String?
    @Option(help: "How many results, 1 to 100.") var limit = 20

    /// The words searched for: `text` without the `--` that may end the options (kept by
    /// `.allUnrecognized`), so `hearth search -- -mas` searches -mas as before.
    var words: [String] {
        guard let end = text.firstIndex(of: "--") else { return text }
        var words = text
        words.remove(at: end)
        return words
    }

    func run() async throws {
        let reply = try await ServiceCall.send(
            options, .store, SearchCommands.Search(text: words.joined(separator: " "), kind: kind, limit: limit))
        if options.json { return try Output.reply(reply) }
        let bold = ProcessInfo.processInfo.environment["NO_COLOR"] == nil && isatty(STDOUT_FILENO) == 1
        for line in Self.lines(reply, bold: bold) { Output.line(line) }
    }

    /// The results as lines: kind, title and where, then the snippet, indented.
    static func lines(_ reply: SearchResults, bold: Bool) -> [String] {
        guard !reply.results.isEmpty else { return ["nothing found for \(Output.visible(reply.text))"] }
        var lines: [String] = []
        for result in reply.results {
            let detail = result.detail.isEmpty ? "" : "  (\(Output.visible(result.detail)))"
            lines.append(
                "\(result.kind.padding(toLength: 6, withPad: " ", startingAt: 0)) \(Output.visible(result.title))\(detail)  \(result.id.prefix(8))"
            )
            let snippet = result.snippet.map { part in
                let text = Output.visible(part.text.replacingOccurrences(of: "\n", with: " "))
                return part.match ? (bold ? "\u{1B}[1m\(text)\u{1B}[0m" : "[\(text)]") : text
            }.joined()
            if !snippet.isEmpty { lines.append("       " + snippet) }
        }
        return lines
    }
}
