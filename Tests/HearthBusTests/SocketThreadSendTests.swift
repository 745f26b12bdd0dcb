import Foundation
import HearthBus
import HearthTesting
import Synchronization
import Testing

/// Sending on the caller's thread under the socket's lock, with the socket thread taking over
/// only what libzmq cannot take now: what must hold when many tasks send at once, when a send
/// would block, and when sends race the socket's close.
@Suite("SocketThread sends from the caller", .timeLimit(.minutes(1)))
struct SocketThreadSendTests {
    @Test("many tasks sending on one socket at once: every message arrives, each task's in its order")
    func manySenders() async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/many.sock"
        let (senders, each) = (8, 2_000)
        let router = try SocketThread(context: context, kind: .router, name: "router", receiveBuffer: senders * each) {
            try $0.setHighWaterMarks(send: 100_000, receive: 100_000)
            try $0.bind(endpoint)
        }
        let dealer = try SocketThread(context: context, kind: .dealer, name: "dealer") {
            try $0.setHighWaterMarks(send: 100_000, receive: 100_000)
            try $0.connect(endpoint)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for index in 0..<each { try dealer.send([Array("\(sender):\(index)".utf8)]) }
                }
            }
            try await group.waitForAll()
        }
        var next = [Int](repeating: 0, count: senders)
        var iterator = router.incoming.makeAsyncIterator()
        for _ in 0..<(senders * each) {
            let message = try #require(await iterator.next())
            let parts = String(decoding: message[1], as: UTF8.self).split(separator: ":").compactMap { Int($0) }
            try #require(parts.count == 2)
            #expect(parts[1] == next[parts[0]], "sender \(parts[0]) out of order")
            next[parts[0]] = parts[1] + 1
        }
        #expect(next == [Int](repeating: each, count: senders))
        await dealer.close()
        await router.close()
        await context.terminate()
    }

    @Test(
        "a send libzmq cannot take now waits in order and leaves once the peer reads: nothing is lost",
        arguments: [false, true])
    func sendThatWouldBlock(borrowed: Bool) async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/blocked.sock"
        // A peer that reads nothing until the sender is far past every queue: 300 messages of
        // 10 KB against high-water marks of 2 and the kernel's socket buffers.
        let reader = try ZMQSocket(context: context, kind: .pair)
        try reader.setHighWaterMarks(send: 2, receive: 2)
        try reader.setTimeouts(send: 5_000, receive: 5_000)
        try reader.bind(endpoint)
        let sender = try SocketThread(context: context, kind: .pair, name: "sender") {
            try $0.setHighWaterMarks(send: 2, receive: 2)
            try $0.connect(endpoint)
        }
        // Each payload differs, so a queued message that kept the caller's bytes by reference (the
        // borrowed form's buffers are gone once `send` returns) would arrive wrong.
        @Sendable func payload(_ index: Int) -> [UInt8] { [UInt8](repeating: UInt8(index % 251), count: 10_000) }
        for index in 0..<300 {
            let label = Array("\(index)".utf8)
            if borrowed {
                try label.withUnsafeBytes { label in
                    try payload(index).withUnsafeBytes { body in try sender.send(label, body) }
                }
            } else {
                try sender.send([label, payload(index)])
            }
        }
        let handoff = ThreadHandoff(reader)
        let received = try await offPool { () -> [Int] in
            let reader = handoff.take()
            var numbers: [Int] = []
            while numbers.count < 300, let message = try reader.receive() {
                let number = Int(String(decoding: message[0], as: UTF8.self)) ?? -1
                numbers.append(message.count == 2 && message[1] == payload(number) ? number : -1)
            }
            reader.close()
            return numbers
        }
        #expect(received == Array(0..<300))
        await sender.close()
        await context.terminate()
    }

    @Test("sends racing the socket's close either go or throw 'closed'; the close completes")
    func sendsRaceClose() async throws {
        let context = try ZMQContext()
        for _ in 0..<20 {
            let home = try TemporaryHome()
            let endpoint = "ipc://\(home.path)/race.sock"
            let sink = try SocketThread(context: context, kind: .pair, name: "sink") { try $0.bind(endpoint) }
            let source = try SocketThread(context: context, kind: .pair, name: "source") {
                try $0.setLinger(milliseconds: 0)
                try $0.connect(endpoint)
            }
            // The close comes once sends are under way (the first 64 of one sender), not after a guess.
            let sending = AsyncSignal()
            let sent = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var count = 0
                        while true {
                            do {
                                try source.send([[1, 2, 3]])
                                count += 1
                            } catch {
                                return count
                            }
                            if count % 64 == 0 {
                                sending.fire()
                                await Task.yield()
                            }
                        }
                    }
                }
                group.addTask {
                    #expect(await sending.wait(timeout: .seconds(10)))
                    await source.close()
                    return 0
                }
                return try await group.reduce(0, +)
            }
            #expect(sent > 0)
            #expect(throws: SocketThreadError.self) { try source.send([[1]]) }
            await sink.close()
        }
        await context.terminate()
    }

    @Test(
        "input arriving while the caller sends is read, whether sends look for it (urgent) or not",
        arguments: [true, false])
    func inputWhileSending(urgentInput: Bool) async throws {
        let context = try ZMQContext()
        let home = try TemporaryHome()
        let endpoint = "ipc://\(home.path)/both-ways.sock"
        let peer = try SocketThread(context: context, kind: .pair, name: "peer") { try $0.bind(endpoint) }
        // When each message reached the socket's own thread: timed there, not where the test's task
        // next runs (the full suite keeps the cooperative pool busy for a second and more).
        let clock = ContinuousClock()
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        let socket = try SocketThread(
            context: context, kind: .pair, name: "sender",
            intercept: { _ in
                arrivals.withLock { $0.append(clock.now) }
                return false
            },
            urgentInput: urgentInput
        ) {
            try $0.setHighWaterMarks(send: 100_000, receive: 100_000)
            try $0.connect(endpoint)
        }
        socket.start()
        // The caller sends every 2 ms, so each send is past libzmq's ~1 ms throttle and runs the
        // socket's commands (where it can take the signal that the peer's message is waiting).
        let sending = Task {
            while !Task.isCancelled {
                try? socket.send([[0]])
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        var iterator = socket.incoming.makeAsyncIterator()
        var sent: [ContinuousClock.Instant] = []
        for index in 0..<40 {
            sent.append(clock.now)
            try peer.send([Array("\(index)".utf8)])
            let message = try #require(await iterator.next())
            #expect(message == [Array("\(index)".utf8)])
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...3)))
        }
        sending.cancel()
        // Nothing is stranded: input a send hid from the thread waits at most for its next pass
        // (its wait is 250 ms; a message never read would hang the test to its time limit). The
        // bound leaves room for the full suite's load on two cores.
        let slowest = zip(sent, arrivals.withLock { $0 }).map { $1 - $0 }.max() ?? .zero
        #expect(arrivals.withLock { $0.count } == 40)
        #expect(slowest < .seconds(3), "slowest \(slowest)")
        await socket.close()
        await peer.close()
        await context.terminate()
    }
}
