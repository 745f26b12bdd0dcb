import HearthBus
import HearthHost
import HearthTesting
import Logging
import Testing

@testable import StoreService

/// Two homes with devices of their own, each with a running store that trusts the other's
/// signing key, as pairing makes them.
func withTwoStores(
    context: ZMQContext, _ body: (CommandClient, CommandClient) async throws -> Void
) async throws {
    let homes = (try TemporaryHome(), try TemporaryHome())
    let configurations = (try homes.0.configuration(), try homes.1.configuration())
    let stores = (
        try StoreService(
            configuration: configurations.0, context: context, device: UUIDText.make(), logger: Logger(label: "a")),
        try StoreService(
            configuration: configurations.1, context: context, device: UUIDText.make(), logger: Logger(label: "b"))
    )
    let clients = (
        CommandClient(context: context, endpoint: configurations.0.commandEndpoint(.store), timeout: .seconds(5)),
        CommandClient(context: context, endpoint: configurations.1.commandEndpoint(.store), timeout: .seconds(5))
    )
    try await withRunning([stores.0, stores.1]) {
        for (from, to) in [(clients.0, clients.1), (clients.1, clients.0)] {
            let vector = try await from.request("ops.vector")
            _ = try await to.request(
                "device.trust", args: ["device": vector["device"] ?? .null, "key": vector["signing_key"] ?? .null])
        }
        try await body(clients.0, clients.1)
    }
    await clients.0.close()
    await clients.1.close()
}

/// Both ways, every operation the other lacks, as a sync would carry them.
func exchange(_ a: CommandClient, _ b: CommandClient) async throws {
    for (from, to) in [(a, b), (b, a)] {
        let vector = try await to.request("ops.export", args: ["since_vector": [:]])["vector"] ?? [:]
        let export = try await from.request("ops.export", args: ["since_vector": vector])
        let reply = try await to.request(
            "ops.import", args: ["format": "hearth-ops/2", "operations": export["operations"]!])
        #expect(reply["refused_count"] == 0, "\(reply["refused"] ?? .null)")
    }
}
