import ArgumentParser
import HearthBus
import HearthCore

/// `hearth conflicts`: values that lost a concurrent edit, waiting for a person.
struct Conflicts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "List open conflicts with every competing value.",
        subcommands: [ListConflicts.self, Resolve.self],
        defaultSubcommand: ListConflicts.self
    )

    struct ListConflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List open conflicts.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, HistoryCommands.Conflicts())
            if options.json { return try Output.reply(reply) }
            let zone = try Dates.zone(options)
            if reply.conflicts.isEmpty { Output.line("no open conflicts") }
            for conflict in reply.conflicts {
                // A todo's (or any UUID's) id by its start, which `resolve` takes.
                let short = conflict.entity.count == 36 ? "\(conflict.entity.prefix(8))/\(conflict.field)" : conflict.id
                let name = conflict.name.map { "  \($0)" } ?? ""
                Output.line("\(short)\(name)  shown: \(try History.show(conflict.shown))")
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
            commandName: "resolve",
            abstract: "Resolve a conflict, keeping one value.",
            discussion: "--keep takes an operation id, a device name (that device's value), or the value itself."
        )
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The conflict, such as 2026-08/title.") var id: String
        @Option(help: "What to keep.") var keep: String

        /// A kept value as people typed it: text as it is, a time without its seconds (07:30).
        static func plain(_ value: FieldJSON) throws -> String {
            guard case .text(let text) = value else { return try History.show(value) }
            if (try? LocalTime(parsing: text, field: "keep")) != nil, text.count == 8, text.hasSuffix(":00") {
                return String(text.prefix(5))
            }
            return Output.visible(text)
        }

        func run() async throws {
            let reply = try await ServiceCall.reply(options, .store, HistoryCommands.Resolve(id: id, keep: keep))
            if options.json { return Output.json(reply) }
            let resolved = try reply.decode(ConflictResolved.self)
            if let card = resolved.card {
                Output.line("resolved \(id): " + Event.describe(card))
            } else {
                let kept = try resolved.kept.map(Self.plain) ?? "nothing"
                Output.line("resolved \(id)\(resolved.name.map { " (\($0))" } ?? ""): kept \(kept)")
            }
        }
    }
}
