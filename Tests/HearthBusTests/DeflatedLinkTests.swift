import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Logging
import Testing

@Suite("A deflating command link: requests and replies deflated where a server reads them", .timeLimit(.minutes(1)))
struct DeflatedLinkTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// A page-like argument: base64 of random bytes (as a packed page is), and some repeated JSON.
    static let page: JSONValue = {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<3_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return ["packed": .string(Data(random).base64EncodedString()), "format": "hearth-ops/1"]
    }()

    /// A server that reads deflated requests, echoing each request's arguments.
    func withDeflatingServer(limit: Int = 1 << 20, _ body: (_ endpoint: String) async throws -> Void) async throws {
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/deflating.sock"
        let server = try CommandServer(
            context: context, endpoint: endpoint, service: "test", maximumMessageBytes: limit, readsDeflated: true,
            logger: Logger(label: "test"), handler: { request in .object(request.arguments) })
        try await withRunning([server]) { try await body(endpoint) }
    }

    @Test("deflate round trip, and inflating is bounded: a bomb, a cut stream and plain bytes are typed errors")
    func deflate() throws {
        let json = JSONValue.array((0..<200).map { .string("event_card \($0 % 12)") }).jsonBytes
        for effort in [Deflate.Effort.smallest, .balanced, .codesOnly] {
            let packed = Deflate.compress(json, effort: effort)
            #expect(packed.first == Deflate.streamMarker)
            #expect(try Deflate.inflate(packed, maximumBytes: json.count) == json, "\(effort)")
        }
        let packed = Deflate.compress(json)
        #expect(packed.count * 4 < json.count, "\(packed.count) deflated against \(json.count)")
        // Codes alone take base64 back to the 6 bits a character it carries.
        let base64 = try #require(Self.page["packed"]?.stringValue).utf8
        let coded = Deflate.compress(Array(base64), effort: .codesOnly)
        #expect(Double(coded.count) < Double(base64.count) * 0.77, "\(coded.count) against \(base64.count)")
        #expect(throws: Deflate.Failure.tooLarge(json.count - 1)) {
            try Deflate.inflate(packed, maximumBytes: json.count - 1)
        }
        let bomb = Deflate.compress([UInt8](repeating: 0, count: 4_000_000))
        #expect(bomb.count < 10_000)
        #expect(throws: Deflate.Failure.tooLarge(1 << 16)) { try Deflate.inflate(bomb, maximumBytes: 1 << 16) }
        #expect(throws: Deflate.Failure.self) {
            try Deflate.inflate(Array(packed.prefix(packed.count / 2)), maximumBytes: 1 << 20)
        }
        #expect(throws: Deflate.Failure.self) { try Deflate.inflate(Array("{}".utf8), maximumBytes: 1 << 20) }
        // What deflate cannot shrink goes as it is.
        #expect(Deflate.smaller([1, 2, 3]) == [1, 2, 3])
    }

    @Test(
        "a deflating client's request and reply cross deflated and come back whole; a plain client is answered plainly")
    func deflated() async throws {
        try await withDeflatingServer { endpoint in
            let plain = CommandClient(context: context, endpoint: endpoint)
            let deflating = CommandClient(context: context, endpoint: endpoint)
            deflating.deflateRequests()
            let arguments = try #require(Self.page.objectValue)
            #expect(try await plain.request("echo", args: arguments, id: "one") == Self.page)
            #expect(try await deflating.request("echo", args: arguments, id: "two") == Self.page)
            // The base64 crosses as what it encodes: a quarter less each way.
            let (plainBytes, deflatedBytes) = (plain.bytesExchanged, deflating.bytesExchanged)
            #expect(Double(deflatedBytes) < Double(plainBytes) * 0.8, "\(deflatedBytes) against \(plainBytes)")
            #expect(plainBytes > 2 * 4_000)
            // A small reply (that deflate does not shrink) comes plain and is read.
            #expect(try await deflating.request("echo", args: ["x": 1]) == ["x": 1])
            await plain.close()
            await deflating.close()
        }
    }

    @Test("a deflated request that inflates past the server's limit is refused unread, and the server goes on")
    func bomb() async throws {
        try await withDeflatingServer(limit: 64 * 1024) { endpoint in
            let raw = try SocketThread(context: context, kind: .dealer, name: "raw") { socket in
                try socket.setLinger(milliseconds: 0)
                try socket.connect(endpoint)
            }
            var replies = raw.incoming.makeAsyncIterator()
            let request = CommandRequest(
                id: "bomb", command: "echo", arguments: ["x": .string(String(repeating: "a", count: 1_000_000))])
            let bomb = Deflate.compress(request.jsonBytes)
            #expect(bomb.count < 64 * 1024)
            try raw.send([[], bomb])
            let reply = try CommandReply.decode(try #require(await replies.next()).last!)
            guard case .failure(let error) = reply.result else {
                Issue.record("a request over the limit was run")
                return
            }
            #expect(error.code == "oversized")
            #expect(error.message.contains("inflates beyond the limit of 65536 bytes"), "\(error.message)")
            // Not a stream at all, though it starts like one.
            try raw.send([[], [Deflate.streamMarker, 1, 2, 3]])
            let broken = try CommandReply.decode(try #require(await replies.next()).last!)
            guard case .failure(let refusal) = broken.result else {
                Issue.record("a broken stream was run")
                return
            }
            #expect(refusal.code == "malformed_request")
            #expect(refusal.message.contains("zlib"), "\(refusal.message)")
            await raw.close()
            let client = CommandClient(context: context, endpoint: endpoint)
            client.deflateRequests()
            #expect(try await client.request("echo", args: ["after": true]) == ["after": true])
            await client.close()
        }
    }
}
