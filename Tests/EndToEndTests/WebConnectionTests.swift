import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Synchronization
import Testing

/// The household page's process under connections that send nothing, sit idle, or name another
/// host: each is closed or refused, and it never holds more than `[web] max_connections`.
@Suite("End to end: the page's connections are bounded", .serialized, .timeLimit(.minutes(2)))
struct WebConnectionTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// A TCP connection to 127.0.0.1:`port` (blocking calls; run off the pool).
    static func connect(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw SystemCallError.last("connect") }
        return fd
    }

    /// Whether the server closes `fd` (a read returns 0) within `seconds`, after reading whatever it sends.
    static func closedByServer(_ fd: Int32, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1_000)))
            if ready <= 0 { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return true }
        }
        return false
    }

    /// What a request on a new connection gets back (the status line and the body).
    static func ask(_ port: Int, _ request: String) throws -> String {
        let fd = try connect(port)
        defer { close(fd) }
        _ = request.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, request.utf8.count) }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            reply += buffer[0..<count]
        }
        return String(decoding: reply, as: UTF8.self)
    }

    @Test(
        "connections that send nothing are closed after the header timeout, idle ones after the idle timeout, at most max_connections at once; a foreign Host is refused"
    )
    func boundedConnections() async throws {
        let home = try TemporaryHome()
        try """
        [web]
        header_timeout = "1s"
        idle_timeout = "2s"
        max_connections = 20
        """.write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let stack = try await TestStack([.bus, .store, .web], home: home, context: context)
        let web = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.web), timeout: .seconds(5))
        let url = try #require(try await web.request("ping")["url"]?.stringValue)
        let port = try #require(Int(url.split(separator: ":").last ?? ""))
        let pid = try #require(stack.processes[.web]?.pid)
        let descriptors: @Sendable () -> Int = {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        }
        let before = descriptors()
        _ = try await hearthSucceeding(stack, ["event", "set", "may", "--year", "2026", "--title", "Secret trip"])
        let outcome = try await offPool {
            () throws -> (held: Int, closed: Int, idleClosed: Bool, foreign: String, own: String) in
            // 40 connections that send nothing.
            let silent = try (0..<40).map { _ in try Self.connect(port) }
            defer { for fd in silent { close(fd) } }
            Thread.sleep(forTimeInterval: 0.5)  // let the server accept what it will
            let held = descriptors() - before
            // Every one is closed: the first 20 after 1 s, the rest once accepted, 1 s later.
            let closed = silent.filter { Self.closedByServer($0, within: 6) }.count
            // One request, then idle: closed after the idle timeout.
            let idle = try Self.connect(port)
            defer { close(idle) }
            let request = "GET /year?year=2026 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            _ = request.utf8CString.withUnsafeBufferPointer { write(idle, $0.baseAddress, request.utf8.count) }
            let idleClosed = Self.closedByServer(idle, within: 5)
            let foreign = try Self.ask(
                port, "GET /year?year=2026 HTTP/1.1\r\nHost: evil.example:\(port)\r\nConnection: close\r\n\r\n")
            let own = try Self.ask(
                port, "GET /year?year=2026 HTTP/1.1\r\nHost: localhost:\(port)\r\nConnection: close\r\n\r\n")
            return (held, closed, idleClosed, foreign, own)
        }
        #expect(outcome.held <= 20 + 2, "the page held \(outcome.held) descriptors for 40 silent connections")
        #expect(outcome.closed == 40)
        #expect(outcome.idleClosed)
        #expect(outcome.foreign.hasPrefix("HTTP/1.1 400"), "\(outcome.foreign.prefix(200))")
        #expect(!outcome.foreign.contains("Secret trip"))
        #expect(outcome.own.hasPrefix("HTTP/1.1 200"), "\(outcome.own.prefix(200))")
        #expect(outcome.own.contains("Secret trip"))
        await web.close()
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    /// A stranger's flood: `count` connections that send `greeting` (or nothing) and then nothing
    /// more, each opened again as soon as the page closes it, on a thread of its own until `stop`.
    final class Flood: Sendable {
        let greeting: String?
        let stop = Atomic<Bool>(false)
        let opened = Atomic<Int>(0)

        init(greeting: String?) { self.greeting = greeting }

        func run(port: Int, count: Int) {
            var open: [Int32] = []
            defer { for fd in open { close(fd) } }
            while !stop.load(ordering: .relaxed) {
                while open.count < count, let fd = try? WebConnectionTests.connect(port) {
                    if let greeting {
                        _ = greeting.utf8CString.withUnsafeBufferPointer {
                            write(fd, $0.baseAddress, greeting.utf8.count)
                        }
                    }
                    open.append(fd)
                    opened.add(1, ordering: .relaxed)
                }
                var entries = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                guard poll(&entries, nfds_t(entries.count), 50) > 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 1_024)
                for entry in entries where entry.revents != 0 && read(entry.fd, &buffer, buffer.count) <= 0 {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
    }

    @Test(
        "beyond loopback, a stranger's idle connections, reopened as they close, hold a few slots: a request with the token is served at once",
        arguments: [
            // Silent: the kernel holds them (TCP_DEFER_ACCEPT).
            nil,
            // Half a request, then nothing: the page's share of slots for them.
            "GET /year HTTP/1.1\r\nHost: localhost\r\n",
        ])
    func strangerShare(greeting: String?) async throws {
        let home = try TemporaryHome()
        // 16 household slots and a share of 4 for connections without the token; the header
        // timeout (10 s) is what held a slot before.
        try """
        [web]
        max_connections = 16
        """.write(toFile: home.file("hearth.toml"), atomically: true, encoding: .utf8)
        let stack = try await TestStack(
            [.bus, .store, .web], home: home, environment: ["HEARTH_WEB_LISTEN": "0.0.0.0:0"], context: context)
        let web = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.web), timeout: .seconds(5))
        let url = try #require(try await web.request("ping")["url"]?.stringValue)
        let port = try #require(Int(url.split(separator: ":").last ?? ""))
        let token = try #require(HouseholdToken.read(home: stack.home.path))
        let pid = try #require(stack.processes[.web]?.pid)
        let descriptors: @Sendable () -> Int = {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        }
        _ = try await hearthSucceeding(stack, ["event", "set", "may", "--year", "2026", "--title", "Secret trip"])
        // One request first, so the page's own sockets to the store are open before counting.
        let warm = try await offPool {
            try Self.ask(
                port,
                "GET /year?year=2026 HTTP/1.1\r\nHost: localhost:\(port)\r\nCookie: hearth_token=\(token)\r\n"
                    + "Connection: close\r\n\r\n")
        }
        #expect(warm.hasPrefix("HTTP/1.1 200"), "\(warm.prefix(200))")
        let before = descriptors()
        let flood = Flood(greeting: greeting)
        let flooding = Thread { flood.run(port: port, count: 100) }
        flooding.start()
        defer { flood.stop.store(true, ordering: .relaxed) }
        let outcome = try await offPool {
            () throws -> (answers: [String], slowest: Double, held: Int, stranger: String) in
            // The flood first holds whatever the page lets it.
            while flood.opened.load(ordering: .relaxed) < 200 { Thread.sleep(forTimeInterval: 0.05) }
            var answers: [String] = []
            var slowest = 0.0
            var held = 0
            for _ in 0..<10 {
                let started = Date()
                answers.append(
                    try Self.ask(
                        port,
                        "GET /year?year=2026 HTTP/1.1\r\nHost: localhost:\(port)\r\nCookie: hearth_token=\(token)\r\n"
                            + "Connection: close\r\n\r\n"))
                slowest = max(slowest, Date().timeIntervalSince(started))
                held = max(held, descriptors() - before)
            }
            let stranger = try Self.ask(
                port, "GET /year?year=2026 HTTP/1.1\r\nHost: localhost:\(port)\r\nConnection: close\r\n\r\n")
            return (answers, slowest, held, stranger)
        }
        flood.stop.store(true, ordering: .relaxed)
        print("web under a stranger's flood: slowest answer \(outcome.slowest) s, \(outcome.held) descriptors held")
        for answer in outcome.answers {
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
            #expect(answer.contains("Secret trip"))
        }
        #expect(outcome.slowest < 2, "a request with the token waited \(outcome.slowest) s")
        // At most the household's 16 and the share of 4 accepted (the request itself among them),
        // and a few more: the listener takes up to 4 connections a read before the limit is
        // seen (NIO's accept batch), and closes take a moment (25 once beside the whole suite).
        #expect(outcome.held <= 16 + 4 + 6, "the page held \(outcome.held) descriptors")
        // A stranger's request is still answered, and refused.
        #expect(
            outcome.stranger.isEmpty || outcome.stranger.hasPrefix("HTTP/1.1 401"), "\(outcome.stranger.prefix(200))")
        #expect(!outcome.stranger.contains("Secret trip"))
        await web.close()
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
