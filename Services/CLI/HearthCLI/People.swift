import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth people`: the people who matter, how often to see each, and when we last did.
struct People: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "The people who matter: goals (how often, when), priorities and the interaction log.",
        discussion: """
            A person's score is 0.7 × urgency (days overdue past the cadence, as cadences) + \
            0.3 × importance (1–5 made 0–1); `hearth people list` shows the highest first. \
            Logging an interaction restarts the cadence. `hearth plan week` places check-ins.
            """,
        subcommands: [Add.self, List.self, Show.self, Edit.self, Remove.self, Goal.self, Log.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a person.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their name (unique, ignoring case).") var name: String
        @Option(help: "Tags, comma-separated (family, school).") var tags: String?
        @Option(help: "Why they matter, in a line.") var purpose: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, PeopleCommands.Add(name: name, tags: tags, purpose: purpose))
            if options.json { return try Output.reply(reply) }
            Output.line("added \(Output.visible(name))  (\(reply.person.id.prefix(8)))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List people by score, highest first.")

        @OptionGroup var options: GlobalOptions
        @Option(help: .hidden) var now: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, PeopleCommands.List(now: try Plan.nowMilliseconds(now)))
            if options.json { return try Output.reply(reply) }
            if reply.people.isEmpty { return Output.line("no people yet: hearth people add NAME") }
            let zone = try options.loadConfiguration().household.timeZone
            Output.line("score  urgency  overdue  person")
            for person in reply.people {
                let name = Output.visible(person.name)
                guard let standing = person.standing else {
                    Output.line("    —        —        —  \(name) (no goal: hearth people goal)")
                    continue
                }
                let next = person.next.map { " · next \(Plan.local($0.start, zone))" } ?? ""
                Output.line(
                    String(format: "%5.2f  %7.2f  %5dd  ", standing.score, standing.urgency, standing.overdueDays)
                        + "\(name) · every \(standing.goal.every)d · due \(standing.due)\(next)")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show a person: goal, priority, log and check-ins.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their name (any case) or id.", completion: Completions.person) var person: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, PeopleCommands.Show(person: person))
            if options.json { return try Output.reply(reply) }
            let zone = try options.loadConfiguration().household.timeZone
            Output.line(Output.visible(reply.name))
            if let tags = reply.tags { Output.line("  tags: \(Output.visible(tags))") }
            if let purpose = reply.purpose { Output.line("  purpose: \(Output.visible(purpose))") }
            if let standing = reply.standing {
                let goal = standing.goal
                Output.line(
                    "  every \(goal.every) days · importance \(goal.importance) · "
                        + "\(Social.durationText(goal.duration)) · \(goal.windows)")
                if let exclude = goal.exclude { Output.line("  not on \(exclude)") }
                Output.line(
                    String(
                        format: "  last %@ · due %@ · %d days overdue · urgency %.2f · score %.2f",
                        standing.last ?? "never", standing.due, standing.overdueDays, standing.urgency, standing.score))
            } else {
                Output.line("  no goal yet: hearth people goal NAME --every DAYS --window 'Mon-Fri 18:00-21:00'")
            }
            for interaction in reply.interactions ?? [] {
                let note = interaction.note.map { " — \(Output.visible($0))" } ?? ""
                Output.line("  \(Plan.local(interaction.at, zone)) \(interaction.outcome)\(note)")
            }
            for item in reply.items ?? [] { Output.line("  " + Plan.itemLine(item, zone)) }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Rename a person or change their tags or purpose.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their name (any case) or id.", completion: Completions.person) var person: String
        @Option(help: "A new name.") var name: String?
        @Option(help: "Tags, comma-separated (empty clears).") var tags: String?
        @Option(help: "Why they matter (empty clears).") var purpose: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, PeopleCommands.Edit(person: person, name: name, tags: tags, purpose: purpose))
            if options.json { return try Output.reply(reply) }
            Output.line(reply.unchanged == true ? "unchanged" : "saved \(Output.visible(reply.person.name))")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a person, their goal and pending check-ins.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their name (any case) or id.", completion: Completions.person) var person: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, PeopleCommands.Remove(person: person))
            if options.json { return try Output.reply(reply) }
            Output.line("removed \(Output.visible(person)) and cancelled \(reply.canceledItems) check-ins")
        }
    }

    struct Goal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "goal",
            abstract: "Set how often to see someone and when: --every 14 --window 'Mon-Fri 18:00-21:00'.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their name (any case) or id.", completion: Completions.person) var person: String
        @Option(help: "Days between check-ins (1–3650).") var every: Int?
        @Option(help: "How much it matters, 1–5 (default 3).") var importance: Int?
        @Option(help: "The shortest check-in worth having: 30m, 1h, 1h30m (default 30m).") var duration: String?
        @Option(
            help: "When they can be seen: 'Mon-Fri 18:00-21:00', 'Sat 10:00-16:00' (repeatable; replaces the list).")
        var window: [String] = []
        @Option(help: "A date not to plan on, YYYY-MM-DD (repeatable; replaces the list).") var exclude: [String] = []
        @Flag(help: "Clear the excluded dates.") var clearExcluded = false
        @Option(help: "When you last saw them, YYYY-MM-DD.") var last: String?

        func run() async throws {
            var command = PeopleCommands.Goal(
                person: person, every: every, importance: importance, duration: duration,
                windows: window.isEmpty ? nil : window)
            if !exclude.isEmpty || clearExcluded { command.exclude = try exclude.map { try Dates.day($0, options) } }
            if let last { command.last = try Dates.day(last, options) }
            let reply = try await ServiceCall.send(options, .store, command)
            if options.json { return try Output.reply(reply) }
            guard let standing = reply.standing else { return Output.line("\(Output.visible(reply.name)): no goal") }
            let goal = standing.goal
            Output.line(
                "\(Output.visible(reply.name)): every \(goal.every) days · importance \(goal.importance) · "
                    + "\(Social.durationText(goal.duration)) · \(goal.windows) · due \(standing.due)")
        }
    }

    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log", abstract: "Log an interaction; it restarts the cadence.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Their name (any case) or id.", completion: Completions.person) var person: String
        @Option(help: "met, call, text or other.") var outcome: String
        @Option(help: "When: 'YYYY-MM-DD HH:MM', or a day alone (2026-11-07, yesterday) (default now).") var when:
            String?
        @Option(help: "A note.") var note: String?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                PeopleCommands.Log(
                    person: person, outcome: outcome, when: try when.map { .text(try Plan.resolveTime($0, options)) },
                    note: note))
            if options.json { return try Output.reply(reply) }
            Output.line(
                "logged \(outcome) with \(Output.visible(reply.name)); next due \(reply.standing?.due ?? "—")")
        }
    }
}
