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
                try await Subtask.send(options, SubtaskCommands.Add(todo: todo, title: title))
            }
        }

        struct Done: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "done", abstract: "Tick a subtask.")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The subtask's id (or its first characters).") var id: String

            func run() async throws { try await Subtask.send(options, SubtaskCommands.Done(id: id)) }
        }

        struct Undone: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "undone", abstract: "Untick a subtask.")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The subtask's id (or its first characters).") var id: String

            func run() async throws { try await Subtask.send(options, SubtaskCommands.Undone(id: id)) }
        }

        struct Move: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "move", abstract: "Move a subtask to a position (1 is first).")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The subtask's id (or its first characters).") var id: String
            @Argument(help: "Its new position, 1 first.") var position: Int

            func run() async throws {
                try await Subtask.send(options, SubtaskCommands.Move(id: id, position: position))
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a subtask.")

            @OptionGroup var options: GlobalOptions
            @Argument(help: "The subtask's id (or its first characters).") var id: String

            func run() async throws { try await Subtask.send(options, SubtaskCommands.Remove(id: id)) }
        }

        /// Sends a subtask command and prints the todo as it now is.
        static func send<C: HearthCommand>(_ options: GlobalOptions, _ command: C) async throws
        where C.Reply == TodoChange {
            let reply = try await ServiceCall.send(options, .store, command)
            if options.json { return try Output.reply(reply) }
            Output.line(Todo.describe(reply.todo))
            Todo.printSubtasks(of: reply.todo)
        }
    }
}
