import CZeroMQ
import Foundation
import HearthBus
import Synchronization

/// Baselines written straight against the libzmq C API, with nothing of Hearth in the path.
enum RawZeroMQ {
    /// Throughput of `count` two-frame messages, PUB → XSUB/XPUB `zmq_proxy` → SUB, over ipc.
    static func proxyThroughput(
        count: Int, topic: [UInt8], body: [UInt8], directory: String, highWaterMark: Int32
    )
        -> Throughput
    {
        let context = zmq_ctx_new()!
        let pubEndpoint = "ipc://\(directory)/raw-pub.sock"
        let subEndpoint = "ipc://\(directory)/raw-sub.sock"
        let xsub = socket(context, ZMQ_XSUB, highWaterMark)
        let xpub = socket(context, ZMQ_XPUB, highWaterMark)
        zmq_bind(xsub, pubEndpoint)
        zmq_bind(xpub, subEndpoint)
        let proxySockets = (RawHandle(xsub), RawHandle(xpub))
        let proxy = Thread {
            // Returns when the context is terminated.
            zmq_proxy(proxySockets.0.pointer, proxySockets.1.pointer, nil)
            zmq_close(proxySockets.0.pointer)
            zmq_close(proxySockets.1.pointer)
        }
        proxy.start()

        let sub = socket(context, ZMQ_SUB, highWaterMark)
        zmq_setsockopt(sub, ZMQ_SUBSCRIBE, "", 0)
        zmq_connect(sub, subEndpoint)
        let pub = socket(context, ZMQ_PUB, highWaterMark)
        zmq_connect(pub, pubEndpoint)
        var timeout: Int32 = 10
        zmq_setsockopt(sub, ZMQ_RCVTIMEO, &timeout, 4)
        // Warm up until a message makes it through end to end, then drain.
        let warm = Array("warm".utf8)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var ready = false
        while !ready {
            sendTwoFrames(pub, warm, body)
            ready = zmq_recv(sub, &buffer, buffer.count, 0) >= 0
        }
        while zmq_recv(sub, &buffer, buffer.count, 0) >= 0 {}

        let receiver = Receiver(count: count) { () -> Bool in
            var more: Int32 = 0
            var size = 4
            repeat {
                if zmq_recv(sub, &buffer, buffer.count, 0) < 0 { return false }
                zmq_getsockopt(sub, ZMQ_RCVMORE, &more, &size)
            } while more != 0
            return true
        }
        var idle: Int32 = 1_000
        zmq_setsockopt(sub, ZMQ_RCVTIMEO, &idle, 4)
        let started = Date()
        receiver.start()
        for index in 0..<count {
            if index % 256 == 0 {
                while index - receiver.received > flowWindow { usleep(20) }
            }
            sendTwoFrames(pub, topic, body)
        }
        let result = receiver.wait(started: started, sent: count)
        zmq_close(pub)
        zmq_close(sub)
        zmq_ctx_term(context)
        return result
    }

