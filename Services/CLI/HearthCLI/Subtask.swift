import ArgumentParser
import HearthBus
import HearthCore

extension Todo {
    /// `hearth todo subtask`: a todo's ordered steps.
    struct Subtask: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "subtask",
            abstract: "A todo's ordered subtasks.",
            subcommands: [Add.self, Done.self, Undone.self, Move.self, Remove.self]
        )

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a subtask at the end.")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The todo's id (or its first characters).", completion: Completions.todo) var todo: String
            @Argument(help: "The subtask's title.") var title: String

            func run() async throws {
                try await Subtask.send(options, "subtask.add", ["todo": .string(todo), "title": .string(title)])
            }
        }

        struct Done: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "done", abstract: "Tick a subtask.")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The subtask's id (or its first characters).") var id: String

            func run() async throws { try await Subtask.send(options, "subtask.done", ["id": .string(id)]) }
        }

        struct Undone: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "undone", abstract: "Untick a subtask.")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The subtask's id (or its first characters).") var id: String

            func run() async throws { try await Subtask.send(options, "subtask.undone", ["id": .string(id)]) }
        }

        struct Move: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "move", abstract: "Move a subtask to a position (1 is first).")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The subtask's id (or its first characters).") var id: String
            @Argument(help: "Its new position, 1 first.") var position: Int

            func run() async throws {
                try await Subtask.send(options, "subtask.move", ["id": .string(id), "position": .int(Int64(position))])
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a subtask.")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The subtask's id (or its first characters).") var id: String

            func run() async throws { try await Subtask.send(options, "subtask.remove", ["id": .string(id)]) }
        }

        /// Sends a subtask command and prints the todo as it now is.
        static func send(_ options: GlobalOptions, _ command: String, _ arguments: [String: JSONValue]) async throws {
            let reply = try await ServiceCall.run(options, .store, command, arguments, as: TodoChange.self)
            if options.json { return try Output.reply(reply) }
            Output.line(Todo.describe(reply.todo))
            Todo.printSubtasks(of: reply.todo)
        }
    }
}
