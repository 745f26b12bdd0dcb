import CZeroMQ
import Foundation
import HearthBus
import HearthTesting
import Logging
import Synchronization
import Testing

@Suite("libzmq wrapper", .timeLimit(.minutes(1)))
struct ZeroMQTests {
    @Test("libzmq errors carry zmq_strerror text")
    func errors() async throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context: context, kind: .pub)
        let error = #expect(throws: ZMQError.self) { try socket.bind("nonsense://here") }
        #expect(error?.code == EPROTONOSUPPORT)
        #expect(error?.message == "Protocol not supported")
        #expect(error?.description.contains("bind nonsense://here") == true)
        socket.close()
        await context.terminate()
    }

    @Test("a socket thread binds when made but its thread starts only on first use, not in the initialiser")
    func socketThreadStartsOnUse() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let name = "lazy-\(Int.random(in: 1_000...9_999))"
        /// The names of this process's threads (Linux keeps the first 15 bytes).
        func threadNames() -> [String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.compactMap {
                try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        let endpoint = "ipc://\(home.path)/lazy.sock"
        let socket = try SocketThread(context: context, kind: .router, name: name) { try $0.bind(endpoint) }
        #expect(FileManager.default.fileExists(atPath: String(endpoint.dropFirst(6))), "bound when made")
        #expect(!threadNames().contains(name), "a thread started in the initialiser")
        socket.start()
        var running = false
        for _ in 0..<200 where !running {
            running = threadNames().contains(name)
            if !running { try await Task.sleep(for: .milliseconds(5)) }  // /proc has no event to await
        }
        #expect(running, "no thread after start()")
        await socket.close()
        await context.terminate()
    }

    @Test("CURVE key pairs are Z85, and the public key follows from the secret key")
    func curveKeys() throws {
        let pair = try CurveKeyPair.generate()
        #expect(pair.publicKey.count == 40)
        #expect(pair.secretKey.count == 40)
        #expect(try CurveKeyPair.publicKey(forSecretKey: pair.secretKey) == pair.publicKey)
        #expect(try CurveKeyPair.generate() != pair)
    }

    @Test("a CURVE client with the server's key is answered; one with a wrong key is not")
    func curveHandshake() async throws {
        let context = try ZMQContext()
        let server = try CurveKeyPair.generate()
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/curve.sock"
        let router = try SocketThread(context: context, kind: .router, name: "curve server") { socket in
            try socket.setLinger(milliseconds: 0)
            try socket.makeCurveServer(secretKey: server.secretKey)
            try socket.bind(endpoint)
        }
        func client(serverKey: String) throws -> SocketThread<[Frame]> {
            let keys = try CurveKeyPair.generate()
            return try SocketThread(context: context, kind: .dealer, name: "curve client") { socket in
                try socket.setLinger(milliseconds: 0)
                try socket.makeCurveClient(keyPair: keys, serverKey: serverKey)
                try socket.connect(endpoint)
            }
        }
        let impostor = try client(serverKey: try CurveKeyPair.generate().publicKey)
        try impostor.send([Array("from impostor".utf8)])
        let good = try client(serverKey: server.publicKey)
        try good.send([Array("hello".utf8)])
        var received = router.incoming.makeAsyncIterator()
        let first = try #require(await received.next())
        // The impostor's handshake fails, so the only message that ever arrives is the good one.
        #expect(first.last == Array("hello".utf8))
        await impostor.close()
        await good.close()
        await router.close()
        await context.terminate()
    }

    @Test("a ZAP handler names each CURVE client by its key, and a refused key never gets through")
    func curveAuthenticator() async throws {
        let context = try ZMQContext()
        let server = try CurveKeyPair.generate()
        let allowed = try CurveKeyPair.generate()
        let refused = try CurveKeyPair.generate()
        let authenticator = try CurveAuthenticator(context: context, logger: Logger(label: "test.zap")) { key, _, _ in
            key != refused.publicKey
        }
        let handler = Task { await authenticator.run() }
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/zap.sock"
        let router = try SocketThread(context: context, kind: .router, name: "curve server", receiveUserID: true) {
            try $0.setLinger(milliseconds: 0)
            try $0.makeCurveServer(secretKey: server.secretKey)
            try $0.bind(endpoint)
        }
        func client(_ keys: CurveKeyPair) throws -> SocketThread<[Frame]> {
            try SocketThread(context: context, kind: .dealer, name: "curve client") { socket in
                try socket.setLinger(milliseconds: 0)
                try socket.makeCurveClient(keyPair: keys, serverKey: server.publicKey)
                try socket.connect(endpoint)
            }
        }
        let outsider = try client(refused)
        try outsider.send([Array("from the refused key".utf8)])
        let member = try client(allowed)
        try member.send([Array("hello".utf8)])
        var received = router.incoming.makeAsyncIterator()
        let first = try #require(await received.next())
        #expect(first.count == 3)
        #expect(first.first == Array(allowed.publicKey.utf8))
        #expect(first.last == Array("hello".utf8))
        // A second message from the same connection carries the same key; the refused one never arrives.
        try member.send([Array("again".utf8)])
        let second = try #require(await received.next())
        #expect(second.first == Array(allowed.publicKey.utf8))
        #expect(second.last == Array("again".utf8))
        await outsider.close()
        await member.close()
        await router.close()
        await authenticator.close()
        await handler.value
        await context.terminate()
    }

    @Test("a socket thread delivers in order and closes promptly")
    func socketThread() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/pair.sock"
        let a = try SocketThread(context: context, kind: .pair, name: "a") { try $0.bind(endpoint) }
        let b = try SocketThread(context: context, kind: .pair, name: "b") { try $0.connect(endpoint) }
        for index in 0..<1_000 { try a.send([Array("\(index)".utf8)]) }
        var iterator = b.incoming.makeAsyncIterator()
        for index in 0..<1_000 {
            let message = try #require(await iterator.next())
            #expect(message == [Array("\(index)".utf8)])
        }
        let started = ContinuousClock.now
        await a.close()
        await b.close()
        // Closing waits for no linger or timeout of seconds; the bound's slack is what a loaded
        // 2-core CI machine has shown its scheduling adds (1.97 s seen).
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(await iterator.next() == nil)
        #expect(throws: SocketThreadError.self) { try a.send([[1]]) }
        await context.terminate()
    }

    @Test(
        "a socket thread's reader sees each message in libzmq's buffers: what it returns arrives in order, what it consumes does not"
    )
    func socketThreadReader() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/reader.sock"
        let a = try SocketThread(context: context, kind: .pair, name: "a") { try $0.bind(endpoint) }
        // Frames of 1 to 3 parts, small (held inside libzmq's message) and large (a buffer of
        // its own), so batches hold many parts and the reader sees each kind.
        func message(_ index: Int) -> [Frame] {
            (0...(index % 3)).map { part in [UInt8](repeating: UInt8(index % 251), count: part == 0 ? 8 : 40 * part) }
        }
        let b = try SocketThread<(index: Int, frames: [Frame])>(
            context: context, kind: .pair, name: "b",
            read: { received in
                let index = Int(received[0].load(as: UInt8.self))
                guard index % 5 != 0 else { return nil }
                return (index, (0..<received.count).map { Array(received[$0]) })
            }
        ) { try $0.connect(endpoint) }
        for index in 0..<250 { try a.send(message(index)) }
        var iterator = b.incoming.makeAsyncIterator()
        for index in 0..<250 where index % 5 != 0 {
            let read = try #require(await iterator.next())
            #expect(read.index == index)
            #expect(read.frames == message(index))
        }
        await a.close()
        await b.close()
        #expect(await iterator.next() == nil)
        await context.terminate()
    }

    @Test(
        "received messages held in place: each reads as sent however many are held, and nothing waiting reads as none")
    func heldMessages() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/held.sock"
        // Blocking receives, each returning once its message is there (bounded by the timeout):
        // on a thread of their own, not the cooperative pool.
        try await offPool {
            let sender = try ZMQSocket(context: context, kind: .pair)
            let receiver = try ZMQSocket(context: context, kind: .pair)
            defer {
                sender.close()
                receiver.close()
            }
            try sender.setTimeouts(send: 5_000, receive: 5_000)
            try sender.bind(endpoint)
            try receiver.setTimeouts(send: 5_000, receive: 5_000)
            try receiver.connect(endpoint)
            let sent: [[Frame]] = (0..<40).map { index in
                [Array("m\(index)".utf8), [UInt8](repeating: UInt8(index), count: index * 7), []]
            }
            for message in sent { try sender.send(message) }
            var held = ReceivedMessages()
            for _ in sent { #expect(try held.receive(from: receiver, dontWait: false)) }
            #expect(held.count == sent.count)
            for (index, message) in sent.enumerated() {
                #expect(held.read(index) { $0.frames() } == message)
                #expect(held.read(index) { $0.frames(userID: true) } == [[]] + message)
            }
            held.removeAll()
            #expect(held.count == 0)
            #expect(try held.receive(from: receiver, dontWait: true) == false)
            #expect(try receiver.receive(dontWait: true) == nil)
            try sender.send([[1, 2], [3]])
            #expect(try receiver.receive() == [[1, 2], [3]])
        }
        await context.terminate()
    }

    @Test("an async signal wakes waiters, remembers firing, and times out otherwise")
    func asyncSignal() async {
        let signal = AsyncSignal()
        #expect(await signal.wait(timeout: .milliseconds(20)) == false)
        async let waiting = signal.wait(timeout: .seconds(10))
        signal.fire()
        #expect(await waiting)
        #expect(await signal.wait(timeout: .milliseconds(1)))
    }

    @Test("work given to a socket thread runs on it in order; work given as it closes is refused, never left waiting")
    func performRacesClose() async throws {
        let context = try ZMQContext()
        for _ in 0..<50 {
            let thread = try SocketThread(context: context, kind: .dealer, name: "perform") { socket in
                try socket.setLinger(milliseconds: 0)
            }
            let order = Ran()
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        do {
                            try await thread.perform { _ in order.list.withLock { $0.append(index) } }
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                group.addTask {
                    await thread.close()
                    return true
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.count == 21)
            // What ran, ran once each, and exactly the work reported done ran (the close's task
            // is the 21st `true`); after the close nothing more runs.
            let ran = order.list.withLock { $0 }
            #expect(Set(ran).count == ran.count)
            #expect(ran.count == outcomes.count { $0 } - 1)
            await #expect(throws: SocketThreadError.self) { try await thread.perform { _ in 1 } }
        }
        await context.terminate()
    }

    @Test("a ZAP handler closed and bound again at once in one context never finds its inproc name taken")
    func zapHandlerRebinds() async throws {
        let context = try ZMQContext()
        for round in 0..<300 {
            do {
                let handler = try CurveAuthenticator(context: context, logger: Logger(label: "test.zap"))
                await handler.close()
            } catch {
                Issue.record("round \(round): \(error)")
                break
            }
        }
        await context.terminate()
    }
}

/// What ran on a socket thread, in order.
private final class Ran: Sendable {
    let list = Mutex<[Int]>([])
}
