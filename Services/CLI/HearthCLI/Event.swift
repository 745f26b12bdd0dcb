import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth event`: the family year planner's twelve cards.
struct Event: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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
            Output.line(
                (reply["unchanged"] == true ? "unchanged: " : "saved: ") + Event.describe(reply["card"] ?? .null))
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
                let name = reply["modified_by_name"]?.stringValue ?? String(by.prefix(8))
                Output.line(
                    "  last changed \(Dates.wall(modified, try Dates.zone(options), seconds: false)) by \(name)")
            }
            for (name, field) in (reply["fields"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key })
            where field["conflict"] == true {
                let values = (field["values"]?.arrayValue ?? []).map { ($0["value"] ?? .null).jsonText }
                Output.line("  conflict in \(name): \(values.joined(separator: " vs ")) (see `hearth conflicts`)")
            }
        }
    }

    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Suggest a change to a month's card, for the family to accept or decline.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The month: 1–12 or a name.") var month: Month
        @Option(help: "The year (default: this year).") var year: Int = Event.thisYear
        @Option(help: "The suggested title.") var title: String?
        @Option(help: "The suggested location.") var location: String?
        @Option(help: "The suggested day of the month.") var day: Int?

        func run() async throws {
            var arguments: [String: JSONValue] = ["year": .int(Int64(year)), "month": .int(Int64(month.number))]
            if let title { arguments["title"] = .string(title) }
            if let location { arguments["location"] = .string(location) }
            if let day { arguments["day"] = .int(Int64(day)) }
            let reply = try await ServiceCall.run(options, .store, "event.suggest", arguments)
            if options.json { return Output.json(reply) }
            Output.line("suggested: " + Event.describeSuggestion(reply["suggestion"] ?? .null))
        }
    }

    struct Suggestions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List suggestions (open ones by default).")

        @OptionGroup var options: GlobalOptions
        @Option(help: "open, accepted, declined or all.") var status = "open"

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "event.suggestions", ["status": .string(status)])
            if options.json { return Output.json(reply) }
            let suggestions = reply["suggestions"]?.arrayValue ?? []
            if suggestions.isEmpty { Output.line("no \(status == "all" ? "" : status + " ")suggestions") }
            for suggestion in suggestions { Output.line(Event.describeSuggestion(suggestion)) }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept a suggestion: its values go on the card.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The suggestion id (or a unique prefix).") var id: String

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "event.accept", ["id": .string(id)])
            if options.json { return Output.json(reply) }
            if reply["already_on_card"] == true {
                return Output.line("already on the card, so closed: " + Event.describe(reply["card"] ?? .null))
            }
            Output.line("accepted: " + Event.describe(reply["card"] ?? .null))
            let closed = reply["closed"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if !closed.isEmpty {
                Output.line(
                    "also closed \(closed.count) equal suggestion\(closed.count == 1 ? "" : "s"): "
                        + closed.map { String($0.prefix(8)) }.joined(separator: ", "))
            }
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decline a suggestion (it stays in the record).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The suggestion id (or a unique prefix).") var id: String

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "event.decline", ["id": .string(id)])
            if options.json { return Output.json(reply) }
            Output.line("declined: " + Event.describeSuggestion(reply["suggestion"] ?? .null))
        }
    }

    /// `3f2a9c1e  Aug 2026  title 'Beach day', day 14  by Mum  (open)`.
    static func describeSuggestion(_ suggestion: JSONValue) -> String {
        var parts: [String] = []
        if let title = suggestion["title"]?.stringValue { parts.append("title '\(title)'") }
        if let location = suggestion["location"]?.stringValue { parts.append("location '\(location)'") }
        if let day = suggestion["day"]?.intValue { parts.append("day \(day)") }
        let id = String((suggestion["id"]?.stringValue ?? "").prefix(8))
        let month = String((suggestion["month_name"]?.stringValue ?? "?").prefix(3))
        return "\(id)  \(month) \(suggestion["year"]?.intValue ?? 0)  \(parts.joined(separator: ", "))  "
            + "by \(suggestion["suggested_by_name"]?.stringValue ?? "?")  (\(suggestion["status"]?.stringValue ?? "?"))"
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
