import CZeroMQ
import Foundation
import HearthBus
import HearthTesting
import Testing

/// Replies over the message limit reach their caller whole, in parts; one over what a service
/// sends, or one a server sends whole over the limit, is said to be that, never silence.
@Suite("Command replies in parts", .timeLimit(.minutes(1)))
struct ReplyPartsTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("a 2 MB reply arrives whole through parts, a 20 MB one is refused naming its size, small ones stay whole")
    func largeReplies() async throws {
        let big = JSONValue.array((0..<45_000).map { .string("todo number \($0) with a title of some length") })
        try await withCommandServer(
            context: context,
            handler: { request in
                switch request.command {
                case "big": return ["items": big]
                case "huge": return ["text": .string(String(repeating: "z", count: 20 * 1_024 * 1_024))]
                default: return ["small": true]
                }
            }
        ) { (endpoint: String) async throws in
            let client = CommandClient(context: context, endpoint: endpoint, timeout: .seconds(5))
            #expect(big.jsonBytes.count > 2_000_000)
            let reply = try await client.request("big")
            #expect(reply["items"] == big)
            #expect(try await client.request("small") == ["small": true])
            let huge = await #expect(throws: CommandClientError.self) { try await client.request("huge") }
            #expect(
                huge?.description.contains("over the 16 MiB a service sends") == true, "\(String(describing: huge))")
            // A part asked for with a token the server does not hold is refused, not a hang.
            let gone = await #expect(throws: CommandClientError.self) {
                try await client.request(ReplyParts.command, args: ["token": "nope", "index": 0])
            }
            #expect(gone?.description.contains("no longer held") == true)
            await client.close()
        }
    }

    @Test("a reply a server sent whole over the limit is reported as too large, not as a service not answering")
    func oversizedReplyReported() async throws {
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/raw.sock"
        // A server that does not split its replies: a raw ROUTER answering with 300 KB, on a
        // thread of its own (its calls block).
        let context = context
        let bound = AsyncLatch<Bool>()
        let answering = Task {
            try await offPool { () throws -> Void in
                let router = try ZMQSocket(context: context, kind: .router)
                defer { router.close() }
                try router.setLinger(milliseconds: 0)
                // Bounds, not expectations: a machine busy with the other suites may be slow.
                try router.setTimeouts(send: 5_000, receive: 5_000)
                try router.bind(endpoint)
                bound.set(true)
                // Every request it gets (the client tries up to three times: a first request lost
                // while its connection came up made this test wait out 20 s in 2 runs of 5).
                for _ in 0..<3 {
                    guard let frames = try router.receive() else { return }
                    guard frames.count == 3, let request = try? CommandRequest.decode(frames[2]) else { continue }
                    let reply = CommandReply(
                        id: request.id, result: .success(.string(String(repeating: "q", count: 300_000))))
                    _ = try router.send([frames[0], [], reply.jsonBytes])
                }
            }
        }
        #expect(await bound.wait(timeout: .seconds(5)) == true)
        let client = CommandClient(context: context, endpoint: endpoint, timeout: .seconds(5), attempts: 3)
        let error = await #expect(throws: CommandClientError.self) { try await client.request("list") }
        #expect(
            error?.description.contains("over the 262144-byte limit of a message") == true,
            "\(String(describing: error))")
        try await answering.value
        await client.close()
    }
}
