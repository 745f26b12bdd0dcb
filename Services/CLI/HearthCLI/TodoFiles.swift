import ArgumentParser
import CSV
import Foundation
import HearthBus
import HearthCalendar
import HearthCore

extension Todo {
    /// `hearth todo export`: every todo (of a collection) for other apps, as iCalendar `VTODO`s
    /// (`TodoFile`), as CSV with a header row (CSV.swift), or as the store's JSON.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the todos as iCalendar (VTODO), CSV or JSON, to a file or the terminal.")

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case ics, csv, json
        }

        @OptionGroup var options: GlobalOptions
        @Option(help: "Only this collection's todos (its name or id).") var collection: String?
        @Option(help: "ics (Thunderbird, Tasks.org, Nextcloud), csv (spreadsheets) or json.") var format: Format = .ics
        @Option(help: "The file to write (default: the terminal).") var output: String?

        /// The CSV columns, in order.
        static let columns = [
            "id", "collection", "title", "description", "due", "time", "priority", "repeat", "until", "month_end",
            "completed", "completions", "subtasks", "for", "skipped", "remind",
        ]

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, TodoCommands.Export(collection: collection))
            let text: String =
                switch format {
                case .ics: TodoFile.text(reply.todos, stamp: Date(), name: collection ?? "Hearth todos")
                case .csv: try Self.csv(reply.todos)
                case .json: try JSONValue(reply: reply).jsonText + "\n"
                }
            guard let output else { return Output.write(text) }
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                Output.error("hearth: cannot write \(output): \(error.localizedDescription)")
                throw ExitCode(1)
            }
            Output.line("wrote \(reply.todos.count) todos to \(output)")
        }

        /// One row a todo, under a header row: lists (the days a repeating todo was done, its
        /// subtasks as `[x] title`) are one field each, lines apart.
        static func csv(_ todos: [TodoView]) throws -> String {
            let writer = try CSVWriter(stream: .toMemory(), newline: .crlf)
            try writer.write(row: columns)
            for todo in todos {
                try writer.write(row: [
                    todo.id, todo.collectionName ?? "", todo.title, todo.description ?? "", todo.due ?? "",
                    todo.time ?? "", todo.priority, todo.repeat, todo.until ?? "", todo.monthEnd,
                    todo.completed ? "yes" : "no", (todo.completions ?? []).joined(separator: "\n"),
                    todo.subtasks.map { "[\($0.completed ? "x" : " ")] \($0.title)" }.joined(separator: "\n"),
                    todo.assignee?.name ?? "", (todo.skips ?? []).joined(separator: "\n"), todo.remind ? "yes" : "no",
                ])
            }
            writer.stream.close()
            let data = writer.stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
            return String(decoding: data, as: UTF8.self) + "\r\n"
        }
    }
}

extension Todo {
    /// `hearth todo import FILE.ics`: todos from Thunderbird, Tasks.org, Nextcloud Tasks or
    /// Hearth's own export. Without `--confirm` it only says what it would do.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Read todos from an iCalendar file (VTODO): a preview, then --confirm to import.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The .ics file.") var file: String
        @Option(help: "The collection for todos whose file names none (CATEGORIES).") var collection: String?
        @Flag(help: "Import: add and update the todos (nothing is deleted).") var confirm = false

        func run() async throws {
            let command = TodoCommands.Import(
                path: URL(fileURLWithPath: file).standardizedFileURL.path, collection: collection, confirm: confirm)
            // A big file takes a while (about 0.8 ms a todo): one attempt, waited for, rather than
            // "not answering" while the store still writes it.
            let reply = try await ServiceCall.send(
                options, .store, command, patience: confirm ? .seconds(600) : .seconds(60))
            if options.json { return try Output.reply(reply) }
            let verb = reply.confirmed ? "imported" : "would import"
            Output.line(
                "\(reply.file): \(verb) \(reply.added) new todos, \(reply.updated) updated, \(reply.subtasks) subtasks, "
                    + "\(reply.completions) days done"
                    + (reply.skips.map { ", \($0) skipped" } ?? "")
                    + (reply.collections.isEmpty
                        ? "" : "; new collections: \(reply.collections.joined(separator: ", "))"))
            for problem in reply.problems {
                Output.line("  ✗ \(Output.visible(problem.todo)): \(Output.visible(problem.reason))")
            }
            if !reply.confirmed { Output.line("nothing written: run again with --confirm to import") }
        }
    }
}
