import ArgumentParser
import HearthBus
import HearthCore

/// `hearth history`: every change to the year planner, grouped by month.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Every change to the event cards: who, when, and previous → new title, location and day."
    )

    @OptionGroup var options: GlobalOptions
    @Option(help: "Only this month (1–12 or a name).") var month: Event.Month?
    @Option(help: "Only this year.") var year: Int?
    @Option(help: "Only changes from this device (name or id prefix).") var device: String?
    @Option(help: "From this day (2026-08-01, today, yesterday) or time, on the household's clock.") var since: String?
    @Option(help: "Up to this day (inclusive) or time.") var until: String?

    func run() async throws {
        let command = HistoryCommands.History(
            year: year, month: month?.number, device: device,
            since: try since.map { try Dates.instant($0, options, dayMeans: .start) },
            until: try until.map { try Dates.instant($0, options, dayMeans: .end) })
        let reply = try await ServiceCall.send(options, .store, command)
        if options.json { return try Output.reply(reply) }
        let zone = try Dates.zone(options)
        if reply.months.isEmpty { Output.line("no changes") }
        for group in reply.months {
            Output.line("\(group.monthName) \(group.year)")
            for change in group.changes {
                let fields = try change.changes.sorted { $0.key > $1.key }.map { name, value in
                    "\(name): \(try Self.show(value.from)) → \(try Self.show(value.to))"
                }
                Output.line(
                    "  \(Dates.wall(change.time, zone))  \(change.deviceName)  " + fields.joined(separator: ", "))
            }
        }
    }

    /// `—` for none, text in quotes, anything else as JSON.
    static func show(_ value: FieldJSON) throws -> String {
        switch value {
        case .null: "—"
        case .text(let text): "'\(text)'"
        default: try JSONValue(encoding: value).jsonText
        }
    }
}
