import ArgumentParser
import HearthBus
import HearthCore

/// `hearth todo skip` and `hearth todo pause`: days a habit does not apply.
extension Todo {
    struct Skip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "skip",
            abstract:
                "Mark one day of a habit skipped (the pool was closed): it neither breaks nor extends the streak.",
            discussion: "A skipped day reminds nobody. --undo makes it an ordinary day again (a day done stays done).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var day: Day
        @Flag(help: "The day is no longer skipped.") var undo = false

        func run() async throws {
            let date = try Dates.day(day.date ?? "today", options)
            let reply = try await ServiceCall.send(
                options, .store, TodoCommands.Skip(id: day.id, date: date, skipped: !undo))
            if options.json { return try Output.reply(reply) }
            Output.line((undo ? "no longer skipped: " : "skipped: ") + "\(date) of " + Todo.describe(reply.todo))
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause",
            abstract: "Pause a habit for a range of days (a holiday): every day it falls on is skipped.",
            discussion: """
                At most 366 days at once. --resume makes those days ordinary again; without \
                --from and --to, every day paused or skipped from today on.
                """)

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The todo's id (or its first characters).", completion: Completions.todo) var id: String
        @Option(help: "The first day: YYYY-MM-DD, today, tomorrow or yesterday.") var from: String?
        @Option(help: "The last day.") var to: String?
        @Flag(help: "Those days are no longer skipped (without --from/--to: every one from today on).")
        var resume = false

        func validate() throws {
            guard resume || (from != nil && to != nil) else {
                throw ValidationError("give --from and --to: the first and last day of the pause")
            }
            guard (from == nil) == (to == nil) else { throw ValidationError("give both --from and --to, or neither") }
        }

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                TodoCommands.Pause(
                    id: id, from: try from.map { try Dates.day($0, options) },
                    to: try to.map { try Dates.day($0, options) }, resume: resume))
            if options.json { return try Output.reply(reply) }
            let days = "\(reply.days.count) day\(reply.days.count == 1 ? "" : "s")"
            Output.line((resume ? "resumed \(days) of " : "paused for \(days): ") + Todo.describe(reply.todo))
        }
    }
}
