import ArgumentParser
import HearthBus

/// `hearth changes`: replay the store's change feed from a position.
struct Changes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the store's changes after a sequence number (the feed `hearth monitor` shows live).")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Print changes after this sequence number.") var since = 0
    @Option(help: "At most this many changes.") var limit = 1_000

    func run() async throws {
        let reply = try await ServiceCall.run(
            options, .store, "changes", ["since": .int(Int64(since)), "limit": .int(Int64(limit))])
        if options.json { return Output.json(reply) }
        for change in reply["changes"]?.arrayValue ?? [] {
            let operation = change["operation"] ?? .null
            let fields = (operation["fields"]?.objectValue ?? [:]).sorted { $0.key < $1.key }
                .map { "\($0.key)=\(($0.value["value"] ?? .null).jsonText)" }
            Output.line(
                "\(change["seq"]?.intValue ?? 0)  \(operation["entity"]?["kind"]?.stringValue ?? "")/"
                    + "\(operation["entity"]?["id"]?.stringValue ?? "")  \(operation["id"]?.stringValue ?? "")  "
                    + fields.joined(separator: " "))
        }
        Output.line("last seq \(reply["last_seq"]?.intValue ?? 0)")
    }
}
