import Foundation
import HearthBus
import HearthTesting
import Testing

/// A request in flight when its server dies is retried by the client (same id, fresh socket)
/// and, with the server restarted, runs exactly once.
@Suite("End to end: command retried across a server restart", .serialized, .timeLimit(.minutes(2)))
struct CommandRetryTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    func ledgerLines(_ path: String, id: String) -> Int {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.hasPrefix(id + " ") }.count
    }

    func run(killing stage: String, holdOption: String) async throws {
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/fixture.sock"
        let ledger = home.file("ledger.txt")
        let arguments = ["--endpoint", endpoint, "--ledger", ledger]
        let first = try await ChildProcess("hearth-fixture", arguments + [holdOption, "5000"])
        try #require(await first.output.waitForLine(containing: "ready") != nil)

        let client = CommandClient(context: context, endpoint: endpoint, timeout: .milliseconds(300), attempts: 30)
        let id = UUIDText.make()
        async let reply = client.request("ledger.append", args: ["value": "pay the milkman"], id: id)

        // Kill the server at the chosen moment of the request, then start it again.
        try #require(await first.output.waitForLine(containing: "\(stage) \(id)") != nil)
        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(2)) == -SIGKILL)
        let second = try await ChildProcess("hearth-fixture", arguments)

        let answer = try await reply
        #expect(answer["already"] == (stage == "applied" ? true : false))
        #expect(ledgerLines(ledger, id: id) == 1)
        try #require(await second.output.waitForLine(containing: "received \(id)") != nil)
        second.signal(SIGTERM)
        #expect(await second.waitForExit(timeout: .seconds(1)) == 0)
        await client.close()
    }

    @Test("killed after applying but before replying: the retry is answered, the ledger holds it once")
    func killedAfterApplying() async throws {
        try await run(killing: "applied", holdOption: "--hold-after-ms")
    }

    @Test("killed before applying: the retry applies it, once")
    func killedBeforeApplying() async throws {
        try await run(killing: "received", holdOption: "--hold-before-ms")
    }
}
