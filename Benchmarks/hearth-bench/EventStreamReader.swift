import Foundation
import HearthBus
import Synchronization

/// Many open pages' event streams (`/events`) read on one thread of their own with poll(2): raw
/// HTTP/1.1 over loopback sockets, so the figure is the server's, not a client library's. Records
/// when each `event: change` line arrives on each connection.
final class EventStreamReader: Sendable {
    private struct State {
        var hellos = 0
        var arrivals: [[ContinuousClock.Instant]]
        var finished = false
        var failure: String?
    }

    private let state: Mutex<State>
    private let connected = AsyncSignal()
    private let done = AsyncSignal()
    private let stop = Atomic<Bool>(false)

    /// Connects `connections` sockets to `127.0.0.1:port`, asks each for `/events`, and starts
    /// reading until each has seen `expected` change lines (or `finish` gives up).
    init(port: Int, connections: Int, expected: Int) throws {
        state = Mutex(State(arrivals: Array(repeating: [], count: connections)))
        var sockets: [Int32] = []
        for _ in 0..<connections {
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw SystemCallError.last("socket") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Foundation.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else { throw SystemCallError.last("connect 127.0.0.1:\(port)") }
            let request = Array(
                "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
            guard write(socket, request, request.count) == request.count else { throw SystemCallError.last("write") }
            sockets.append(socket)
        }
        let thread = Thread { [self, sockets] in read(sockets, expected: expected) }
        thread.name = "event-streams"
        thread.start()
    }

    /// Waits until every connection has its stream's hello.
    func waitUntilConnected(timeout: Duration) async throws {
        guard await connected.wait(timeout: timeout) else {
            throw SystemCallError(code: ETIMEDOUT, operation: "waiting for every event stream's hello")
        }
    }

    /// Waits for every expected line (or `timeout`), stops reading, and returns the arrival times
    /// per connection.
    func finish(timeout: Duration) async throws -> [[ContinuousClock.Instant]] {
        _ = await done.wait(timeout: timeout)
        stop.store(true, ordering: .releasing)
        return try state.withLock { state in
            if let failure = state.failure { throw SystemCallError(code: EIO, operation: failure) }
            return state.arrivals
        }
    }

    private func read(_ sockets: [Int32], expected: Int) {
        defer { for socket in sockets { close(socket) } }
        var pending = Array(repeating: "", count: sockets.count)
        var greeted = Array(repeating: false, count: sockets.count)
        var counts = Array(repeating: 0, count: sockets.count)
        var descriptors = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !stop.load(ordering: .acquiring) {
            guard poll(&descriptors, nfds_t(descriptors.count), 100) >= 0 else { continue }
            let now = ContinuousClock.now
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let count = Foundation.read(descriptors[index].fd, &buffer, buffer.count)
                guard count > 0 else {
                    state.withLock { $0.failure = "connection \(index) closed" }
                    done.fire()
                    return
                }
                pending[index] += String(decoding: buffer[0..<count], as: UTF8.self)
                // Whole events only (a blank line ends one); chunk framing lines are ignored.
                while let end = pending[index].range(of: "\n\n") {
                    let event = pending[index][..<end.lowerBound]
                    pending[index] = String(pending[index][end.upperBound...])
                    if event.contains("event: hello"), !greeted[index] {
                        greeted[index] = true
                        let all = state.withLock { state -> Bool in
                            state.hellos += 1
                            return state.hellos == sockets.count
                        }
                        if all { connected.fire() }
                    } else if event.contains("event: change") {
                        counts[index] += 1
                        state.withLock { $0.arrivals[index].append(now) }
                    }
                }
            }
            if counts.allSatisfy({ $0 >= expected }) {
                done.fire()
                return
            }
        }
    }
}
