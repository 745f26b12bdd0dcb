import ArgumentParser
import Foundation
import HearthBus
import UnixSignals

/// `hearth sync`: syncing with paired devices now, the sync log, and diagnostics.
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sync with paired devices, and see what syncing did.",
        subcommands: [Now.self, Log.self, Diag.self])

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync now with a paired device (default: every paired device heard) and wait for the result.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name.") var device: String?

        func run() async throws {
            var arguments: [String: JSONValue] = [:]
            if let device { arguments["device"] = .string(device) }
            let reply = try await ServiceCall.runShowingProgress(options, .sync, "sync.now", arguments)
            if options.json { return Output.json(reply) }
            let syncs = reply["syncs"]?.arrayValue ?? []
            if syncs.isEmpty { Output.line("no paired device is heard on this network now") }
            let zone = try Dates.zone(options)
            for entry in syncs { Output.line(Log.text(entry, zone)) }
            if syncs.contains(where: { $0["outcome"] != "completed" }) { throw ExitCode(1) }
        }
    }

    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The sync log, newest first.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Only this device (id, id prefix or name).") var device: String?
        @Option(help: "Only since this day (2026-11-27, today) or time ('2026-11-27 09:00', or ISO 8601).") var since:
            String?
        @Option(help: "At most this many lines.") var limit = 50

        func run() async throws {
            var arguments: [String: JSONValue] = ["limit": .int(Int64(limit))]
            if let device { arguments["device"] = .string(device) }
            if let since { arguments["since"] = .string(try Dates.instant(since, options, dayMeans: .start)) }
            let reply = try await ServiceCall.run(options, .sync, "sync.log", arguments)
            if options.json { return Output.json(reply) }
            let entries = reply["entries"]?.arrayValue ?? []
            if entries.isEmpty { Output.line("nothing synced yet") }
            let zone = try Dates.zone(options)
            for entry in entries { Output.line(Self.text(entry, zone)) }
        }

        /// One sync as a line, its time on the household's wall clock.
        static func text(_ entry: JSONValue, _ zone: TimeZone) -> String {
            let name = entry["peer"]?["name"]?.stringValue ?? "?"
            let head = "\(Dates.wall(entry["at"]?.stringValue, zone))  \(name)  \(entry["outcome"]?.stringValue ?? "")"
            guard entry["outcome"] == "completed" else { return head + "  " + (entry["detail"]?.stringValue ?? "") }
            var text =
                head + "  \(entry["received"]?.intValue ?? 0) received, \(entry["sent"]?.intValue ?? 0) sent, "
                + "\(entry["conflicts"]?.intValue ?? 0) conflicts, \(entry["bytes"]?.intValue ?? 0) bytes, "
                + "\(entry["duration_ms"]?.intValue ?? 0) ms"
            if let resolution = entry["resolution"]?.stringValue, !resolution.isEmpty { text += "; \(resolution)" }
            if let detail = entry["detail"]?.stringValue, !detail.isEmpty { text += "; \(detail)" }
            return text
        }
    }

    struct Diag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
            let reply: JSONValue
            do {
                reply = try await ServiceCall.run(options, .sync, "sync.diag")
            } catch {
                await subscriber?.close()
                await context.terminate()
                throw error
            }
            let zone = configuration.household.timeZone
            if options.json {
                Output.json(reply)
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
                            } else {
                                Output.line(Self.line(envelope.data, zone))
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

        static func printSnapshot(_ reply: JSONValue, _ zone: TimeZone) {
            Output.line(
                "This device: \(reply["name"]?.stringValue ?? "")  \(reply["fingerprint"]?.stringValue ?? "")  "
                    + "sync port \(reply["ports"]?["sync"]?.intValue ?? 0), pairing port \(reply["ports"]?["pairing"]?.intValue ?? 0)"
            )
            let heard = reply["heard"]?.arrayValue ?? []
            Output.line("Heard: \(heard.count)")
            for device in heard {
                Output.line(
                    "  \(device["name"]?.stringValue ?? "")  \(device["fingerprint"]?.stringValue ?? "")  "
                        + "at \(device["host"]?.stringValue ?? "")  \(device["paired"] == true ? "paired" : "not paired")"
                )
            }
            Output.line("Refused connections: \(reply["refusals"]?.intValue ?? 0)")
            let running = (reply["in_progress"]?.arrayValue ?? []).compactMap(\.stringValue)
            Output.line("In progress: \(running.isEmpty ? "none" : running.joined(separator: ", "))")
            for line in reply["lines"]?.arrayValue ?? [] { Output.line(Self.line(line, zone)) }
        }

        static func line(_ line: JSONValue, _ zone: TimeZone) -> String {
            "\(Dates.wall(line["at"]?.stringValue, zone))  \(line["kind"]?.stringValue ?? "")  \(line["text"]?.stringValue ?? "")"
        }
    }
}
