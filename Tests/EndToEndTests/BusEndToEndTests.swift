import Foundation
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// Real `hearth-bus` and `hearth` processes on a temporary HEARTH_HOME.
@Suite("End to end: bus and command line", .serialized, .timeLimit(.minutes(2)))
struct BusEndToEndTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("hearth monitor --json prints what hearth publish sent")
    func monitorSeesPublish() async throws {
        let stack = try await TestStack(context: context)
        let monitor = try await ChildProcess("hearth", ["monitor", "--json"], environment: stack.environment)
        #expect(await monitor.errors.waitForLine(containing: "watching") != nil, "\(monitor.errors.text)")

        let published = try await ChildProcess.run(
            "hearth", ["publish", "turn.J7X-3.changed", #"{"player":"Ann","seq":3}"#], environment: stack.environment)
        #expect(published.status == 0, "\(published.stderr)")

        let line = try #require(await monitor.output.waitForLine(containing: "turn.J7X-3.changed"))
        let value = try JSONValue.parse(line)
        #expect(value["topic"] == "turn.J7X-3.changed")
        #expect(value["event"]?["src"] == "cli")
        #expect(value["event"]?["v"] == 1)
        #expect(value["event"]?["data"] == ["player": "Ann", "seq": 3])

        monitor.signal(SIGINT)
        #expect(await monitor.waitForExit(timeout: .seconds(1)) == 0)
        stack.process.signal(SIGTERM)
        #expect(await stack.process.waitForExit(timeout: .seconds(1)) == 0)
    }

    @Test("hearth monitor with prefixes shows only matching topics, in text")
    func monitorPrefixes() async throws {
        let stack = try await TestStack(context: context)
        let monitor = try await ChildProcess("hearth", ["monitor", "turn."], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)
        for (topic, data) in [("store.event.changed", #"{"a":1}"#), ("turn.ABC-2.changed", #"{"player":"Ben"}"#)] {
            let result = try await ChildProcess.run("hearth", ["publish", topic, data], environment: stack.environment)
            #expect(result.status == 0)
        }
        let line = try #require(await monitor.output.waitForLine(containing: "turn.ABC-2.changed"))
        #expect(line.contains("cli#2"))
        #expect(line.contains(#"{"player":"Ben"}"#))
        #expect(!monitor.output.text.contains("store.event.changed"))
        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit(timeout: .seconds(1)) == 0)
    }

    @Test("hearth status reports every service up, then the bus down once it is stopped")
    func statusUpThenDown() async throws {
        let stack = try await TestStack(HearthService.launched, context: context)
        let up = try await ChildProcess.run("hearth", ["status", "--json"], environment: stack.environment)
        #expect(up.status == 0, "\(up.stdout) \(up.stderr)")
        let report = try JSONValue.parse(up.stdout)
        #expect(report["all_up"] == true)
        let services = report["services"]?.arrayValue ?? []
        #expect(Set(services.compactMap { $0["name"]?.stringValue }) == Set(HearthService.launched.map(\.rawValue)))
        #expect(services.allSatisfy { $0["rtt_ms"]?.doubleValue != nil })

        stack.process.signal(SIGTERM)
        #expect(await stack.process.waitForExit(timeout: .seconds(1)) == 0)

        let down = try await ChildProcess.run(
            "hearth", ["status", "--timeout", "200"], environment: stack.environment)
        #expect(down.status == 1)
        let busLine = down.stdout.split(separator: "\n").first { $0.hasPrefix("bus") }
        #expect(busLine?.contains("down") == true, "\(down.stdout)")
        let storeLine = down.stdout.split(separator: "\n").first { $0.hasPrefix("store") }
        #expect(storeLine?.contains(" up ") == true, "\(down.stdout)")
        for status in await stack.stop().values { #expect(status == 0) }
    }

    @Test("hearth publish rejects a bad topic or bad JSON with exit code 2 and says why")
    func publishRejects() async throws {
        let home = try TemporaryHome()
        let environment = ["HEARTH_HOME": home.path]
        let badTopic = try await ChildProcess.run("hearth", ["publish", "turn..x", "{}"], environment: environment)
        #expect(badTopic.status == 2)
        #expect(badTopic.stderr.contains("segments between dots must not be empty"), "\(badTopic.stderr)")
        let badJSON = try await ChildProcess.run("hearth", ["publish", "turn.x", "{nope"], environment: environment)
        #expect(badJSON.status == 2)
        #expect(badJSON.stderr.contains("not valid JSON"), "\(badJSON.stderr)")
        let noBus = try await ChildProcess.run(
            "hearth", ["publish", "turn.x", "{}", "--timeout", "200"], environment: environment)
        #expect(noBus.status == 1)
        #expect(noBus.stderr.contains("no bus"), "\(noBus.stderr)")
    }

    @Test("hearth config --json prints the resolved endpoints, honouring overrides")
    func config() async throws {
        let home = try TemporaryHome()
        let result = try await ChildProcess.run(
            "hearth", ["config", "--json"],
            environment: ["HEARTH_HOME": home.path, "HEARTH_BUS_CMD": "tcp://127.0.0.1:7199"])
        #expect(result.status == 0, "\(result.stderr)")
        let value = try JSONValue.parse(result.stdout)
        #expect(value["home"]?.stringValue == home.path)
        #expect(value["bus.pub"]?.stringValue == "ipc://\(home.path)/run/bus-pub.sock")
        #expect(value["bus.sub"]?.stringValue == "ipc://\(home.path)/run/bus-sub.sock")
        #expect(value["bus.cmd"]?.stringValue == "tcp://127.0.0.1:7199")
    }

    @Test("the bus works over tcp:// when configured so")
    func tcpEndpoints() async throws {
        let ports = try FreePorts.take(3)
        let environment = [
            "HEARTH_BUS_PUB": "tcp://127.0.0.1:\(ports[0])", "HEARTH_BUS_SUB": "tcp://127.0.0.1:\(ports[1])",
            "HEARTH_BUS_CMD": "tcp://127.0.0.1:\(ports[2])",
        ]
        let stack = try await TestStack(environment: environment, context: context)
        let monitor = try await ChildProcess("hearth", ["monitor", "--json"], environment: stack.environment)
        #expect(await monitor.errors.waitForLine(containing: "watching tcp://") != nil, "\(monitor.errors.text)")
        let result = try await ChildProcess.run(
            "hearth", ["publish", "tcp.works", "true"], environment: stack.environment)
        #expect(result.status == 0)
        try #require(await monitor.output.waitForLine(containing: "tcp.works") != nil)
        monitor.signal(SIGTERM)
        stack.process.signal(SIGTERM)
        #expect(await monitor.waitForExit(timeout: .seconds(1)) == 0)
        #expect(await stack.process.waitForExit(timeout: .seconds(1)) == 0)
    }

    @Test(
        "a restarted bus is a new epoch: hearth monitor shows its events at once, not after its seq passes the old one")
    func busRestartSeenByMonitor() async throws {
        let stack = try await TestStack([.bus], environment: ["HEARTH_BUS_HEARTBEAT_MS": "50"], context: context)
        let monitor = try await ChildProcess(
            "hearth", ["monitor", "--json", "health.bus"], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)
        @Sendable func event(_ line: String) -> JSONValue { (try? JSONValue.parse(line))?["event"] ?? .null }
        // Let the first bus's numbering climb well past where a restarted one begins.
        let climbed = try #require(await monitor.output.waitForLine { (event($0)["seq"]?.intValue ?? 0) >= 40 })
        let oldEpoch = try #require(event(climbed)["ep"]?.intValue)

        stack.process.signal(SIGKILL)
        #expect(await stack.process.waitForExit(timeout: .seconds(5)) == -SIGKILL)
        let restarted = try await TestStack.start(.bus, environment: stack.environment)
        let fresh = try #require(
            await monitor.output.waitForLine { line in
                let ep = event(line)["ep"]?.intValue
                return ep != nil && ep != oldEpoch
            })
        #expect((event(fresh)["seq"]?.intValue ?? .max) < 40, "\(fresh)")
        monitor.signal(SIGTERM)
        #expect(await monitor.waitForExit(timeout: .seconds(2)) == 0)
        restarted.signal(SIGTERM)
        #expect(await restarted.waitForExit(timeout: .seconds(2)) == 0)
    }

    @Test("SIGTERM: every process exits 0 within 1 s, even under traffic")
    func sigterm() async throws {
        let stack = try await TestStack(
            HearthService.launched, environment: ["HEARTH_BUS_HEARTBEAT_MS": "50"], context: context)
        let ledger = stack.home.file("ledger.txt")
        let fixture = try await ChildProcess(
            "hearth-fixture", ["--endpoint", "ipc://\(stack.home.path)/run/fixture.sock", "--ledger", ledger],
            environment: stack.environment)
        try #require(await fixture.output.waitForLine(containing: "ready") != nil)
        let monitor = try await ChildProcess("hearth", ["monitor"], environment: stack.environment)
        try #require(await monitor.errors.waitForLine(containing: "watching") != nil)
        try #require(await monitor.output.waitForLine(containing: "health.bus") != nil)

        let everyone = [monitor, fixture] + Array(stack.processes.values)
        // Every exit is timed from the one moment all were signalled, each awaited at once.
        let clock = ContinuousClock()
        let signalled = clock.now
        for process in everyone { process.signal(SIGTERM) }
        await withTaskGroup(of: Void.self) { group in
            for process in everyone {
                group.addTask {
                    let status = await process.waitForExit(timeout: .seconds(2))
                    let took = clock.now - signalled
                    #expect(status == 0, "\(process.name) exited \(String(describing: status)): \(process.errors.text)")
                    #expect(took < .seconds(1), "\(process.name) took \(took) to exit after SIGTERM")
                }
            }
        }
    }
}

/// Free loopback TCP ports, found by binding port 0 and reading what the kernel chose.
/// Ports for a test to bind later, free when taken, and below the kernel's ephemeral range
/// (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 by default): a port the kernel handed
/// out for bind(0) and that was closed again can be given to any outgoing connection as its
/// source port before the test binds it (the browser test's hearth-web once found its port so
/// taken: "Address already in use"); below that range only an explicit bind takes a port.
enum FreePorts {
    static func take(_ count: Int) throws -> [Int] {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let ephemeralStart = range?.first ?? 32_768
        var ports: [Int] = []
        var attempts = 0
        while ports.count < count {
            attempts += 1
            guard attempts <= 1_000 else { throw SystemCallError.last("no free port below \(ephemeralStart)") }
            let port = Int.random(in: 10_000..<max(10_001, ephemeralStart))
            guard !ports.contains(port), isFree(port) else { continue }
            ports.append(port)
        }
        return ports
    }

    /// Whether 127.0.0.1:`port` can be bound now (tried, then let go).
    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
