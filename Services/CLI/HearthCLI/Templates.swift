import ArgumentParser
import HearthBus
import HearthCore

/// `hearth templates`: the gallery of ready collections.
struct Templates: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "templates",
        abstract: "The 20 ready collections: 10 habits, 5 plans, 5 lists.",
        subcommands: [List.self, Show.self, Apply.self], defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every template, by kind.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            if options.json {
                return Output.json(["templates": .array(TodoTemplate.gallery.map(Templates.json))])
            }
            for kind in Todos.Kind.allCases {
                Output.line("\(kind.rawValue)s:")
                for template in TodoTemplate.gallery where template.kind == kind {
                    Output.line(
                        "  \(template.icon) \(template.name) — \(template.summary) (\(template.items.count) todos)")
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "A template's todos.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The template, such as \"water intake\" or water-intake.") var name: String

        func run() async throws {
            let template = try Templates.find(name)
            if options.json { return Output.json(Templates.json(template)) }
            Output.line("\(template.icon) \(template.name) (\(template.kind.rawValue)): \(template.summary)")
            for item in template.items {
                var when: [String] = []
                if let day = item.day { when.append("day \(day + 1)") }
                if let time = item.time { when.append(time) }
                if item.repeating != .none { when.append(item.repeating.rawValue) }
                if item.priority != .none { when.append(item.priority.rawValue) }
                if item.remind { when.append("reminder") }
                Output.line("  \(item.title)" + (when.isEmpty ? "" : "  · " + when.joined(separator: " · ")))
            }
        }
    }

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply",
            abstract: "Create a collection with all the template's todos (all or nothing); edit them freely after.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The template.") var name: String
        @Option(help: "The first day (habits repeat from it, plan steps follow it; default today).") var start = "today"
        @Option(name: .customLong("name"), help: "The new collection's name (default the template's).")
        var collectionName: String?

        func run() async throws {
            let template = try Templates.find(name)
            let reply = try await ServiceCall.send(
                options, .store,
                TodoCommands.ApplyTemplate(
                    name: template.name, start: try Dates.day(start, options), collectionName: collectionName))
            if options.json { return try Output.reply(reply) }
            Output.line(
                "applied \(template.name): " + Collection.describe(reply.collection) + " with \(reply.todos) todos")
        }
    }

    static func find(_ name: String) throws -> TodoTemplate {
        guard let template = TodoTemplate.named(name) else {
            throw ValidationError(
                "'name': no template '\(name)' (known: \(TodoTemplate.gallery.map(\.name).joined(separator: ", ")))")
        }
        return template
    }

    static func json(_ template: TodoTemplate) -> JSONValue {
        [
            "name": .string(template.name), "kind": .string(template.kind.rawValue), "icon": .string(template.icon),
            "summary": .string(template.summary),
            "todos": .array(
                template.items.map { item in
                    [
                        "title": .string(item.title), "time": item.time.map(JSONValue.string) ?? .null,
                        "repeat": .string(item.repeating.rawValue), "day": item.day.map { .int(Int64($0)) } ?? .null,
                        "priority": .string(item.priority.rawValue), "remind": .bool(item.remind),
                    ]
                }),
        ]
    }
}
