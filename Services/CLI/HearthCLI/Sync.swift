import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthHost
import UnixSignals

/// `hearth sync`: syncing with paired devices now, the sync log, and diagnostics.
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync with paired devices, and see what syncing did.",
        subcommands: [Now.self, Log.self, Diag.self])

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "now",
            abstract: "Sync now with a paired device (default: every paired device heard) and wait for the result.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name.") var device: String?

        func run() async throws {
            let reply = try await ServiceCall.sendShowingProgress(options, .sync, SyncCommands.Now(device: device))
            if options.json { return try Output.reply(reply) }
            if reply.syncs.isEmpty { Output.line("no paired device is heard on this network now") }
            let zone = try Dates.zone(options)
            for entry in reply.syncs { Output.line(Log.text(entry, zone)) }
            if reply.syncs.contains(where: { $0.outcome != "completed" }) { throw ExitCode(1) }
        }
    }

    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "log", abstract: "The sync log, newest first.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Only this device (id, id prefix or name).") var device: String?
        @Option(help: "Only since this day (2026-11-27, today) or time ('2026-11-27 09:00', or ISO 8601).") var since:
            String?
        @Option(help: "At most this many lines.") var limit = 50

        func run() async throws {
            let command = SyncCommands.Log(
                device: device, since: try since.map { try Dates.instant($0, options, dayMeans: .start) }, limit: limit)
            let reply = try await ServiceCall.send(options, .sync, command)
            if options.json { return try Output.reply(reply) }
            if reply.entries.isEmpty { Output.line("nothing synced yet") }
            let zone = try Dates.zone(options)
            for entry in reply.entries { Output.line(Self.text(entry, zone)) }
        }

        /// One sync as a line, its time on the household's wall clock.
        static func text(_ entry: SyncEntryView, _ zone: TimeZone) -> String {
            let head = "\(Dates.wall(entry.at, zone))  \(entry.peer.name)  \(entry.outcome)"
            guard entry.outcome == "completed" else { return head + "  " + entry.detail }
            var text =
                head + "  \(entry.received) received, \(entry.sent) sent, \(entry.conflicts) conflicts, "
                + "\(entry.bytes) bytes, \(entry.durationMs) ms"
            if !entry.resolution.isEmpty { text += "; \(entry.resolution)" }
            if !entry.detail.isEmpty { text += "; \(entry.detail)" }
            return text
        }
    }

    struct Diag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diag",
            abstract: "Who is heard, connection attempts and refusals, transfers in progress.")
        @OptionGroup var options: GlobalOptions
        @Flag(help: "Keep printing what happens (Ctrl-C to stop).") var follow = false

        func run() async throws {
            let configuration = try options.loadConfiguration()
            let context = try ZMQContext(configuration: configuration)
            // Subscribed before the snapshot is asked for, so nothing falls between them.
            let subscriber =
                follow
                ? try Subscriber(
                    context: context, endpoint: configuration.busSubscribeEndpoint,
                    maximumMessageBytes: configuration.maximumMessageBytes) : nil
            if let subscriber {
                let bus = CommandClient(
                    context: context, endpoint: configuration.commandEndpoint(.bus), timeout: .milliseconds(250),
                    attempts: 1)
                _ = await subscriber.waitUntilSubscribed(bus: bus, timeout: options.timeoutDuration)
                await bus.close()
            }
            let reply: SyncDiag
            do {
                reply = try await ServiceCall.send(options, .sync, SyncCommands.Diag())
            } catch {
                await subscriber?.close()
                await context.terminate()
                throw error
            }
            let zone = configuration.household.timeZone
            if options.json {
                try Output.reply(reply)
            } else {
                Self.printSnapshot(reply, zone)
            }
            if let subscriber {
                let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in subscriber {
                            guard case .event(let topic, let envelope) = message, envelope.source == "sync",
                                topic.hasPrefix("sync.diag")
                            else { continue }
                            if options.json {
                                Output.json(envelope.data)
                            } else if let line = try? envelope.data.decode(SyncDiagLine.self) {
                                Output.line(Self.line(line, zone))
                            }
                        }
                    }
                    group.addTask { for await _ in signals { break } }
                    await group.next()
                    group.cancelAll()
                    await subscriber.close()
                }
            }
            await context.terminate()
        }

        static func printSnapshot(_ reply: SyncDiag, _ zone: TimeZone) {
            Output.line(
                "This device: \(reply.name)  \(reply.fingerprint)  "
                    + "sync port \(reply.ports.sync), pairing port \(reply.ports.pairing)")
            Output.line("Heard: \(reply.heard.count)")
            for device in reply.heard {
                Output.line(
                    "  \(device.name)  \(device.fingerprint)  at \(device.host)  \(device.paired ? "paired" : "not paired")"
                )
            }
            Output.line("Refused connections: \(reply.refusals)")
            let running = reply.inProgress
            Output.line("In progress: \(running.isEmpty ? "none" : running.joined(separator: ", "))")
            for line in reply.lines { Output.line(Self.line(line, zone)) }
        }

        static func line(_ line: SyncDiagLine, _ zone: TimeZone) -> String {
            "\(Dates.wall(line.at, zone))  \(line.kind)  \(line.text)"
        }
    }
}
