import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthHost
import Synchronization

/// One device on a `HouseholdLAN`: a whole stack (bus, store, sync, turn, scheduler, and the
/// notifier on a private D-Bus session with the notification test server, unless left out) in
/// its namespace, broadcasting beacons to the subnet, and `hearth monitor --json`
/// on its bus.
public final class LANDevice: Sendable {
    public static let services: [HearthService] = [.bus, .store, .sync, .turn, .scheduler]

    public let name: String
    public let index: Int
    public let lan: HouseholdLAN
    public let stack: TestStack
    public let id: String
    public let monitor: ChildProcess
    public let context: ZMQContext
    /// The D-Bus session (its socket a path, which every namespace reaches) with the notification
    /// test server, when the device runs a notifier.
    public let session: DBusSession?
    /// Services killed and started again (`restart`), which `stop` stops too.
    private let restarted = Mutex<[HearthService: ChildProcess]>([:])

    /// Starts the device's stack in namespace `index` of `lan`.
    /// - Parameter peers: devices (by index) that get this one's beacons directly.
    public init(
        _ name: String, _ index: Int, on lan: HouseholdLAN, context: ZMQContext, peers: [Int] = [],
        notifier: Bool = true, quiet: Bool = false
    ) async throws {
        (self.name, self.index, self.lan, self.context) = (name, index, lan, context)
        var environment = [
            "HEARTH_DISCOVERY_BEACON_ADDRESS": lan.broadcast, "HEARTH_TIME_ZONE": "Europe/London",
        ]
        if quiet { environment["HEARTH_LOG_LEVEL"] = "warning" }
        if !peers.isEmpty {
            let port = DiscoverySettings().beaconPort
            environment["HEARTH_DISCOVERY_PEERS"] = peers.map { "\(lan.address($0)):\(port)" }.joined(separator: ",")
        }
        session = notifier ? try await DBusSession(notificationServer: true) : nil
        if let session { environment.merge(session.environment) { $1 } }
        stack = try await TestStack(
            Self.services + (notifier ? [.notifier] : []), environment: environment, context: context,
            launcher: lan.launcher(index))
        id = try DeviceIdentity.load(home: stack.home.path)
        monitor = try await ChildProcess("hearth", ["monitor", "--json"], environment: stack.environment)
        guard await monitor.errors.waitForLine(where: { $0.contains("watching") }) != nil else {
            throw LANError("\(name): hearth monitor never started watching")
        }
        try await succeeding(["device", "rename", id, name])
    }

    /// `hearth ARGUMENTS`, which must succeed: its output.
    @discardableResult
    public func succeeding(_ arguments: [String]) async throws -> String {
        let result = try await stack.hearth(arguments)
        guard result.status == 0 else {
            throw LANError("\(name): hearth \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return result.stdout
    }

    /// `hearth ARGUMENTS --json`, which must succeed, parsed.
    public func json(_ arguments: [String]) async throws -> JSONValue {
        try JSONValue.parse(try await succeeding(arguments + ["--json"]))
    }

    /// The store's answer to `command`.
    public func store(_ command: String, _ arguments: [String: JSONValue] = [:]) async throws -> JSONValue {
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

    /// The store's answer to `command`, as its reply type.
    public func send<C: HearthCommand>(_ command: C) async throws -> C.Reply {
        try await store(C.name, try command.arguments()).decode(C.Reply.self)
    }

    /// The data of the next `type` event on this device's bus matching `predicate`.
    public func event(
        _ type: String, timeout: Duration = .seconds(10), from start: Int = 0,
        where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async -> JSONValue? {
        await monitor.busEvent(type, timeout: timeout, from: start, where: predicate)
    }

    /// The devices this one hears by beacon now: id → the address heard from.
    public func nearby() async throws -> [String: String] {
        let list = try await json(["device", "nearby"]).decode(NearbyList.self)
        return Dictionary(list.devices.map { ($0.id, $0.host) }) { first, _ in first }
    }

    /// Pairs as people do: `device pair` here, the code compared with the one `asked` shows,
    /// `device confirm` on both.
    public func pair(with asked: LANDevice) async throws {
        let (askedMark, askerMark) = (asked.monitor.output.lines.count, monitor.output.lines.count)
        let code = try await json(["device", "pair", asked.id]).decode(PairingView.self).code ?? ""
        let me = id
        let shown = await asked.event("device.pairing", from: askedMark) {
            (try? $0.decode(PairingView.self))?.device == me
        }
        guard let shown, (try? shown.decode(PairingView.self))?.code == code else {
            throw LANError("\(asked.name) shows \(String(describing: shown)), \(name) code \(code)")
        }
        _ = try await json(["device", "confirm", asked.id, "--code", code])
        let other = asked.id
        guard try await asked.json(["device", "confirm", id, "--code", code]).decode(PairingConfirmed.self).paired,
            await event(
                "device.paired", from: askerMark, where: { (try? $0.decode(PairingEndedEvent.self))?.device == other })
                != nil
        else { throw LANError("\(name) and \(asked.name) did not pair") }
    }

    /// Everything replicated this device holds, as text to compare across devices: the
    /// operation log (ids and fields) and every materialised table of every domain.
    public func replicated() throws -> [String: String] {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: stack.home.file("hearth.sqlite"), configuration: configuration)
        return try database.read { db in
            var dump: [String: String] = [:]
            dump["operation"] = try String.fetchAll(
                db,
                sql: "SELECT id || ' ' || entity_kind || ' ' || entity_id || ' ' || fields FROM operation ORDER BY id"
            ).joined(separator: "\n")
            for table in Self.replicatedTables {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table)")
                dump[table] = rows.map { row in
                    row.columnNames.map { "\($0)=\(row[$0] ?? "NULL")" }.joined(separator: " ")
                }.sorted().joined(separator: "\n")
            }
            return dump
        }
    }

    /// The domains' materialised tables (those this device alone holds, such as imported busy
    /// times, reminder state and its profile, are left out).
    public static let replicatedTables = [
        "event_card", "suggestion", "daily_note", "todo_collection", "todo", "todo_subtask", "todo_completion",
        "todo_skip",
        "member",
        "timetable_settings", "school_bell", "school_holiday", "week_override", "timetable_entry", "person",
        "social_goal", "plan_item", "interaction", "plan_prefs",
    ]

    /// SIGKILLs `service` (as a crash would end it) and starts it again; whether it answers
    /// within 10 s.
    public func restart(_ service: HearthService) async throws -> Bool {
        let running = restarted.withLock { $0[service] } ?? stack.processes[service]
        running?.signal(SIGKILL)
        _ = await running?.waitForExit(timeout: .seconds(5))
        let process = try await TestStack.start(service, environment: stack.environment, launcher: stack.launcher)
        restarted.withLock { $0[service] = process }
        return await TestStack.waitUntilAnswering(
            stack.configuration.commandEndpoint(service), context: context, timeout: .seconds(10))
    }

    /// SIGTERMs the monitor and the stack (and any service started again).
    public func stop() async {
        monitor.signal(SIGTERM)
        _ = await monitor.waitForExit(timeout: .seconds(2))
        for process in restarted.withLock({ Array($0.values) }) {
            process.signal(SIGTERM)
            _ = await process.waitForExit(timeout: .seconds(2))
        }
        _ = await stack.stop()
    }
}
