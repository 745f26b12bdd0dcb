import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth event`: the family year planner's twelve cards.
struct Event: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The family year planner: one event card per month.",
        subcommands: [Set.self, Clear.self, List.self, Show.self]
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
            var arguments: [String: JSONValue] = ["year": .int(Int64(year)), "month": .int(Int64(month.number))]
            if let title { arguments["title"] = .string(title) }
            if let location { arguments["location"] = .string(location) }
            if let day { arguments["day"] = .int(Int64(day)) }
            let reply = try await ServiceCall.run(options, .store, "event.set", arguments)
            if options.json { return Output.json(reply) }
            Output.line("saved: " + Event.describe(reply["card"] ?? .null))
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Clear the card for a month (its history stays).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The month: 1–12 or a name.") var month: Month
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear

        func run() async throws {
            let reply = try await ServiceCall.run(
                options, .store, "event.clear", ["year": .int(Int64(year)), "month": .int(Int64(month.number))])
            if options.json { return Output.json(reply) }
            Output.line("cleared \(YearPlanner.monthName(month.number)) \(year)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The twelve cards of a year, in order.")

        @OptionGroup var options: GlobalOptions
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "event.list", ["year": .int(Int64(year))])
            if options.json { return Output.json(reply) }
            Output.line("\(year)")
            for card in reply["cards"]?.arrayValue ?? [] { Output.line("  " + Event.describe(card)) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One card with every field, and any conflict.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The month: 1–12 or a name.") var month: Month
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear

        func run() async throws {
            let reply = try await ServiceCall.run(
                options, .store, "event.show", ["year": .int(Int64(year)), "month": .int(Int64(month.number))])
            if options.json { return Output.json(reply) }
            Output.line(Event.describe(reply))
            if let modified = reply["modified_at"]?.stringValue, let by = reply["modified_by"]?.stringValue {
                Output.line("  last changed \(modified) by \(by.prefix(8))")
            }
            for (name, field) in (reply["fields"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key })
            where field["conflict"] == true {
                let values = (field["values"]?.arrayValue ?? []).map { ($0["value"] ?? .null).jsonText }
                Output.line("  conflict in \(name): \(values.joined(separator: " vs ")) (see `hearth conflicts`)")
            }
        }
    }

    /// `Aug  14  Beach day @ Brighton  #B07AA1`, or `Aug  —` for an empty card.
    static func describe(_ card: JSONValue) -> String {
        let month = String((card["month_name"]?.stringValue ?? "?").prefix(3))
        guard card["empty"] != true, let title = card["title"]?.stringValue else { return "\(month)  —" }
        let day = card["day"]?.intValue.map { String($0) } ?? "  "
        let location = card["location"]?.stringValue.map { " @ \($0)" } ?? ""
        let conflict = card["conflicted"] == true ? "  (conflict)" : ""
        let colour = card["colour"]?.stringValue ?? ""
        return "\(month)  \(day.count == 1 ? " " + day : day)  \(title)\(location)  \(colour)\(conflict)"
    }
}
