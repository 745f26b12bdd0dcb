import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

@Suite("End to end: [sync] pairing_port", .serialized, .timeLimit(.minutes(1)))
struct PairingPortTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test(
        "hearth-sync's pairing socket listens on [sync] pairing_port (a random port before, which no setting controlled)"
    )
    func pairingPort() async throws {
        let home = try TemporaryHome()
        // A port free now: the kernel picks it for a socket the test then closes.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0
            }
        }
        close(probe)
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        try "[sync]\nendpoint = \"tcp://127.0.0.1:*\"\npairing_port = \(port)\n".write(
            toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let stack = try await TestStack([.bus, .store, .sync], home: home, context: context)
        let client = CommandClient(context: context, endpoint: stack.configuration.commandEndpoint(.sync))
        let ping = try await client.request("ping")
        await client.close()
        #expect(ping.jsonText.contains("\"pairing_endpoint\":\"tcp://127.0.0.1:\(port)\""), "\(ping.jsonText)")
        let shown = try await stack.hearth(["config"])
        #expect(shown.stdout.contains("sync.pairing_port") && shown.stdout.contains("\(port)"), "\(shown.stdout)")
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
        // Out of range: refused naming the key.
        try "[sync]\npairing_port = 70000\n".write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try HearthConfiguration.load(home: home.path) }
    }
}
