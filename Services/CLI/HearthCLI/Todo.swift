import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth collection`: the habits, plans and lists todos live in.
struct Collection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collection",
        abstract: "Collections of todos: habits, plans and lists.",
        subcommands: [Add.self, List.self, Edit.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Create a collection.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "Its name (unique, at most 100 characters).") var name: String
        @Option(help: "habit, plan or list.") var kind: String
        @Option(help: "An icon, such as an emoji.") var icon: String?
        @Flag(help: "Keep its todos out of the calendar.") var noCalendar = false

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                CollectionCommands.Add(name: name, kind: kind, icon: icon, showInCalendar: !noCalendar))
            if options.json { return try Output.reply(reply) }
            Output.line("added: " + Collection.describe(reply.collection))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every collection, in order.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, CollectionCommands.List())
            if options.json { return try Output.reply(reply) }
            let collections = reply.collections
            if collections.isEmpty { Output.line("no collections yet: hearth collection add NAME --kind habit") }
            for collection in collections { Output.line(Collection.describe(collection)) }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Rename a collection or change its icon or order.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The collection: its name or id.", completion: Completions.collection) var collection: String
        @Option(help: "A new name.") var name: String?
        @Option(help: "A new icon (empty clears it).") var icon: String?
        @Option(help: "Its place in the list (0 first).") var order: Int?
        @Option(help: "Show its todos in the calendar: true or false.") var calendar: Bool?

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                CollectionCommands.Edit(
                    collection: collection, name: name, icon: icon, showInCalendar: calendar, sortOrder: order))
            if options.json { return try Output.reply(reply) }
            Output.line((reply.unchanged == true ? "unchanged: " : "saved: ") + Collection.describe(reply.collection))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a collection and its todos (their history stays).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The collection: its name or id.", completion: Completions.collection) var collection: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, CollectionCommands.Remove(collection: collection))
            if options.json { return try Output.reply(reply) }
            Output.line("removed \(collection) and \(reply.removedTodos) todos")
        }
    }

    static func describe(_ collection: CollectionView?) -> String {
        guard let collection else { return "?" }
        let icon = collection.icon.map { $0 + " " } ?? ""
        let hidden = collection.showInCalendar ? "" : ", not in the calendar"
        return Output.visible(
            "\(icon)\(collection.name) (\(collection.kind), \(collection.done)/\(collection.todos) done\(hidden))")
    }
}

/// `hearth todo`: todos, habits and the steps of plans, with repeats and reminders.
struct Todo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "Todos with due dates, repeats, reminders and subtasks.",
        subcommands: [
            Add.self, List.self, Show.self, Edit.self, Remove.self, Done.self, Undone.self, Skip.self, Pause.self,
            Occurrences.self, Subtask.self, History.self, Stats.self, Export.self, Import.self,
        ]
    )

    /// The fields `todo add` and `todo edit` share.
    struct Fields: ParsableArguments {
        @Option(
            help: "Due date: YYYY-MM-DD, today, tomorrow or yesterday (a repeating todo's first day; empty clears).")
        var due: String?
        @Option(help: "Due time HH:MM or HH:MM:SS (empty clears).") var time: String?
        @Option(help: "high, medium, low or none.") var priority: String?
        @Option(name: .customLong("repeat"), help: "none, daily, weekly, monthly or yearly.") var repeating: String?
        @Option(help: "The last day a repeating todo falls on: a date or today, tomorrow, yesterday (empty clears).")
        var until: String?
        @Option(help: "A monthly or yearly date its month lacks: skip (RFC 5545) or clamp to the last day.")
        var monthEnd: String?
        @Option(help: "A description (empty clears).") var note: String?
        @Option(
            name: .customLong("for"),
            help:
                "The member it is for: its reminder pops only on devices whose profile is theirs (empty: the household's)."
        )
        var assignee: String?

        /// `todo add` with these fields, days resolved (`Dates.day`: `--due today`).
        func add(title: String, collection: String, _ options: GlobalOptions) throws -> TodoCommands.Add {
            TodoCommands.Add(
                title: title, collection: collection, description: note, due: try day(due, options), time: time,
                priority: priority, repeating: repeating, until: try day(until, options), monthEnd: monthEnd,
                assignee: assignee)
        }

        /// `todo edit` with these fields, days resolved.
        func edit(id: String, _ options: GlobalOptions) throws -> TodoCommands.Edit {
            TodoCommands.Edit(
                id: id, description: note, due: try day(due, options), time: time, priority: priority,
                repeating: repeating, until: try day(until, options), monthEnd: monthEnd, assignee: assignee)
        }

        /// A day as the store takes it (an empty one clears the field).
        private func day(_ given: String?, _ options: GlobalOptions) throws -> String? {
            try given.map { $0.isEmpty ? $0 : try Dates.day($0, options) }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a todo to a collection.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The title (at most 200 characters).") var title: String
        @Option(help: "The collection: its name or id.") var collection: String
        @OptionGroup var fields: Fields
        @Flag(help: "Pop up a reminder at the due time (needs --due and --time).") var remind = false
        @Flag(help: "Keep it out of the calendar.") var noCalendar = false

        func run() async throws {
            var command = try fields.add(title: title, collection: collection, options)
            command.remind = remind
            if noCalendar { command.showInCalendar = false }
            let reply = try await ServiceCall.send(options, .store, command)
            if options.json { return try Output.reply(reply) }
            Output.line("added: " + Todo.describe(reply.todo))
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a todo.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The todo's id (or its first characters).", completion: Completions.todo) var id: String
        @Option(help: "A new title.") var title: String?
        @Option(help: "Move it to another collection.") var collection: String?
        @OptionGroup var fields: Fields
        @Option(help: "Reminder on or off: true or false.") var remind: Bool?

        func run() async throws {
            var command = try fields.edit(id: id, options)
            (command.title, command.collection, command.remind) = (title, collection, remind)
            let reply = try await ServiceCall.send(options, .store, command)
            if options.json { return try Output.reply(reply) }
            Output.line((reply.unchanged == true ? "unchanged: " : "saved: ") + Todo.describe(reply.todo))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Todos, by collection; with --date, that day's (repeating ones included).")

        @OptionGroup var options: GlobalOptions
        @Option(help: "Only this collection.") var collection: String?
        @Option(help: "The todos of one day, YYYY-MM-DD or 'today'.") var date: String?
        @Option(name: .customLong("for"), help: "Only the todos for this member.") var assignee: String?

        func run() async throws {
            if let date {
                let reply = try await ServiceCall.send(
                    options, .store,
                    TodoCommands.Day(date: try Dates.day(date, options), collection: collection, assignee: assignee))
                if options.json { return try Output.reply(reply) }
                if reply.todos.isEmpty { Output.line("no todos") }
                for todo in reply.todos { Output.line("\(todo.done ? "[x]" : "[ ]") \(Todo.describe(todo))") }
                return
            }
            let reply = try await ServiceCall.send(
                options, .store,
                TodoCommands.List(collection: collection, today: try Dates.day("today", options), assignee: assignee))
            if options.json { return try Output.reply(reply) }
            if reply.todos.isEmpty { Output.line("no todos") }
            for todo in reply.todos { Output.line("\(todo.completed ? "[x]" : "[ ]") \(Todo.describe(todo))") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "One todo with its subtasks.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The todo's id (or its first characters).", completion: Completions.todo) var id: String

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store, TodoCommands.Show(id: id, today: try Dates.day("today", options)))
            if options.json { return try Output.reply(reply) }
            Output.line(Todo.describe(reply))
            if let note = reply.description { Output.line("  " + Output.visible(note)) }
            Todo.printSubtasks(of: reply)
            let completions = reply.completions ?? []
            if !completions.isEmpty {
                Output.line("  done on \(completions.count) day\(completions.count == 1 ? "" : "s")")
            }
            if let skips = reply.skips {
                Output.line(Todo.skippedLine(skips))
            }
            if let habit = reply.habit { Output.line("  " + habit.summary) }
            if reply.conflicted {
                Output.line(
                    "  ! edited on two devices at once: hearth conflicts shows both values, "
                        + "hearth conflicts resolve \(reply.id.prefix(8))/FIELD --keep VALUE settles it")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a todo (its history stays).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The todo's id (or its first characters).", completion: Completions.todo) var id: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, TodoCommands.Remove(id: id))
            if options.json { return try Output.reply(reply) }
            Output.line("removed \(id)")
        }
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "done",
            abstract: "Complete a todo; for a repeating one, one day's occurrence (default today).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var day: Day

        func run() async throws { try await Todo.complete(options, day, done: true) }
    }

    struct Undone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undone", abstract: "Reopen a todo, or one day's occurrence.")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var day: Day

        func run() async throws { try await Todo.complete(options, day, done: false) }
    }

    struct Occurrences: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "occurrences", abstract: "The days a todo falls on, and which are done.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The todo's id (or its first characters).", completion: Completions.todo) var id: String
        @Option(help: "First day, YYYY-MM-DD.") var from: String
        @Option(help: "Last day, YYYY-MM-DD.") var to: String

        func run() async throws {
            let reply = try await ServiceCall.send(
                options, .store,
                TodoCommands.Occurrences(id: id, from: try Dates.day(from, options), to: try Dates.day(to, options)))
            if options.json { return try Output.reply(reply) }
            // A skipped (or paused) day is neither done nor missed: it was shown as [ ] (issue 63).
            for occurrence in reply.occurrences {
                let mark = occurrence.done ? "[x]" : occurrence.skipped == true ? "[-]" : "[ ]"
                Output.line(
                    "\(mark) \(occurrence.date)" + (occurrence.skipped == true && !occurrence.done ? " skipped" : ""))
            }
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Every change to a todo, its subtasks and completions, oldest first (removed todos too).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The todo's id (a removed todo's in full).") var id: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, TodoCommands.History(id: id))
            if options.json { return try Output.reply(reply) }
            let zone = try Dates.zone(options)
            for change in reply.changes {
                let fields = try change.changes.sorted { $0.key < $1.key }.map { name, value in
                    "\(name): \(try JSONValue(encoding: value.from).jsonText) → \(try JSONValue(encoding: value.to).jsonText)"
                }
                Output.line(
                    Output.visible(
                        "\(Dates.wall(change.time, zone))  \(change.deviceName)  \(change.kind ?? "")  "
                            + fields.joined(separator: ", ")))
            }
        }
    }

    /// The todo and day `done` and `undone` act on.
    struct Day: ParsableArguments {
        @Argument(help: "The todo's id (or its first characters).", completion: Completions.todo) var id: String
        @Option(help: "The day, YYYY-MM-DD (repeating todos; default today).") var date: String?
    }

    static func complete(_ options: GlobalOptions, _ day: Day, done: Bool) async throws {
        // A repeating todo needs the day; today on the household's clock unless given.
        let date = try Dates.day(day.date ?? "today", options)
        let reply =
            done
            ? try await ServiceCall.send(options, .store, TodoCommands.Done(id: day.id, date: date))
            : try await ServiceCall.send(options, .store, TodoCommands.Undone(id: day.id, date: date))
        if options.json { return try Output.reply(reply) }
        let repeating = reply.todo.map { $0.repeat != "none" } ?? false
        let day = repeating ? " for \(date)" : ""
        Output.line(
            (reply.unchanged == true ? "already " : "") + (done ? "done" : "reopened") + day + ": "
                + describe(reply.todo))
    }

    /// Prints a todo's subtasks, numbered in order, with their short ids.
    static func printSubtasks(of todo: TodoView?) {
        for (index, subtask) in (todo?.subtasks ?? []).enumerated() {
            let mark = subtask.completed ? "[x]" : "[ ]"
            Output.line("  \(index + 1). \(mark) \(Output.visible(subtask.title))  (\(subtask.id.prefix(8)))")
        }
    }

    /// `  skipped on 6 days: 2026-03-03, …, 2026-03-08 and 1 more`: the latest five, and how many
    /// are left out (the count and the dates shown disagreed: issue 63).
    static func skippedLine(_ skips: [String], shown: Int = 5) -> String {
        let more = skips.count - min(skips.count, shown)
        return "  skipped on \(skips.count) day\(skips.count == 1 ? "" : "s"): "
            + skips.suffix(shown).joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
    }

    /// `Paint the fence · 2026-11-24 18:00 · high · reminder · in Home · for Ann  (1a2b3c4d)`.
    static func describe(_ todo: TodoView?) -> String {
        guard let todo else { return "?" }
        var parts = [todo.title]
        if let date = todo.due { parts.append(date + (todo.time.map { " " + $0 } ?? "")) }
        if todo.repeat != "none" { parts.append(todo.repeat + (todo.until.map { " until " + $0 } ?? "")) }
        if todo.priority != "none" { parts.append(todo.priority) }
        if todo.remind { parts.append("reminder") }
        if let collection = todo.collectionName { parts.append("in " + collection) }
        if let member = todo.assignee?.name { parts.append("for " + member) }
        if let streak = todo.habit?.streakText { parts.append(streak) }
        return Output.visible(parts.joined(separator: " · ")) + "  (\(todo.id.prefix(8)))"
    }

    /// One todo on one day: `Water · 2026-11-24 · high · for Ann  (1a2b3c4d)`.
    static func describe(_ item: AgendaItem) -> String {
        var parts = [item.title, item.date + (item.time.map { " " + $0 } ?? "")]
        if item.priority != "none" { parts.append(item.priority) }
        if let member = item.assignee?.name { parts.append("for " + member) }
        return Output.visible(parts.joined(separator: " · ")) + "  (\(item.id.prefix(8)))"
    }
}