    /// Round-trip times of `count` requests, DEALER → ROUTER echo → DEALER, over ipc.
    static func roundTrips(count: Int, warmup: Int, payload: [UInt8], directory: String) -> [Double] {
        let context = zmq_ctx_new()!
        let endpoint = "ipc://\(directory)/raw-rtt.sock"
        let router = socket(context, ZMQ_ROUTER, 10_000)
        zmq_bind(router, endpoint)
        let serverSocket = RawHandle(router)
        let server = Thread {
            let router = serverSocket.pointer
            var message = zmq_msg_t()
            while true {
                var frames: [[UInt8]] = []
                zmq_msg_init(&message)
                repeat {
                    if zmq_msg_recv(&message, router, 0) < 0 {
                        zmq_msg_close(&message)
                        zmq_close(router)
                        return
                    }
                    let size = zmq_msg_size(&message)
                    let base = zmq_msg_data(&message)!.assumingMemoryBound(to: UInt8.self)
                    frames.append(Array(UnsafeBufferPointer(start: base, count: size)))
                } while zmq_msg_more(&message) != 0
                zmq_msg_close(&message)
                for (index, frame) in frames.enumerated() {
                    _ = frame.withUnsafeBytes {
                        zmq_send(router, $0.baseAddress, $0.count, index < frames.count - 1 ? ZMQ_SNDMORE : 0)
                    }
                }
            }
        }
        server.start()
        let dealer = socket(context, ZMQ_DEALER, 10_000)
        zmq_connect(dealer, endpoint)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for index in 0..<(warmup + count) {
            let start = DispatchTime.now().uptimeNanoseconds
            zmq_send(dealer, nil, 0, ZMQ_SNDMORE)
            _ = payload.withUnsafeBytes { zmq_send(dealer, $0.baseAddress, $0.count, 0) }
            var more: Int32 = 0
            var size = 4
            repeat {
                zmq_recv(dealer, &buffer, buffer.count, 0)
                zmq_getsockopt(dealer, ZMQ_RCVMORE, &more, &size)
            } while more != 0
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000
            if index >= warmup { samples.append(elapsed) }
        }
        zmq_close(dealer)
        zmq_ctx_shutdown(context)
        zmq_ctx_term(context)
        return samples
    }

    private static func socket(
        _ context: UnsafeMutableRawPointer, _ type: Int32, _ highWaterMark: Int32
    )
        -> UnsafeMutableRawPointer
    {
        let socket = zmq_socket(context, type)!
        var hwm = highWaterMark
        var linger: Int32 = 0
        zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, 4)
        zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, 4)
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, 4)
        return socket
    }

    private static func sendTwoFrames(_ socket: UnsafeMutableRawPointer, _ topic: [UInt8], _ body: [UInt8]) {
        _ = topic.withUnsafeBytes { zmq_send(socket, $0.baseAddress, $0.count, ZMQ_SNDMORE) }
        _ = body.withUnsafeBytes { zmq_send(socket, $0.baseAddress, $0.count, 0) }
    }
}

/// At most this many messages are in flight: the sender waits for the receiver beyond it, so
/// no run loses messages to a high-water mark (every mark is 100,000).
let flowWindow = 50_000

/// Receives on its own thread until `count` messages arrived or the socket went quiet.
final class Receiver: @unchecked Sendable {
    // `receive` and `last` are touched only by the receiving thread until `wait` has joined it
    // through the semaphore, which orders those writes before the reads; `count` is atomic.
    private let count: Int
    private let receive: () -> Bool
    private let done = DispatchSemaphore(value: 0)
    private let progress = Atomic<Int>(0)
    private var last = Date()

    var received: Int { progress.load(ordering: .relaxed) }

    init(count: Int, receive: @escaping () -> Bool) {
        self.count = count
        self.receive = receive
    }

    func start() {
        Thread { [self] in
            while received < count, receive() {
                progress.add(1, ordering: .relaxed)
                last = Date()
            }
            done.signal()
        }.start()
    }

    func wait(started: Date, sent: Int) -> Throughput {
        done.wait()
        return Throughput(sent: sent, received: received, seconds: last.timeIntervalSince(started))
    }
}

/// Messages delivered per second over one run.
struct Throughput {
    let sent: Int
    let received: Int
    let seconds: Double

    var perSecond: Double { seconds > 0 ? Double(received) / seconds : 0 }

    /// Two runs pooled: all they delivered over all their time.
    static func + (first: Throughput, second: Throughput) -> Throughput {
        Throughput(
            sent: first.sent + second.sent, received: first.received + second.received,
            seconds: first.seconds + second.seconds)
    }

    var json: JSONValue {
        [
            "sent": .int(Int64(sent)), "received": .int(Int64(received)), "seconds": .double(seconds),
            "messages_per_s": .double(perSecond.rounded()),
        ]
    }
}

/// A raw libzmq socket handed to the one thread that uses it from then on (libzmq allows a socket
/// to move between threads across a full memory barrier, which `Thread.start()` is).
struct RawHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
