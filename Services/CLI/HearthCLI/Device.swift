import ArgumentParser
import HearthBus

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
