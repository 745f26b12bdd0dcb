import ArgumentParser
import Foundation
import HearthBus
import HearthCore

/// `hearth device`: the household's devices, pairing this one with another, and forgetting one.
struct Device: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "List, pair, name and forget the household's devices.",
        discussion: """
            Pairing compares numbers: `hearth device pair NAME` prints a six-digit code and the \
            other device shows the same code in a notification. If they match, confirm on both \
            (`hearth device confirm`, or the popup's Confirm); a wrong code or two minutes end it.
            """,
        subcommands: [
            ListDevices.self, Nearby.self, Pair.self, Pairing.self, Confirm.self, Reject.self, Rename.self,
            Forget.self, Distrust.self,
        ],
        defaultSubcommand: ListDevices.self)

    struct ListDevices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the household's devices: names, pairing, last sync.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, DeviceCommands.List())
            let configuration = try options.loadConfiguration()
            // Pairing is hearth-sync's: shown when it runs.
            let sync = await ServiceCall.ifRunning(
                configuration, .sync, PairingCommands.Paired.name, timeout: options.timeoutDuration)
            let peers = (try sync?.decode(PairedList.self))?.devices ?? []
            let paired = Dictionary(peers.map { ($0.id, $0) }) { first, _ in first }
            let known = Set(reply.devices.map(\.id))
            // A device paired here that wrote nothing yet: named by its pairing.
            let devices =
                reply.devices
                + peers.filter { !known.contains($0.id) }.map {
                    DeviceList.Device(
                        id: $0.id, name: $0.name, local: false, lastSyncAt: $0.lastSyncAt, firstSeenAt: $0.pairedAt,
                        signingKey: nil, vouchedBy: nil)
                }
            if options.json {
                let merged = try devices.map { device -> JSONValue in
                    let json = try JSONValue(reply: device)
                    guard let peer = paired[device.id] else { return json }
                    return .object(
                        (json.objectValue ?? [:]).merging([
                            "paired": .bool(!peer.forgotten), "fingerprint": .string(peer.fingerprint),
                            "paired_name": .string(peer.name),
                            "last_sync_at": peer.lastSyncAt.map(JSONValue.string) ?? .null,
                            "forgotten": .bool(peer.forgotten),
                            "removed_by": peer.removedBy.map(JSONValue.string) ?? .null,
                        ]) { _, new in new })
                }
                return Output.json(["devices": .array(merged)])
            }
            let zone = configuration.household.timeZone
            for device in devices {
                var line = "\(device.id.prefix(8))  \(device.name)"
                if device.local { line += "  (this device)" }
                if let peer = paired[device.id] {
                    if let remover = peer.removedBy {
                        line += "  removed by \(remover) (pair again to sync)"
                    } else if peer.forgotten {
                        line += "  forgotten"
                    } else {
                        line += "  paired · connection key \(peer.fingerprint)"
                        line += "  last sync \(peer.lastSyncAt.map { Dates.wall($0, zone) } ?? "never")"
                    }
                }
                if let key = device.signingKey { line += "  · signing key \(key)" }
                if let after = device.revokedAfter {
                    line += " (revoked: nothing it made after its operation \(after) is taken)"
                }
                Output.line(line)
                if let conflict = device.keyConflict {
                    Output.line(
                        "  ! two keys: \(conflict.vouchedBy.prefix(8)) vouched for \(conflict.vouchedFingerprint), "
                            + "this device pinned \(conflict.pinnedFingerprint) (\(Dates.wall(conflict.at, zone))); "
                            + "the pin is used: if it is not this device's, hearth device distrust \(device.id.prefix(8))"
                    )
                }
            }
        }
    }

    struct Nearby: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "nearby", abstract: "Devices heard on this network now.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .sync, PairingCommands.Nearby())
            if options.json { return try Output.reply(reply) }
            if reply.devices.isEmpty { Output.line("no devices heard (is hearth-sync running on the others?)") }
            let zone = try Dates.zone(options)
            for device in reply.devices {
                Output.line(
                    "\(device.id.prefix(8))  \(device.name)  connection key \(device.fingerprint)  "
                        + "\(device.paired ? "paired" : "not paired")  at \(device.host)"
                        + "  heard \(Dates.wall(device.lastHeard, zone))")
            }
        }
    }

    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair",
            abstract: "Ask a nearby device to pair; prints the code both devices show.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name (see hearth device nearby).") var device: String

        func run() async throws {
            var patient = options
            patient.timeout = max(options.timeout, 10_000)
            let reply = try await ServiceCall.send(patient, .sync, PairingCommands.Pair(device: device))
            if options.json { return try Output.reply(reply) }
            let name = reply.name
            Output.line("Pairing with \(name) (connection key \(reply.fingerprint)): code \(reply.code ?? "?")")
            Output.line("Check that \(name) shows the same code, then confirm on both devices:")
            Output.line(
                "  hearth device confirm \(reply.device.prefix(8)) --code \(reply.code?.filter(\.isNumber) ?? "")")
            Output.line("The request ends in 2 minutes unless both devices confirm.")
        }
    }

    struct Pairing: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pairing", abstract: "Pairing requests in progress, with their codes.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let reply = try await ServiceCall.send(options, .sync, PairingCommands.Pending())
            if options.json { return try Output.reply(reply) }
            if reply.pairings.isEmpty { Output.line("no pairing requests") }
            for pairing in reply.pairings {
                let confirmed = [
                    pairing.confirmedHere ? "confirmed here" : nil, pairing.confirmedThere ? "confirmed there" : nil,
                ].compactMap { $0 }.joined(separator: ", ")
                Output.line(
                    "\(pairing.device.prefix(8))  \(pairing.name)  code \(pairing.code ?? "(exchanging)")  "
                        + "\(pairing.role == "initiator" ? "asked by this device" : "asked by it")"
                        + (confirmed.isEmpty ? "" : "  \(confirmed)") + "  ends in \(pairing.expiresInS) s")
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "confirm",
            abstract: "Confirm a pairing whose code matches on both devices.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name.") var device: String
        @Option(help: "The six-digit code this device shows (a wrong one ends the pairing).") var code: String
        @Option(help: "What to call it on this device (default: the name it announces).") var name: String?

        func run() async throws {
            var patient = options
            patient.timeout = max(options.timeout, 10_000)
            let reply = try await ServiceCall.send(
                patient, .sync, PairingCommands.Confirm(device: device, code: code, name: name))
            if options.json { return try Output.reply(reply) }
            Output.line(
                reply.paired
                    ? "Paired with \(reply.name)." : "Confirmed here; waiting for \(reply.name) to confirm too.")
        }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reject", abstract: "Refuse a pairing request.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name.") var device: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .sync, PairingCommands.Reject(device: device))
            if options.json { return try Output.reply(reply) }
            Output.line(reply.rejected ? "Rejected." : "No pairing request from \(device).")
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Give a device a name, such as Mum (every device sees it after a sync).")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device id (or a unique prefix).") var id: String
        @Argument(help: "Its new name.") var name: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .store, DeviceCommands.Rename(id: id, name: name))
            if options.json { return try Output.reply(reply) }
            Output.line("\(reply.id) is now \(name)")
        }
    }

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget",
            abstract: "Unpair a device: refused from now on; what it sent stays.")
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name.") var device: String

        func run() async throws {
            let reply = try await ServiceCall.send(options, .sync, PairingCommands.Forget(device: device))
            if options.json { return try Output.reply(reply) }
            Output.line(
                "Forgot \(reply.name); it can no longer sync with this device."
                    + (reply.told
                        ? " It was told, and can pair again."
                        : " It is told when it next tries to sync."))
        }
    }

    struct Distrust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "distrust",
            abstract: "Forget a device's signing key: its operations are refused from now on; what it sent stays.",
            discussion: """
                For a key vouched for by another device that is not the real device's (device list \
                shows two keys), or a device never met. Pairing with the device brings its key back.
                """)
        @OptionGroup var options: GlobalOptions
        @Argument(help: "The device: its id, an id prefix, or its name (see hearth device list).") var device: String

        func run() async throws {
            let list = try await ServiceCall.send(options, .store, DeviceCommands.List())
            let matches = list.devices.filter {
                !$0.local && ($0.id.hasPrefix(device.lowercased()) || $0.name.lowercased() == device.lowercased())
            }
            guard matches.count == 1, let id = matches.first?.id else {
                Output.error(
                    "hearth: 'device': \(matches.isEmpty ? "names no other device here" : "names \(matches.count) devices: give more of its id") (hearth device list)"
                )
                throw ExitCode(2)
            }
            let reply = try await ServiceCall.send(options, .store, DeviceCommands.Distrust(device: id))
            if options.json { return try Output.reply(reply) }
            Output.line(
                reply.removed
                    ? "\(id.prefix(8)) no longer signs here (signing key \(reply.fingerprint ?? "?") forgotten)"
                    : "\(id.prefix(8)) had no key here")
        }
    }
}
