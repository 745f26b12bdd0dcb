import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import HearthTrust
import StoreService

/// `hearth-bench sync`: what syncing costs between two real stacks on loopback.
struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Bytes on the wire for a year's first sync and an idle one; seconds to sync 10,000 operations.",
        discussion: """
            Three stacks (bus, store, hearth-sync) on this machine, found by beacon on the loopback \
            broadcast address and paired through hearth-sync's commands. (a) year_bytes: the first \
            sync of a device that holds twelve cards each edited three times (target ≤ 5 KB); \
            (b) idle_bytes: a sync when both are identical (target < 1 KB); (c) ops10k_s: the first \
            sync of an empty device with one holding 10,000 operations (target < 1 s), beside the \
            time the store took to import the same operations (ops.import, 600 a page) in this run. \
            Bytes are request and reply payloads between the two hearth-sync processes (CURVE adds \
            about 40 bytes a message). (d) signatures: the cost of signing and verifying an \
            operation (µs, one thread and every core) and the bytes a signature adds to an \
            operation, as JSON and deflated in a sync page. (e) attacks: the peak resident memory of \
            a store taking 4,000 operations from 4,000 device ids nobody vouched for, and of one \
            asked for 2,500 export pages by a client that never reads them.
            """
    )

    @Option(help: "Operations for (c).") var operations = 10_000
    @Flag(help: "Print only the JSON report.") var json = false

    /// One device: a stack and clients for its store and hearth-sync.
    struct Device {
        let stack: TestStack
        let id: String
        let store: CommandClient
        let sync: CommandClient

        init(port: Int, context: ZMQContext) async throws {
            var environment = LoopbackTurns.environment(port: port).merging(ServiceProcesses.quiet) { $1 }
            environment["HEARTH_SYNC_ENDPOINT"] = "tcp://127.0.0.1:*"
            stack = try await TestStack([.bus, .store, .sync], environment: environment, context: context)
            id = try DeviceIdentity.load(home: stack.home.path)
            store = CommandClient(
                context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(60))
            sync = CommandClient(
                context: context, endpoint: stack.configuration.commandEndpoint(.sync), timeout: .seconds(120),
                attempts: 1)
        }

        func close() async {
            await store.close()
            await sync.close()
            _ = await stack.stop()
        }
    }

    func run() async throws {
        let context = try ZMQContext()
        let port = LoopbackTurns.randomPort()
        let (ann, bob) = (
            try await Device(port: port, context: context), try await Device(port: port, context: context)
        )

        log("(a) a year of cards, each edited three times, then the first sync…")
        for round in 1...3 {
            for month in 1...12 {
                _ = try await ann.store.request(
                    "event.set",
                    args: ["year": 2027, "month": .int(Int64(month)), "title": .string("Plan \(month).\(round)")])
            }
        }
        let (year, idle) = try await firstAndIdle(bob, with: ann)
        log("    year \(year.bytes) bytes, \(year.received) operations; idle \(idle.bytes) bytes")

        log("(b) \(operations) operations into a device, then the first sync of an empty one…")
        let importStarted = ContinuousClock.now
        try await load(operations, into: ann.store)
        let importSeconds = (ContinuousClock.now - importStarted).seconds
        let cy = try await Device(port: port, context: context)
        let (bulk, _) = try await firstAndIdle(cy, with: ann)
        log(
            "    \(bulk.received) operations in \(String(format: "%.3f", bulk.seconds)) s (the store imported them in \(String(format: "%.3f", importSeconds)) s)"
        )
        for device in [ann, bob, cy] { await device.close() }
        await context.terminate()
        log("(d) signing and verifying operations…")
        let signatures = try signatureCosts()
        log("    \(signatures.jsonText)")
        log("(e) a store under a flood of unknown devices, then 2,500 unread exports…")
        let attacks = try await attackMemory()
        log("    \(attacks.jsonText)")

        let report: JSONValue = [
            "year_bytes": .int(Int64(year.bytes)), "year_operations": .int(Int64(year.received)),
            "idle_bytes": .int(Int64(idle.bytes)),
            "ops10k_s": .double(round3(bulk.seconds * 10_000 / Double(max(bulk.received, 1)))),
            "synced_operations": .int(Int64(bulk.received)), "sync_s": .double(round3(bulk.seconds)),
            "store_import_s": .double(round3(importSeconds)), "signatures": signatures, "attacks": attacks,
            "targets": ["year_bytes": 5_120, "idle_bytes": 1_024, "ops10k_s": 1.0],
        ]
        print(report.jsonText)
    }

    struct Outcome {
        let bytes: Int
        let received: Int
        let seconds: Double
    }

    /// Pairs `asker` with `asked` (asker's first sync starts by itself), then asks for a sync
    /// now, which waits for that first one and then finds nothing to move.
    /// - Returns: the first sync and the idle one, from the asker's sync log.
    private func firstAndIdle(_ asker: Device, with asked: Device) async throws -> (Outcome, Outcome) {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let heard = try await asker.sync.request("device.nearby")["devices"]?.arrayValue ?? []
            if heard.contains(where: { $0["id"]?.stringValue == asked.id }) { break }
            try await Task.sleep(for: .milliseconds(100))  // beacons come once a second: polled
        }
        let started = try await asker.sync.request("device.pair", args: ["device": .string(asked.id)])
        let code = started["code"] ?? .null
        _ = try await asker.sync.request("device.confirm", args: ["device": .string(asked.id), "code": code])
        _ = try await asked.sync.request("device.confirm", args: ["device": .string(asker.id), "code": code])
        _ = try await asker.sync.request("sync.now", args: ["device": .string(asked.id)])
        let log = try await asker.sync.request("sync.log", args: ["device": .string(asked.id)])
        let entries = (log["entries"]?.arrayValue ?? []).filter { $0["outcome"] == "completed" }
        guard entries.count >= 2 else { throw ValidationError("expected two syncs in the log, got \(log.jsonText)") }
        func outcome(_ entry: JSONValue) -> Outcome {
            Outcome(
                bytes: Int(entry["bytes"]?.intValue ?? 0), received: Int(entry["received"]?.intValue ?? 0),
                seconds: Double(entry["duration_ms"]?.intValue ?? 0) / 1000)
        }
        return (outcome(entries[1]), outcome(entries[0]))
    }

    /// Signing and verifying 5,000 operations like (c)'s: µs per operation, and what a signature
    /// adds to an operation's bytes (as JSON, and deflated in a packed sync page).
    private func signatureCosts() throws -> JSONValue {
        let key = SigningKey.generate()
        let operations = try (1...5_000).map { index in
            try Operation(
                json: Self.operation(index, device: "5e0c0000-0000-4000-8000-000000000002", now: 1_800_000_000_000),
                at: "x")
        }
        let clock = ContinuousClock()
        var started = clock.now
        let signatures = operations.map { key.sign($0) }
        let sign = (clock.now - started).seconds
        let checks = zip(operations, signatures).map {
            SignatureCheck(operation: $0, signature: $1, key: key.publicKey)
        }
        started = clock.now
        let serial = checks.map(\.verifies)
        let verifyOne = (clock.now - started).seconds
        started = clock.now
        let batch = SignatureBatch.verify(checks)
        let verifyAll = (clock.now - started).seconds
        guard serial.allSatisfy({ $0 }), batch.allSatisfy({ $0 }) else {
            throw ValidationError("a signature did not verify")
        }
        let plain = operations.map(\.json)
        let signed = zip(operations, signatures).map { $0.signed($1.text) }
        let count = Double(operations.count)
        let jsonBytes = (signed.map(\.jsonBytes.count).reduce(0, +) - plain.map(\.jsonBytes.count).reduce(0, +))
        let packedBytes = PackedPage.pack(signed).utf8.count - PackedPage.pack(plain).utf8.count
        return [
            "sign_us": .double(round3(sign / count * 1e6)), "verify_us": .double(round3(verifyOne / count * 1e6)),
            "verify_all_cores_us": .double(round3(verifyAll / count * 1e6)),
            "json_bytes_per_operation": .double(round3(Double(jsonBytes) / count)),
            "packed_bytes_per_operation": .double(round3(Double(packedBytes) / count)),
        ]
    }

    /// A store's resident memory (MiB) before and at its peak under two attacks, in order: 4,000
    /// operations signed by 4,000 unknown devices (each refused), then 2,500 `ops.export` requests
    /// from a client that never reads the replies (each about 250 KB).
    private func attackMemory() async throws -> JSONValue {
        let context = try ZMQContext()
        let stack = try await TestStack([.bus, .store], environment: ServiceProcesses.quiet, context: context)
        let process = stack.processes[.store]
        let store = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(30))
        let megabytes = { (field: String) in JSONValue.double(round3(Double(process?.memory(field) ?? 0) / 1_048_576)) }
        let before = megabytes("VmRSS")
        for start in stride(from: 0, to: 4_000, by: 500) {
            let page = (start..<start + 500).map { index in
                TestHousehold.signed(
                    Self.operation(1, device: String(format: "%08x-0000-4000-8000-000000000000", index), now: 1_000))
            }
            _ = try await store.request("ops.import", args: ["operations": .array(page)])
        }
        let afterFlood = megabytes("VmHWM")
        // Operations of a device it trusts, with long titles: an export page is about 250 KB.
        let device = "0ff00000-0000-4000-8000-000000000001"
        try await TestHousehold.trust([device], store: store)
        for batch in 0..<8 {
            let page = (1...300).map { index -> JSONValue in
                let counter = batch * 300 + index
                var operation = Self.operation(counter, device: device, now: 1_000)
                operation = .object(
                    (operation.objectValue ?? [:]).merging([
                        "fields": ["title": ["value": .string(String(repeating: "y", count: 190)), "overwrites": []]]
                    ]) { $1 })
                return TestHousehold.signed(operation)
            }
            _ = try await store.request("ops.import", args: ["operations": .array(page)])
        }
        let beforeExports = megabytes("VmRSS")
        let greedy = try ZMQSocket(context: context, kind: .dealer)
        try greedy.setLinger(milliseconds: 0)
        try greedy.setHighWaterMarks(send: 10_000, receive: 1)
        try greedy.connect(stack.configuration.commandEndpoint(.store))
        for index in 0..<2_500 {
            let request = CommandRequest(id: "greedy-\(index)", command: "ops.export", arguments: ["since_vector": [:]])
            _ = try greedy.send([[], request.jsonBytes])
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let commands = try await store.request("ping")["commands"]
            if (commands?["handled"]?.intValue ?? 0) + (commands?["busy"]?.intValue ?? 0) >= 2_500 + 20 { break }
            try await Task.sleep(for: .milliseconds(200))  // polled: the store's own count is the event
        }
        let afterExports = megabytes("VmHWM")
        greedy.close()
        await store.close()
        _ = await stack.stop()
        await context.terminate()
        return [
            "store_rss_mib": before, "flood_peak_mib": afterFlood, "before_exports_mib": beforeExports,
            "unread_exports_peak_mib": afterExports,
        ]
    }

    /// Operation `index` of a made-up device's long history of cards (each overwrites the same
    /// card's operation a year of months before).
    static func operation(_ index: Int, device: String, now: Int64) -> JSONValue {
        let month = (index - 1) % 12 + 1
        return [
            "id": .string("\(device):\(index)"), "time": ["wall": .int(now + Int64(index)), "logical": 0],
            "entity": ["kind": "event_card", "id": .string("2028-\(month < 10 ? "0" : "")\(month)")],
            "fields": [
                "title": [
                    "value": .string("imported \(index)"),
                    "overwrites": index > 12 ? [.string("\(device):\(index - 12)")] : [],
                ]
            ],
        ]
    }

    /// Imports `count` operations of a made-up device, 600 a page (under the command size limit),
    /// signed with its key, which the store is first told to trust (as pairing does).
    private func load(_ count: Int, into store: CommandClient) async throws {
        let device = "5e0c0000-0000-4000-8000-000000000001"
        try await TestHousehold.trust([device], store: store)
        let now = Int64(Date().timeIntervalSince1970 * 1000) - Int64(count) - 60_000
        var index = 0
        while index < count {
            var page: [JSONValue] = []
            while page.count < 600 && index < count {
                index += 1
                page.append(TestHousehold.signed(Self.operation(index, device: device, now: now)))
            }
            _ = try await store.request("ops.import", args: ["operations": .array(page)])
        }
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
