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
    @Option(help: "From this day (2026-08-01, today, yesterday) or time, on the household's clock.") var since: String?
    @Option(help: "Up to this day (inclusive) or time.") var until: String?

    func run() async throws {
        var arguments: [String: JSONValue] = [:]
        if let month { arguments["month"] = .int(Int64(month.number)) }
        if let year { arguments["year"] = .int(Int64(year)) }
        if let device { arguments["device"] = .string(device) }
        if let since { arguments["since"] = .string(try Dates.instant(since, options, dayMeans: .start)) }
        if let until { arguments["until"] = .string(try Dates.instant(until, options, dayMeans: .end)) }
        let reply = try await ServiceCall.run(options, .store, "history", arguments)
        if options.json { return Output.json(reply) }
        let months = reply["months"]?.arrayValue ?? []
        let zone = try Dates.zone(options)
        if months.isEmpty { Output.line("no changes") }
        for group in months {
            Output.line("\(group["month_name"]?.stringValue ?? "?") \(group["year"]?.intValue ?? 0)")
            for change in group["changes"]?.arrayValue ?? [] {
                let fields = (change["changes"]?.objectValue ?? [:]).sorted { $0.key > $1.key }.map { name, value in
                    "\(name): \(Self.show(value["from"])) → \(Self.show(value["to"]))"
                }
                Output.line(
                    "  \(Dates.wall(change["time"]?.stringValue, zone))  \(change["device_name"]?.stringValue ?? "")  "
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
