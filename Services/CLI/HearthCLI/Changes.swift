import ArgumentParser
import HearthBus
import HearthCore
import HearthHost
import UnixSignals

/// `hearth changes`: replay the store's change feed from a position, and with `--follow` keep
/// printing changes as they commit.
struct Changes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print the store's changes after a sequence number (the feed `hearth monitor` shows live).",
        discussion: """
            Without --follow it prints one page (--limit) and, when more changes follow, the \
            command that prints the next page. With --follow it prints every change after \
            --since, then each new one as it commits, none missed and none twice, until Ctrl-C.
            """)

    @OptionGroup var options: GlobalOptions
    @Option(help: "Print changes after this sequence number.") var since = 0
    @Option(help: "At most this many changes (without --follow).") var limit = 1_000
    @Flag(help: "Keep printing changes as they commit (Ctrl-C to stop).") var follow = false

    func run() async throws {
        if follow { return try await followChanges() }
        let command = HistoryCommands.Changes(since: Int64(since), limit: limit)
        // As it came, for --json: each change as the bus carries it.
        let reply = try await ServiceCall.reply(options, .store, command)
        if options.json { return Output.json(reply) }
        let page = try reply.decode(ChangePage.self)
        for change in page.changes { Output.line(try Self.text(change)) }
        let last = page.lastSeq
        let printed = page.changes.last?.seq ?? Int64(since)
        if printed < last {
            Output.line("… \(last - printed) more: hearth changes --since \(printed) (or --follow)")
        } else {
            Output.line("last seq \(last)")
        }
    }

    /// Every change after `since`, then live ones: the store's `changes` pages first, then its
    /// events on the bus, with any hole between refilled from the store (`ChangeFollower`).
    private func followChanges() async throws {
        let configuration = try options.loadConfiguration()
        let context = try ZMQContext(configuration: configuration)
        let bus = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.bus), timeout: .milliseconds(250), attempts: 1)
        let store = CommandClient(
            context: context, endpoint: configuration.commandEndpoint(.store), timeout: options.timeoutDuration)
        let follower = try await ChangeFollower(
            context: context, busEndpoint: configuration.busSubscribeEndpoint, bus: bus, source: "store",
            prefix: "store.", commands: store, since: UInt64(since))
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let failure: (any Error)? = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do {
                    for try await change in follower {
                        // Replayed pages and live events carry the operation alike; the seq is the follower's.
                        let line: JSONValue = [
                            "seq": .int(Int64(change.seq)), "operation": change.data["operation"] ?? .null,
                        ]
                        Output.line(options.json ? line.jsonText : try Self.text(try line.decode(ChangeView.self)))
                    }
                    return nil
                } catch {
                    return error
                }
            }
            group.addTask {
                for await _ in signals { break }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            await follower.close()
            return first
        }
        await bus.close()
        await store.close()
        await context.terminate()
        if let failure { throw ServiceCall.failure(failure, .store, options) }
    }

    /// One change as a line: seq, entity, operation id and the fields it set.
    static func text(_ change: ChangeView) throws -> String {
        let operation = change.operation
        let fields = try operation.fields.sorted { $0.key < $1.key }
            .map { "\($0.key)=\(try JSONValue(encoding: $0.value.value).jsonText)" }
        return "\(change.seq)  \(operation.entity.kind)/\(operation.entity.id)  \(operation.id)  "
            + fields.joined(separator: " ")
    }
}
