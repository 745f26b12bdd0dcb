import ArgumentParser
import HearthBus
import HearthCore

/// `hearth conflicts`: values that lost a concurrent edit, waiting for a person.
struct Conflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List open conflicts with every competing value.",
        subcommands: [ListConflicts.self, Resolve.self],
        defaultSubcommand: ListConflicts.self
    )

    struct ListConflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List open conflicts.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "conflicts", as: ConflictList.self)
            if options.json { return try Output.reply(reply) }
            let zone = try Dates.zone(options)
            if reply.conflicts.isEmpty { Output.line("no open conflicts") }
            for conflict in reply.conflicts {
                Output.line("\(conflict.id)  shown: \(try History.show(conflict.shown))")
                for value in conflict.values {
                    Output.line(
                        "  \(try History.show(value.value))  by \(value.deviceName) at "
                            + "\(Dates.wall(value.time, zone))  (\(value.op))")
                }
            }
        }
    }

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve a conflict, keeping one value.",
            discussion: "--keep takes an operation id, a device name (that device's value), or the value itself."
        )
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The conflict, such as 2026-08/title.") var id: String
        @Option(help: "What to keep.") var keep: String

        func run() async throws {
            let reply = try await ServiceCall.run(
                options, .store, "conflicts.resolve", ["id": .string(id), "keep": .string(keep)])
            if options.json { return Output.json(reply) }
            Output.line("resolved \(id): " + Event.describe(try reply.decode(ConflictResolved.self).card))
        }
    }
}
