import HearthBus
import Testing

/// `MessageForwarder` hands libzmq's own message buffers from one socket to another. These tests
/// use inproc PAIR sockets: an inproc send is in the peer's pipe when `zmq_send` returns, so
/// every step can be checked at once, without waiting.
@Suite("message forwarder", .timeLimit(.minutes(1)))
struct MessageForwarderTests {
    /// A sender → source ⇒ destination → receiver chain of PAIR sockets.
    struct Chain {
        let sender: ZMQSocket
        let source: ZMQSocket
        let destination: ZMQSocket
        let receiver: ZMQSocket

        init(context: ZMQContext, highWaterMark: Int32 = 1_000) throws {
            let name = "forwarder-\(UUIDText.make())"
            source = try ZMQSocket(context: context, kind: .pair)
            try source.bind("inproc://\(name)-in")
            sender = try ZMQSocket(context: context, kind: .pair)
            try sender.connect("inproc://\(name)-in")
            destination = try ZMQSocket(context: context, kind: .pair)
            try destination.setHighWaterMarks(send: highWaterMark, receive: highWaterMark)
            try destination.bind("inproc://\(name)-out")
            receiver = try ZMQSocket(context: context, kind: .pair)
            try receiver.setHighWaterMarks(send: highWaterMark, receive: highWaterMark)
            try receiver.connect("inproc://\(name)-out")
        }

        func close() {
            for socket in [sender, source, destination, receiver] {
                try? socket.setLinger(milliseconds: 0)
                socket.close()
            }
        }
    }

    @Test("messages arrive whole and unchanged; refused and over-long ones are dropped, and the next still passes")
    func forwards() async throws {
        let context = try ZMQContext()
        let chain = try Chain(context: context)
        var forwarder = MessageForwarder(capacity: 3)
        // A small part (libzmq keeps it inside the message) beside a large one (its own buffer).
        let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let messages: [[Frame]] = [
            [Array("a.b".utf8), large],
            [[1], [2], [3], [4], [5]],
            [Array("refuse.me".utf8), [9]],
            [[], [1, 2, 3]],
        ]
        for message in messages { try chain.sender.send(message) }

        var seen: [[Frame]] = []
        func accept(_ parts: borrowing MessageForwarder.Parts) -> Bool {
            let frames = (0..<parts.count).map { Array(parts[$0]) }
            seen.append(frames)
            return frames.first != Array("refuse.me".utf8)
        }
        #expect(try forwarder.forward(from: chain.source, to: chain.destination, accept: accept) == .sent)
        #expect(try chain.receiver.receive(dontWait: true) == messages[0])
        #expect(try forwarder.forward(from: chain.source, to: chain.destination, accept: accept) == .refused)
        #expect(try forwarder.forward(from: chain.source, to: chain.destination, accept: accept) == .refused)
        #expect(try forwarder.forward(from: chain.source, to: chain.destination, accept: accept) == .sent)
        #expect(try chain.receiver.receive(dontWait: true) == messages[3])
        #expect(try forwarder.forward(from: chain.source, to: chain.destination, accept: accept) == .none)
        #expect(try chain.receiver.receive(dontWait: true) == nil, "a refused message reached the receiver")
        // The five-part message was never shown to `accept`; the others were, in place and whole.
        #expect(seen == [messages[0], messages[2], messages[3]])
        chain.close()
        await context.terminate()
    }

    @Test("a destination that cannot take more drops the message instead of blocking, and what it took is intact")
    func full() async throws {
        let context = try ZMQContext()
        let chain = try Chain(context: context, highWaterMark: 1)
        var forwarder = MessageForwarder(capacity: 2)
        let count = 20
        for index in 0..<count { try chain.sender.send([Array("n.\(index)".utf8), [UInt8(index)]]) }
        var outcomes: [MessageForwarder.Outcome] = []
        for _ in 0..<count {
            outcomes.append(try forwarder.forward(from: chain.source, to: chain.destination) { _ in true })
        }
        let sent = outcomes.prefix { $0 == .sent }.count
        #expect(sent > 0 && sent < count, "\(outcomes)")
        #expect(outcomes.dropFirst(sent).allSatisfy { $0 == .dropped }, "\(outcomes)")
        for index in 0..<sent {
            #expect(try chain.receiver.receive(dontWait: true) == [Array("n.\(index)".utf8), [UInt8(index)]])
        }
        #expect(try chain.receiver.receive(dontWait: true) == nil)
        chain.close()
        await context.terminate()
    }
}
