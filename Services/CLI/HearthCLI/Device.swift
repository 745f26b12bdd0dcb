import ArgumentParser
import Foundation
import HearthBus

/// `hearth device`: the household's devices, pairing this one with another, and forgetting one.
struct Device: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, pair, name and forget the household's devices.",
        discussion: """
            Pairing compares numbers: `hearth device pair NAME` prints a six-digit code and the \
            other device shows the same code in a notification. If they match, confirm on both \
            (`hearth device confirm`, or the popup's Confirm); a wrong code or two minutes end it.
            """,
        subcommands: [
            ListDevices.self, Nearby.self, Pair.self, Pairing.self, Confirm.self, Reject.self, Rename.self,
            Forget.self,
        ],
        defaultSubcommand: ListDevices.self)

    struct ListDevices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the household's devices: names, pairing, last sync.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.run(options, .store, "device.list")
            let configuration = try options.loadConfiguration()
            // Pairing is hearth-sync's: shown when it runs.
            let sync = await ServiceCall.ifRunning(
                configuration, .sync, "device.paired", timeout: options.timeoutDuration)
            var paired: [String: JSONValue] = [:]
            for peer in sync?["devices"]?.arrayValue ?? [] {
                if let id = peer["id"]?.stringValue { paired[id] = peer }
            }
            var devices = reply["devices"]?.arrayValue ?? []
            let known = Set(devices.compactMap { $0["id"]?.stringValue })
            devices += paired.values.filter { !known.contains($0["id"]?.stringValue ?? "") }
            if options.json {
                let merged = devices.map { device -> JSONValue in
                    guard let peer = paired[device["id"]?.stringValue ?? ""] else { return device }
                    return .object(
                        (device.objectValue ?? [:]).merging([
                            "paired": .bool(peer["forgotten"] != true), "fingerprint": peer["fingerprint"] ?? .null,
                            "paired_name": peer["name"] ?? .null, "last_sync_at": peer["last_sync_at"] ?? .null,
                            "forgotten": peer["forgotten"] ?? false, "removed_by": peer["removed_by"] ?? .null,
                        ]) { _, new in new })
                }
                return Output.json(["devices": .array(merged)])
            }
            let zone = configuration.household.timeZone
            for device in devices {
                let id = device["id"]?.stringValue ?? ""
                var line = "\(id.prefix(8))  \(device["name"]?.stringValue ?? "")"
                if device["local"] == true { line += "  (this device)" }
                if let peer = paired[id] {
                    if let remover = peer["removed_by"]?.stringValue {
                        line += "  removed by \(remover) (pair again to sync)"
                    } else if peer["forgotten"] == true {
                        line += "  forgotten"
                    } else {
                        line += "  paired \(peer["fingerprint"]?.stringValue ?? "")"
                        line +=
                            "  last sync \(peer["last_sync_at"]?.stringValue.map { Dates.wall($0, zone) } ?? "never")"
                    }
                }
                if let key = device["signing_key"]?.stringValue { line += "  signs as \(key)" }
                Output.line(line)
            }
        }
    }

    struct Nearby: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Devices heard on this network now.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.run(options, .sync, "device.nearby")
            if options.json { return Output.json(reply) }
            let devices = reply["devices"]?.arrayValue ?? []
            if devices.isEmpty { Output.line("no devices heard (is hearth-sync running on the others?)") }
            let zone = try Dates.zone(options)
            for device in devices {
                let paired = device["paired"] == true ? "paired" : "not paired"
                Output.line(
                    "\(device["id"]?.stringValue?.prefix(8) ?? "")  \(device["name"]?.stringValue ?? "")  "
                        + "\(device["fingerprint"]?.stringValue ?? "")  \(paired)  at \(device["host"]?.stringValue ?? "")"
                        + "  heard \(Dates.wall(device["last_heard"]?.stringValue, zone))")
            }
        }
    }

    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask a nearby device to pair; prints the code both devices show.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name (see hearth device nearby).") var device: String

        func run() async throws {
            var patient = options
            patient.timeout = max(options.timeout, 10_000)
            let reply = try await ServiceCall.run(patient, .sync, "device.pair", ["device": .string(device)])
            if options.json { return Output.json(reply) }
            let name = reply["name"]?.stringValue ?? device
            Output.line(
                "Pairing with \(name) (\(reply["fingerprint"]?.stringValue ?? "")): code \(reply["code"]?.stringValue ?? "?")"
            )
            Output.line("Check that \(name) shows the same code, then confirm on both devices:")
            Output.line(
                "  hearth device confirm \(reply["device"]?.stringValue?.prefix(8) ?? "") --code \(reply["code"]?.stringValue?.filter(\.isNumber) ?? "")"
            )
            Output.line("The request ends in 2 minutes unless both devices confirm.")
        }
    }

    struct Pairing: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pairing requests in progress, with their codes.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.run(options, .sync, "device.pairing")
            if options.json { return Output.json(reply) }
            let pairings = reply["pairings"]?.arrayValue ?? []
            if pairings.isEmpty { Output.line("no pairing requests") }
            for pairing in pairings {
                let confirmed = [
                    pairing["confirmed_here"] == true ? "confirmed here" : nil,
                    pairing["confirmed_there"] == true ? "confirmed there" : nil,
                ].compactMap { $0 }.joined(separator: ", ")
                Output.line(
                    "\(pairing["device"]?.stringValue?.prefix(8) ?? "")  \(pairing["name"]?.stringValue ?? "")  "
                        + "code \(pairing["code"]?.stringValue ?? "(exchanging)")  "
                        + "\(pairing["role"] == "initiator" ? "asked by this device" : "asked by it")"
                        + (confirmed.isEmpty ? "" : "  \(confirmed)")
                        + "  ends in \(pairing["expires_in_s"]?.intValue ?? 0) s")
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Confirm a pairing whose code matches on both devices.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name.") var device: String
        @Option(help: "The six-digit code this device shows (a wrong one ends the pairing).") var code: String
        @Option(help: "What to call it on this device (default: the name it announces).") var name: String?

        func run() async throws {
            var arguments: [String: JSONValue] = ["device": .string(device), "code": .string(code)]
            if let name { arguments["name"] = .string(name) }
            var patient = options
            patient.timeout = max(options.timeout, 10_000)
            let reply = try await ServiceCall.run(patient, .sync, "device.confirm", arguments)
            if options.json { return Output.json(reply) }
            let who = reply["name"]?.stringValue ?? device
            Output.line(
                reply["paired"] == true
                    ? "Paired with \(who)." : "Confirmed here; waiting for \(who) to confirm too.")
        }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refuse a pairing request.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name.") var device: String

        func run() async throws {
            let reply = try await ServiceCall.run(options, .sync, "device.reject", ["device": .string(device)])
            if options.json { return Output.json(reply) }
            Output.line(reply["rejected"] == true ? "Rejected." : "No pairing request from \(device).")
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a device a name, such as Mum (every device sees it after a sync).")
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

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unpair a device: refused from now on; what it sent stays.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name.") var device: String

        func run() async throws {
            let reply = try await ServiceCall.run(options, .sync, "device.forget", ["device": .string(device)])
            if options.json { return Output.json(reply) }
            let name = reply["name"]?.stringValue ?? device
            Output.line(
                "Forgot \(name); it can no longer sync with this device."
                    + (reply["told"] == true
                        ? " It was told, and can pair again."
                        : " It is told when it next tries to sync."))
        }
    }
}
