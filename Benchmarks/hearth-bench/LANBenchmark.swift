import ArgumentParser
import Foundation
import HearthBus
import HearthTesting

/// `hearth-bench lan`: a household on a LAN of network namespaces (`deploy/lan`, root needed).
struct LANBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lan",
        abstract: "Sync and turns between devices in network namespaces, with packets dropped.",
        discussion: """
            Four devices, each a whole stack in a network namespace of its own on one bridge, found \
            by subnet broadcast (HouseholdLAN in HearthTesting, the network tests' harness). \
            (a) discover_new_s: from a fourth device's stack being started (its six processes \
            launched one after another, each awaited) until the other three list it (beacons \
            every second). (b) convergence: Ann, Bob and Cal (paired) make --edits \
            edits over every domain at once, then sync rounds (`hearth sync now` on each) run until \
            all three hold the same operations and rows; the time from the last edit, p50 and p99 \
            over --trials trials at 0, 10 and 30% of packets dropped on every device \
            (nftables), and the bytes the three sent on the wire per operation (Ethernet frames, \
            retransmissions included, less the beacons' idle rate). (c) turns: the four play \
            --turns turns at 5% loss: the share of "Your turn" popups that arrived, and Done → next \
            player's popup p50 and p99 at the notification test server. Without namespaces (not \
            root), prints why and reports nothing.
            """
    )

    @Option(help: "Trials per loss level for (b).") var trials = 3
    @Option(help: "Edits per trial for (b).") var edits = 60
    @Option(help: "Turns for (c).") var turns = 100
    @Flag(help: "Print only the JSON report.") var json = false

    func run() async throws {
        let context = try ZMQContext()
        let report: JSONValue
        do {
            report = try await HouseholdLAN.with(devices: 4) { lan in try await measure(lan, context: context) }
        } catch let unavailable as LANUnavailable {
            log("hearth-bench lan: \(unavailable)")
            print((["skipped": .string(unavailable.description)] as JSONValue).jsonText)
            return
        }
        print(report.jsonText)
    }

    private func measure(_ lan: HouseholdLAN, context: ZMQContext) async throws -> JSONValue {
        var devices: [LANDevice] = []
        for (index, name) in ["Ann", "Bob", "Cal"].enumerated() {
            devices.append(try await LANDevice(name, index + 1, on: lan, context: context, quiet: true))
        }
        let answered = ContinuousClock.now
        let dan = try await LANDevice("Dan", 4, on: lan, context: context, quiet: true)
        let heard = await Polling.eventually(timeout: .seconds(20)) {
            for device in devices where (try? await device.nearby())?[dan.id] == nil { return false }
            return true
        }
        guard heard else { throw LANError("Dan was never heard") }
        let discover = ContinuousClock.now - answered
        log("(a) a new device heard by the other three after \(discover)")

        let household = devices
        try await household[0].pair(with: household[1])
        try await household[0].pair(with: household[2])
        try await household[1].pair(with: household[2])
        try await HouseholdEdits.school(on: household[0])
        guard try await HouseholdLAN.converge(household).0 != nil else { throw LANError("no first convergence") }
        // The beacons' own traffic (two services' a second on each device), taken off below.
        let (idleStart, idleBytes) = (ContinuousClock.now, sent(lan))
        try await Task.sleep(for: .seconds(3))
        let idleRate = Double(sent(lan) - idleBytes) / seconds(ContinuousClock.now - idleStart)

        var convergence: [String: JSONValue] = [:]
        var next = 0
        for loss in [0, 10, 30] {
            for index in 1...3 { try await lan.lan("loss", ["\(index)", "\(loss)"]) }
            var (times, perOperation): ([Double], [Double]) = ([], [])
            for trial in 1...trials {
                let (acknowledged, refusals) = await HouseholdEdits.run(edits, on: household, from: next)
                next += edits
                guard refusals.isEmpty else { throw LANError("edits refused: \(refusals.prefix(3))") }
                let (start, before) = (ContinuousClock.now, sent(lan))
                let (time, _) = try await HouseholdLAN.converge(household)
                guard let time else { throw LANError("\(loss)% loss, trial \(trial): never converged") }
                let wire = Double(sent(lan) - before) - idleRate * seconds(ContinuousClock.now - start)
                times.append(seconds(time))
                perOperation.append(wire / Double(acknowledged))
            }
            log(
                "(b) \(loss)% loss: converged p50 \(round3(LANGame.quantile(times, 0.5))) s, "
                    + "\(Int(LANGame.quantile(perOperation, 0.5))) bytes/operation")
            convergence["loss_\(loss)"] = [
                "p50_s": .double(round3(LANGame.quantile(times, 0.5))),
                "p99_s": .double(round3(LANGame.quantile(times, 0.99))),
                "bytes_per_op": .int(Int64(LANGame.quantile(perOperation, 0.5))),
                "trials": .int(Int64(trials)), "edits": .int(Int64(edits)),
            ]
            for index in 1...3 { try await lan.lan("loss", ["\(index)", "0"]) }
        }

        let players = household + [dan]
        for index in 1...4 { try await lan.lan("loss", ["\(index)", "5"]) }
        let code = try await LANGame.start(players)
        let play = try await LANGame.play(1...turns, order: players, code: code)
        let delivered = Double(turns - play.missed.count) / Double(turns)
        let (p50, p99) = (LANGame.quantile(play.latencies, 0.5), LANGame.quantile(play.latencies, 0.99))
        log("(c) turns at 5% loss: \(delivered * 100)% delivered, p50 \(p50 * 1000) ms, p99 \(p99 * 1000) ms")
        for device in players { await device.stop() }
        return [
            "benchmark": "lan", "devices": 4, "discover_new_s": .double(round3(seconds(discover))),
            "beacon_idle_bytes_per_s": .int(Int64(idleRate)), "convergence": .object(convergence),
            "turns_at_5_loss": [
                "turns": .int(Int64(turns)), "delivered": .double(round3(delivered)),
                "p50_ms": .double(round3(p50 * 1000)), "p99_ms": .double(round3(p99 * 1000)),
            ],
            "targets": ["turn_delivered": 0.99, "turn_p99_ms": 2000],
        ]
    }

    /// What the four devices have sent on the LAN.
    private func sent(_ lan: HouseholdLAN) -> Int { (1...4).reduce(0) { $0 + lan.sentBytes($1) } }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
