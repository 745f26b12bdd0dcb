import Foundation
import GRDB
import HearthBus
import HearthHost
import HearthTesting
import Synchronization
import Testing

/// A household LAN built by `deploy/lan` for one test: devices in network namespaces of their
/// own on a bridge, each running a whole Hearth stack under `ip netns exec`, reached by the test
/// (and `hearth`) over its `ipc://` sockets, which no network namespace divides.
///
/// `run` removes the LAN however the test ends; a LAN a crashed test left behind is removed by
/// the next run's `deploy/lan sweep` (its ID carries the test process's pid).
final class HouseholdLAN: Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let script = root + "/deploy/lan"
    private static let made = Atomic<Int>(0)

    let id: String
    let count: Int
    let broadcast: String

    private init(id: String, count: Int, broadcast: String) {
        (self.id, self.count, self.broadcast) = (id, count, broadcast)
    }

    /// Builds a LAN of `count` devices, runs `body`, and removes the LAN. When this machine
    /// cannot make one (not root, no `ip netns`), says why in one line and returns: under
    /// `CI=true` that is a failure, not a skip.
    static func run(devices count: Int, _ body: (HouseholdLAN) async throws -> Void) async throws {
        _ = try? await ChildProcess.run(script, ["sweep"], timeout: .seconds(30))
        let serial = made.add(1, ordering: .relaxed).newValue
        let id = "\(getpid())x\(String(serial % 36, radix: 36))"
        let up = try await ChildProcess.run(script, ["up", id, "\(count)"], timeout: .seconds(30))
        guard up.status == 0 else {
            _ = try? await ChildProcess.run(script, ["down", id], timeout: .seconds(30))
            let reason = "cannot build a LAN of network namespaces here: \(up.stderr.trimmingCharacters(in: .newlines))"
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("\(reason)") }
            print("NetworkTests skipped: \(reason)")
            return
        }
        let broadcast = try await ChildProcess.run(script, ["broadcast", id]).stdout
        let lan = HouseholdLAN(
            id: id, count: count, broadcast: broadcast.trimmingCharacters(in: .whitespacesAndNewlines))
        do {
            try await body(lan)
        } catch {
            _ = try? await ChildProcess.run(script, ["down", id], timeout: .seconds(30))
            throw error
        }
        let down = try await ChildProcess.run(script, ["down", id], timeout: .seconds(30))
        #expect(down.status == 0, "\(down.stderr)")
    }

    /// `deploy/lan COMMAND ID ARGUMENTS…`, expected to succeed.
    func lan(_ command: String, _ arguments: [String] = []) async throws {
        let result = try await ChildProcess.run(Self.script, [command, id] + arguments, timeout: .seconds(30))
        #expect(result.status == 0, "deploy/lan \(command) \(arguments): \(result.stderr)")
    }

    func address(_ device: Int) -> String {
        let parts = broadcast.split(separator: ".").dropLast()
        return (parts + ["\(device)"]).joined(separator: ".")
    }

    /// How a process is started inside device `index`'s namespace.
    func launcher(_ index: Int) -> [String] { ["/usr/sbin/ip", "netns", "exec", "hearth-\(id)-\(index)"] }
}

/// One device on the LAN: a whole stack (bus, store, sync, turn, scheduler; the notifier too,
/// on a private D-Bus session with the notification test server, when popups are looked at) in
/// its namespace, broadcasting beacons to the subnet, and `hearth monitor --json` on its bus.
final class LANDevice: Sendable {
    static let services: [HearthService] = [.bus, .store, .sync, .turn, .scheduler]

    let name: String
    let index: Int
    let lan: HouseholdLAN
    let stack: TestStack
    let id: String
    let monitor: ChildProcess
    let context: ZMQContext
    /// The D-Bus session (its socket a path, which every namespace reaches) with the notification
    /// test server, when the device runs a notifier.
    let session: DBusSession?
    /// Services killed and started again (`restart`), which `stop` stops too.
    private let restarted = Mutex<[HearthService: ChildProcess]>([:])

    init(
        _ name: String, _ index: Int, on lan: HouseholdLAN, context: ZMQContext, peers: [Int] = [],
        home: TemporaryHome? = nil, notifier: Bool = false
    ) async throws {
        (self.name, self.index, self.lan, self.context) = (name, index, lan, context)
        var environment = [
            "HEARTH_DISCOVERY_BEACON_ADDRESS": lan.broadcast, "HEARTH_TIME_ZONE": "Europe/London",
        ]
        session = notifier ? try await DBusSession(notificationServer: true, repositoryRoot: HouseholdLAN.root) : nil
        if let session { environment.merge(session.environment) { $1 } }
        if !peers.isEmpty {
            let port = DiscoverySettings().beaconPort
            environment["HEARTH_DISCOVERY_PEERS"] = peers.map { "\(lan.address($0)):\(port)" }.joined(separator: ",")
        }
        stack = try await TestStack(
            Self.services + (notifier ? [.notifier] : []), home: home, environment: environment, context: context,
            launcher: lan.launcher(index))
        id = try DeviceIdentity.load(home: stack.home.path)
        monitor = try await ChildProcess("hearth", ["monitor", "--json"], environment: stack.environment)
        _ = try #require(await monitor.errors.waitForLine(where: { $0.contains("watching") }))
        try await succeeding(["device", "rename", id, name])
    }

