import ArgumentParser
import HearthBus

/// `hearth history`: every change to the year planner, grouped by month.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every change to the event cards: who, when, and previous → new title, location and day."
    )

    @OptionGroup var options: GlobalOptions
    @Option(help: "Only this month (1–12 or a name).") var month: Event.Month?
    @Option(help: "Only this year.") var year: Int?
    @Option(help: "Only changes from this device (name or id prefix).") var device: String?
    @Option(help: "From this date (2026-08-01) or time.") var since: String?
    @Option(help: "Up to this date (inclusive) or time.") var until: String?

    func run() async throws {
        var arguments: [String: JSONValue] = [:]
        if let month { arguments["month"] = .int(Int64(month.number)) }
        if let year { arguments["year"] = .int(Int64(year)) }
        if let device { arguments["device"] = .string(device) }
        if let since { arguments["since"] = .string(since) }
        if let until { arguments["until"] = .string(until) }
        let reply = try await ServiceCall.run(options, .store, "history", arguments)
        if options.json { return Output.json(reply) }
        let months = reply["months"]?.arrayValue ?? []
        if months.isEmpty { Output.line("no changes") }
        for group in months {
            Output.line("\(group["month_name"]?.stringValue ?? "?") \(group["year"]?.intValue ?? 0)")
            for change in group["changes"]?.arrayValue ?? [] {
                let fields = (change["changes"]?.objectValue ?? [:]).sorted { $0.key > $1.key }.map { name, value in
                    "\(name): \(Self.show(value["from"])) → \(Self.show(value["to"]))"
                }
                Output.line(
                    "  \(change["time"]?.stringValue ?? "")  \(change["device_name"]?.stringValue ?? "")  "
                        + fields.joined(separator: ", "))
            }
        }
    }

    static func show(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "—"
        case .string(let text)?: "'\(text)'"
        case let other?: other.jsonText
        }
    }
}

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
            let reply = try await ServiceCall.run(options, .store, "conflicts")
            if options.json { return Output.json(reply) }
            let conflicts = reply["conflicts"]?.arrayValue ?? []
            if conflicts.isEmpty { Output.line("no open conflicts") }
            for conflict in conflicts {
                Output.line("\(conflict["id"]?.stringValue ?? "")  shown: \(History.show(conflict["shown"]))")
                for value in conflict["values"]?.arrayValue ?? [] {
                    Output.line(
                        "  \(History.show(value["value"]))  by \(value["device_name"]?.stringValue ?? "") at "
                            + "\(value["time"]?.stringValue ?? "")  (\(value["op"]?.stringValue ?? ""))")
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
            Output.line("resolved \(id): " + Event.describe(reply["card"] ?? .null))
        }
    }
}

/// `hearth device`: the household's devices as this one knows them.
struct Device: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List and name the household's devices.", subcommands: [ListDevices.self, Rename.self],
        defaultSubcommand: ListDevices.self)

    struct ListDevices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List known devices.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "device.list")
            if options.json { return Output.json(reply) }
            for device in reply["devices"]?.arrayValue ?? [] {
                let local = device["local"] == true ? "  (this device)" : ""
                Output.line("\(device["id"]?.stringValue ?? "")  \(device["name"]?.stringValue ?? "")\(local)")
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a device a name, such as Mum.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device id (or a unique prefix).") var id: String
        @Argument(help: "Its new name.") var name: String

        func run() async throws {
            let reply = try await ServiceCall.run(
                options, .store, "device.rename", ["id": .string(id), "name": .string(name)])
            if options.json { return Output.json(reply) }
            Output.line("\(reply["id"]?.stringValue ?? id) is now \(name)")
        }
    }
}
