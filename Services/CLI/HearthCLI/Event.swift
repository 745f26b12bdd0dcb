import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth event`: the family year planner's twelve cards.
struct Event: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event",
        abstract: "The family year planner: one event card per month.",
        subcommands: [
            Set.self, Clear.self, List.self, Show.self, Suggest.self, Suggestions.self, Accept.self, Decline.self,
        ]
    )

    /// A month given as 1–12 or a name such as `aug` or `August`.
    struct Month: ExpressibleByArgument {
        let number: Int

        init?(argument: String) {
            guard let number = YearPlanner.month(from: argument) else { return nil }
            self.number = number
        }

        static var defaultCompletionKind: CompletionKind { .list(["1", "…", "12", "jan", "…", "dec"]) }
    }

    static var thisYear: Int { Calendar(identifier: .gregorian).component(.year, from: Date()) }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Create or edit the card for a month.",
            discussion: "A new card needs a title. An empty --location clears the location."
        )

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The month: 1–12 or a name.") var month: Month
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear
        @Option(help: "The event's title (at most 200 characters).") var title: String?
        @Option(help: "Where it happens (at most 200 characters).") var location: String?
        @Option(help: "The day of the month.") var day: Int?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                EventCommands.Set(year: year, month: month.number, title: title, location: location, day: day))
            if options.json { return try Output.reply(reply) }
            Output.line((reply.unchanged == true ? "unchanged: " : "saved: ") + Event.describe(reply.card))
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: "Clear the card for a month (its history stays).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The month: 1–12 or a name.") var month: Month
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, EventCommands.Clear(year: year, month: month.number))
            if options.json { return try Output.reply(reply) }
            Output.line("cleared \(YearPlanner.monthName(month.number)) \(year)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "The twelve cards of a year, in order.")

        @OptionGroup var options: GlobalOptions
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, EventCommands.List(year: year))
            if options.json { return try Output.reply(reply) }
            Output.line("\(year)")
            for card in reply.cards { Output.line("  " + Event.describe(card)) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One card with every field, and any conflict.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The month: 1–12 or a name.") var month: Month
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, EventCommands.Show(year: year, month: month.number))
            if options.json { return try Output.reply(reply) }
            Output.line(Event.describe(reply))
            if let modified = reply.modifiedAt, let by = reply.modifiedBy {
                let name = reply.modifiedByName ?? String(by.prefix(8))
                Output.line(
                    "  last changed \(Dates.wall(modified, try Dates.zone(options), seconds: false)) by \(name)")
            }
            for (name, field) in (reply.fields ?? [:]).sorted(by: { $0.key < $1.key }) where field.conflict {
                let values = try field.values.map { try JSONValue(encoding: $0.value).jsonText }
                Output.line("  conflict in \(name): \(values.joined(separator: " vs ")) (see `hearth conflicts`)")
            }
        }
    }

    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggest",
            abstract: "Suggest a change to a month's card, for the family to accept or decline.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The month: 1–12 or a name.") var month: Month
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear
        @Option(help: "The suggested title.") var title: String?
        @Option(help: "The suggested location.") var location: String?
        @Option(help: "The suggested day of the month.") var day: Int?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                EventCommands.Suggest(year: year, month: month.number, title: title, location: location, day: day))
            if options.json { return try Output.reply(reply) }
            Output.line("suggested: " + Event.describeSuggestion(reply.suggestion))
        }
    }

    struct Suggestions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggestions", abstract: "List suggestions (open ones by default).")

        @OptionGroup var options: GlobalOptions
        @Option(help: "open, accepted, declined or all.") var status = "open"

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, EventCommands.Suggestions(status: status))
            if options.json { return try Output.reply(reply) }
            let suggestions = reply.suggestions
            if suggestions.isEmpty { Output.line("no \(status == "all" ? "" : status + " ")suggestions") }
            for suggestion in suggestions { Output.line(Event.describeSuggestion(suggestion)) }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept", abstract: "Accept a suggestion: its values go on the card.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The suggestion id (or a unique prefix).") var id: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, EventCommands.Accept(id: id))
            if options.json { return try Output.reply(reply) }
            if reply.alreadyOnCard == true {
                return Output.line("already on the card, so closed: " + Event.describe(reply.card))
            }
            Output.line("accepted: " + Event.describe(reply.card))
            let closed = reply.closed ?? []
            if !closed.isEmpty {
                Output.line(
                    "also closed \(closed.count) equal suggestion\(closed.count == 1 ? "" : "s"): "
                        + closed.map { String($0.prefix(8)) }.joined(separator: ", "))
            }
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decline", abstract: "Decline a suggestion (it stays in the record).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The suggestion id (or a unique prefix).") var id: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, EventCommands.Decline(id: id))
            if options.json { return try Output.reply(reply) }
            Output.line("declined: " + Event.describeSuggestion(reply.suggestion))
        }
    }

    /// `3f2a9c1e  Aug 2026  title 'Beach day', day 14  by Mum  (open)`.
    static func describeSuggestion(_ suggestion: SuggestionView?) -> String {
        guard let suggestion else { return "?" }
        var parts: [String] = []
        if let title = suggestion.title { parts.append("title '\(title)'") }
        if let location = suggestion.location { parts.append("location '\(location)'") }
        if let day = suggestion.day { parts.append("day \(day)") }
        return "\(suggestion.id.prefix(8))  \(suggestion.monthName.prefix(3)) \(suggestion.year)  "
            + "\(parts.joined(separator: ", "))  by \(suggestion.suggestedByName)  (\(suggestion.status))"
    }

    /// `Aug  14  Beach day @ Brighton  #B07AA1`, or `Aug  —` for an empty card.
    static func describe(_ card: CardView?) -> String {
        guard let card else { return "?  —" }
        let month = String(card.monthName.prefix(3))
        guard !card.empty, let title = card.title else { return "\(month)  —" }
        let day = card.day.map { String($0) } ?? "  "
        let location = card.location.map { " @ \($0)" } ?? ""
        let conflict = card.conflicted ? "  (conflict)" : ""
        return "\(month)  \(day.count == 1 ? " " + day : day)  \(title)\(location)  \(card.colour)\(conflict)"
    }
}