    /// `hearth ARGUMENTS`, expected to succeed: its output.
    @discardableResult
    func succeeding(_ arguments: [String]) async throws -> String {
        let result = try await stack.hearth(arguments)
        #expect(result.status == 0, "\(name): hearth \(arguments.joined(separator: " ")): \(result.stderr)")
        return result.stdout
    }

    /// `hearth ARGUMENTS --json`, expected to succeed, parsed.
    func json(_ arguments: [String]) async throws -> JSONValue {
        try JSONValue.parse(try await succeeding(arguments + ["--json"]))
    }

    /// The store's answer to `command`.
    func store(_ command: String, _ arguments: [String: JSONValue] = [:]) async throws -> JSONValue {
        let client = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(10))
        do {
            let reply = try await client.request(command, args: arguments)
            await client.close()
            return reply
        } catch {
            await client.close()
            throw error
        }
    }

    /// The data of the next `type` event on this device's bus matching `predicate`.
    func event(
        _ type: String, timeout: Duration = .seconds(10), from start: Int = 0,
        where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async -> JSONValue? {
        let line = await monitor.output.waitForLine(timeout: timeout, from: start) { line in
            guard let event = (try? JSONValue.parse(line))?["event"], event["type"]?.stringValue == type else {
                return false
            }
            return predicate(event["data"] ?? .null)
        }
        return line.flatMap { try? JSONValue.parse($0)["event"]?["data"] }
    }

    /// The devices this one hears by beacon now: id → the address heard from.
    func nearby() async throws -> [String: String] {
        var heard: [String: String] = [:]
        for device in try await json(["device", "nearby"])["devices"]?.arrayValue ?? [] {
            if let id = device["id"]?.stringValue { heard[id] = device["host"]?.stringValue ?? "" }
        }
        return heard
    }

    /// Everything replicated this device holds, as text to compare across devices: the
    /// operation log (ids and fields) and every materialised table of every domain.
    func replicated() throws -> [String: String] {
        let database = try DatabaseQueue(
            path: stack.home.file("hearth.sqlite"),
            configuration: {
                var c = Configuration(); c.readonly = true; return c
            }())
        return try database.read { db in
            var dump: [String: String] = [:]
            dump["operation"] = try String.fetchAll(
                db,
                sql: "SELECT id || ' ' || entity_kind || ' ' || entity_id || ' ' || fields FROM operation ORDER BY id"
            ).joined(separator: "\n")
            for table in Self.replicatedTables {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table)")
                dump[table] = rows.map { row in
                    row.columnNames.filter { !Self.localColumns.contains($0) }.map { "\($0)=\(row[$0] ?? "NULL")" }
                        .joined(separator: " ")
                }.sorted().joined(separator: "\n")
            }
            return dump
        }
    }

    /// The domains' materialised tables (those this device alone holds, such as imported busy
    /// times, reminder state and its profile, are left out).
    static let replicatedTables = [
        "event_card", "suggestion", "daily_note", "todo_collection", "todo", "todo_subtask", "todo_completion",
        "member",
        "timetable_settings", "school_bell", "school_holiday", "week_override", "timetable_entry", "person",
        "social_goal", "plan_item", "interaction", "plan_prefs",
    ]
    /// Columns that differ between devices holding the same state: none known yet.
    static let localColumns: Set<String> = []

    /// SIGKILLs `service` (as a crash would end it) and starts it again; whether it answers
    /// within 10 s.
    func restart(_ service: HearthService) async throws -> Bool {
        let running = restarted.withLock { $0[service] } ?? stack.processes[service]
        running?.signal(SIGKILL)
        _ = await running?.waitForExit(timeout: .seconds(5))
        let process = try await TestStack.start(service, environment: stack.environment, launcher: stack.launcher)
        restarted.withLock { $0[service] = process }
        return await TestStack.waitUntilAnswering(
            stack.configuration.commandEndpoint(service), context: context, timeout: .seconds(10))
    }

    /// SIGTERMs the monitor and the stack (and any service started again).
    func stop() async {
        monitor.signal(SIGTERM)
        _ = await monitor.waitForExit(timeout: .seconds(2))
        for process in restarted.withLock({ Array($0.values) }) {
            process.signal(SIGTERM)
            _ = await process.waitForExit(timeout: .seconds(2))
        }
        _ = await stack.stop()
    }
}

/// Pairing as people do it: `device pair` on one, the code compared, `device confirm` on both.
func pair(_ asker: LANDevice, _ asked: LANDevice) async throws {
    let (askedMark, askerMark) = (asked.monitor.output.lines.count, asker.monitor.output.lines.count)
    let started = try await asker.json(["device", "pair", asked.id])
    let code = try #require(started["code"]?.stringValue)
    let shown = try #require(
        await asked.event("device.pairing", from: askedMark) { $0["device"]?.stringValue == asker.id })
    #expect(shown["code"]?.stringValue == code, "both devices show one code")
    _ = try await asker.json(["device", "confirm", asked.id, "--code", code])
    let second = try await asked.json(["device", "confirm", asker.id, "--code", code])
    #expect(second["paired"] == true)
    _ = try #require(await asker.event("device.paired", from: askerMark) { $0["device"]?.stringValue == asked.id })
}

/// Polls `condition` every 100 ms for up to `timeout` (what it waits on is not an event on any
/// bus: beacons heard, another device's store); whether it came true.
func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return false
}
