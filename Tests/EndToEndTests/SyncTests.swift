import Foundation
import GRDB
import HearthBus
import HearthHost
import HearthTesting
import Testing

/// Sync between devices: each device is a whole stack (its own `HEARTH_HOME`, bus, store and
/// hearth-sync; the notifier on a private D-Bus session where popups are checked), found by
/// beacon on the loopback broadcast address, paired through the command line or a popup, and
/// replicating over CURVE on loopback tcp.
extension SeveralDevices {
    @Suite("End to end: pairing and sync between devices", .serialized, .timeLimit(.minutes(3)))
    struct SyncTests {
        let context: ZMQContext

        init() throws { context = try ZMQContext() }

        /// One device.
        final class Device: Sendable {
            let name: String
            let session: DBusSession?
            let stack: TestStack
            let id: String
            /// `hearth monitor --json` on this device's bus: the events waited for.
            let monitor: ChildProcess

            init(_ name: String, port: Int, notifier: Bool = false, context: ZMQContext) async throws {
                self.name = name
                var environment = LoopbackTurns.environment(port: port)
                environment["HEARTH_SYNC_ENDPOINT"] = "tcp://127.0.0.1:*"
                if notifier {
                    let session = try await DBusSession(notificationServer: true)
                    environment.merge(session.environment) { $1 }
                    self.session = session
                } else {
                    session = nil
                }
                stack = try await TestStack(
                    [.bus, .store, .sync] + (notifier ? [.notifier] : []), environment: environment, context: context)
                id = try DeviceIdentity.load(home: stack.home.path)
                monitor = try await ChildProcess("hearth", ["monitor", "--json"], environment: stack.environment)
                _ = try #require(await monitor.errors.waitForLine(containing: "watching"))
                _ = try await hearthSucceeding(stack, ["device", "rename", id, name])
            }

            /// `hearth ARGS --json`, expected to succeed, parsed.
            func json(_ arguments: [String]) async throws -> JSONValue {
                try JSONValue.parse(try await hearthSucceeding(stack, arguments + ["--json"]))
            }

            /// The data of the next `type` event on this device's bus matching `predicate` (seen
            /// since the monitor started).
            func event(
                _ type: String, timeout: Duration = .seconds(10), from start: Int = 0,
                where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
            ) async -> JSONValue? {
                await monitor.busEvent(type, timeout: timeout, from: start, where: predicate)
            }

            /// The store's answer to `command`.
            func store(
                _ command: String, _ arguments: [String: JSONValue] = [:], context: ZMQContext
            ) async throws
                -> JSONValue
            {
                let client = CommandClient(
                    context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(10))
                defer { Task { await client.close() } }
                return try await client.request(command, args: arguments)
            }

            func stop() async {
                monitor.signal(SIGTERM)
                _ = await monitor.waitForExit(timeout: .seconds(2))
                _ = await stack.stop()
            }
        }

        /// The first `Notify` call on the notification server whose summary matches.
        static func popup(
            on server: ChildProcess, where matches: @escaping @Sendable (String) -> Bool
        ) async -> JSONValue? {
            let line = await server.output.waitForLine(timeout: .seconds(10)) { line in
                guard line.contains("\"Notify\""), let call = try? JSONValue.parse(line),
                    let summary = call["summary"]?.stringValue
                else { return false }
                return matches(summary)
            }
            return line.flatMap { try? JSONValue.parse($0) }
        }

        /// Waits until `listener` hears `other` by beacon under its current name (beacons are not
        /// on the bus: `hearth device nearby` is polled).
        static func hears(_ listener: Device, _ other: Device) async throws {
            #expect(
                try await SeveralDevices.eventually {
                    (try await listener.json(["device", "nearby"])["devices"]?.arrayValue ?? []).contains {
                        $0["id"]?.stringValue == other.id && $0["name"]?.stringValue == other.name
                    }
                }, "\(listener.name) never heard \(other.name)")
        }

        /// `asker` pairs with `asked` the way people do: `hearth device pair`, the code compared with
        /// the one the asked device shows, then `hearth device confirm` on both.
        static func pair(_ asker: Device, _ asked: Device) async throws {
            try await hears(asker, asked)
            let (askedMark, askerMark) = (asked.monitor.output.lines.count, asker.monitor.output.lines.count)
            let started = try await asker.json(["device", "pair", asked.id])
            let code = try #require(started["code"]?.stringValue)
            #expect(started["name"]?.stringValue == asked.name)
            let shown = try #require(
                await asked.event("device.pairing", from: askedMark) { $0["device"]?.stringValue == asker.id })
            #expect(shown["code"]?.stringValue == code, "both devices show one code")
            let listed = try await asked.json(["device", "pairing"])["pairings"]?.arrayValue ?? []
            #expect(listed.first?["code"]?.stringValue == code)
            let first = try await asker.json(["device", "confirm", asked.id, "--code", code])
            #expect(first["paired"] == false, "one confirmation is not a pairing")
            let second = try await asked.json(["device", "confirm", asker.name, "--code", code])
            #expect(second["paired"] == true)
            _ = try #require(
                await asker.event("device.paired", from: askerMark) { $0["device"]?.stringValue == asked.id })
        }

        @Test(
            "the asking device confirming last: both pin each other's keys before its first sync, which completes at once, refused by nobody"
        )
        func firstSyncAfterPairing() async throws {
            let port = LoopbackTurns.randomPort()
            let ann = try await Device("Ann", port: port, context: context)
            let bob = try await Device("Bob", port: port, context: context)
            _ = try await hearthSucceeding(
                ann.stack, ["event", "set", "aug", "--year", "2026", "--title", "Beach day"])
            try await Self.hears(ann, bob)
            let mark = ann.monitor.output.lines.count
            let started = try await ann.json(["device", "pair", bob.id])
            let code = try #require(started["code"]?.stringValue)
            // Bob (asked) confirms first; Ann, who asked and makes the first sync, last.
            #expect(try await bob.json(["device", "confirm", ann.name, "--code", code])["paired"] == false)
            let confirmed = ContinuousClock.now
            #expect(try await ann.json(["device", "confirm", bob.id, "--code", code])["paired"] == true)
            let synced = try #require(
                await ann.event("sync.completed", timeout: .seconds(20), from: mark) {
                    $0["peer"]?["device"]?.stringValue == bob.id
                })
            // Before, Bob had not pinned Ann's key yet: her first request was refused and waited
            // out its 10 s timeout.
            #expect(ContinuousClock.now - confirmed < .seconds(5), "\(ContinuousClock.now - confirmed)")
            #expect(synced["sent"]?.intValue ?? 0 > 0)
            #expect(try await bob.json(["sync", "diag"])["refusals"] == 0)
            // The answering side logs the same exchange, with the bytes and time Ann measured, and
            // raises its own popup's event (it logged "0 bytes, 0 ms" and raised none).
            let served = try #require(
                await bob.event("sync.completed", timeout: .seconds(20)) {
                    $0["peer"]?["device"]?.stringValue == ann.id
                })
            #expect(served["received"] == synced["sent"] && served["sent"] == synced["received"], "\(served)")
            // Bob's are Ann's up to her closing note (which her own count has, about 150 bytes).
            let (servedBytes, syncedBytes) = (served["bytes"]?.intValue ?? 0, synced["bytes"]?.intValue ?? 0)
            #expect(servedBytes > 0 && (50...400).contains(syncedBytes - servedBytes), "\(served) \(synced)")
            let bobLog = try await bob.json(["sync", "log"])["entries"]?.arrayValue ?? []
            #expect(
                bobLog.contains { $0["bytes"] == served["bytes"] && $0["peer"]?["name"]?.stringValue == "Ann" },
                "\(bobLog)")
            await ann.stop()
            await bob.stop()
        }

        @Test(
            "three devices edit apart, pair A–B and B–C on the command line, sync, and end identical; C has A's edits through B"
        )
        func threeDevices() async throws {
            let port = LoopbackTurns.randomPort()
            let ann = try await Device("Ann", port: port, context: context)
            let bob = try await Device("Bob", port: port, context: context)
            let cy = try await Device("Cy", port: port, context: context)
            // Apart: each edits, and Ann and Cy both edit March (a conflict once they meet).
            _ = try await hearthSucceeding(
                ann.stack, ["event", "set", "aug", "--year", "2026", "--title", "Beach day"])
            _ = try await hearthSucceeding(
                ann.stack, ["event", "set", "mar", "--year", "2026", "--title", "Spring fair"])
            _ = try await hearthSucceeding(bob.stack, ["event", "set", "jul", "--year", "2026", "--title", "Camping"])
            _ = try await hearthSucceeding(cy.stack, ["event", "set", "dec", "--year", "2026", "--title", "Christmas"])
            _ = try await hearthSucceeding(
                cy.stack, ["event", "set", "mar", "--year", "2026", "--title", "Spring fete"])

            try await Self.pair(ann, bob)
            try await Self.pair(bob, cy)
            // Ann and Cy never paired: neither lists the other as paired.
            let annPaired = try await ann.json(["device", "list"])["devices"]?.arrayValue ?? []
            #expect(annPaired.first { $0["id"]?.stringValue == cy.id }?["paired"] != true)

            // Bob syncs with both twice: the first round gathers, the second hands on.
            for _ in 1...2 {
                let round = try await bob.json(["sync", "now"])["syncs"]?.arrayValue ?? []
                #expect(round.count == 2 && round.allSatisfy { $0["outcome"] == "completed" }, "\(round)")
            }
            var cards: [String] = []
            for device in [ann, bob, cy] {
                let list = try await device.json(["event", "list", "--year", "2026"])
                let titles = (list["cards"]?.arrayValue ?? []).map {
                    "\($0["month"]?.intValue ?? 0) \($0["title"]?.stringValue ?? "-") \($0["conflicted"] == true)"
                }
                if cards.isEmpty { cards = titles } else { #expect(titles == cards, "\(device.name)") }
                let conflicts = try await device.json(["conflicts"])["conflicts"]?.arrayValue ?? []
                #expect(conflicts.count == 1, "\(device.name): \(conflicts)")
            }
            #expect(cards.contains("12 Christmas false") && cards.contains("8 Beach day false"), "\(cards)")
            let vectors = try await [ann, bob, cy].asyncMap {
                try await $0.store("ops.vector", context: context)["vector"]
            }
            #expect(vectors[0] == vectors[1] && vectors[1] == vectors[2])
            // Histories are the same operations everywhere.
            let histories = try await [ann, bob, cy].asyncMap {
                try await $0.store("ops.export", ["limit": 10_000], context: context)["operations"]?.arrayValue?.count
            }
            // Five card edits, each device's name twice (its host's on first start, then the
            // rename), and each pairing's two vouches for the other's signing key.
            #expect(histories == [15, 15, 15], "\(histories)")
            // Names travel: Cy knows Ann by her name, though they never paired.
            let cyDevices = try await cy.json(["device", "list"])["devices"]?.arrayValue ?? []
            #expect(cyDevices.first { $0["id"]?.stringValue == ann.id }?["name"]?.stringValue == "Ann")
            // Ann's log says Bob brought Cy's operations.
            let annLog = try await ann.json(["sync", "log"])["entries"]?.arrayValue ?? []
            #expect(annLog.contains { ($0["detail"]?.stringValue ?? "").contains("relayed") }, "\(annLog)")
            for device in [ann, bob, cy] { await device.stop() }
        }

        @Test("a wrong code refuses the pairing on both devices; a forgotten device is refused from then on")
        func wrongCodeAndForget() async throws {
            let port = LoopbackTurns.randomPort()
            let ann = try await Device("Ann", port: port, context: context)
            let bob = try await Device("Bob", port: port, context: context)
            try await Self.hears(ann, bob)
            let started = try await ann.json(["device", "pair", "Bob"])
            let digits = started["code"]?.stringValue?.filter { $0.isNumber }
            let code = try #require(digits)
            _ = try #require(await bob.event("device.pairing"))
            let wrong = String(format: "%06d", (Int(code)! + 1) % 1_000_000)
            let refused = try await bob.stack.hearth(["device", "confirm", "Ann", "--code", wrong])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("is not this pairing's code"), "\(refused.stderr)")
            // The attempt is over on both sides: Ann's confirmation with the right code finds nothing.
            _ = try #require(await ann.event("device.pairing.ended") { $0["device"]?.stringValue == bob.id })
            let late = try await ann.stack.hearth(["device", "confirm", "Bob", "--code", code])
            #expect(late.status == 2)
            #expect((try await ann.json(["device", "pairing"])["pairings"]?.arrayValue ?? []).isEmpty)

            try await Self.pair(ann, bob)
            // Bob is told at once: Ann is removed there too, said so, and the two can pair again.
            var mark = bob.monitor.output.lines.count
            let forgot = try await hearthSucceeding(ann.stack, ["device", "forget", "Bob"])
            #expect(forgot.contains("Forgot Bob") && forgot.contains("It was told"), "\(forgot)")
            _ = try #require(
                await bob.event("device.forgotten", from: mark) { $0["removed_by"]?.stringValue == "Ann" })
            let listed = try await hearthSucceeding(bob.stack, ["device", "list"])
            #expect(listed.contains("Ann  removed by Ann"), "\(listed)")
            let gone = try await bob.stack.hearth(["sync", "now", "Ann"])
            #expect(gone.status == 2 && gone.stderr.contains("no paired device 'Ann'"), "\(gone.stderr)")
            // Asked the other way: a device raises two pairing popups a minute for one address, and
            // on loopback every device shares one.
            try await Self.pair(bob, ann)
            #expect(try await bob.json(["sync", "now", "Ann"])["syncs"]?.arrayValue?.first?["outcome"] == "completed")
            // Both of a paired device's fingerprints, each named for what it is (issue 63).
            let relisted = try await hearthSucceeding(bob.stack, ["device", "list"])
            #expect(
                relisted.contains("Ann  paired · connection key ") && relisted.contains(" · signing key "),
                "\(relisted)")

            // Bob away when Ann forgets it: it learns at its next sync (Ann refuses it, then says why
            // on the pairing link), and can pair again.
            bob.stack.processes[.sync]!.signal(SIGTERM)
            _ = try #require(await bob.stack.processes[.sync]!.waitForExit(timeout: .seconds(5)))
            let away = try await hearthSucceeding(ann.stack, ["device", "forget", "Bob"])
            #expect(away.contains("It is told when it next tries to sync"), "\(away)")
            mark = bob.monitor.output.lines.count
            let restarted = try await TestStack.start(.sync, environment: bob.stack.environment)
            #expect(
                await TestStack.waitUntilAnswering(
                    bob.stack.configuration.commandEndpoint(.sync), context: context, timeout: .seconds(10)))
            try await Self.hears(bob, ann)
            // Its own automatic sync may get there first: either way, the removal comes.
            let attempt = try await bob.stack.hearth(["sync", "now", "Ann", "--json"])
            if attempt.status == 0 {
                let entry = try JSONValue.parse(attempt.stdout)["syncs"]?.arrayValue?.first
                #expect(entry?["outcome"] == "failed")
                #expect(
                    entry?["detail"]?.stringValue == "Ann removed this device: pair with it again to sync",
                    "\(String(describing: entry))")
            }
            _ = try #require(
                await bob.event("device.forgotten", from: mark) { $0["removed_by"]?.stringValue == "Ann" })
            let diag = try await ann.json(["sync", "diag"])
            #expect((diag["refusals"]?.intValue ?? 0) >= 1)
            let log = try await ann.json(["sync", "log"])["entries"]?.arrayValue ?? []
            #expect(log.contains { $0["outcome"] == "refused" }, "\(log)")
            try await Self.pair(bob, ann)
            #expect(try await ann.json(["sync", "now", "Bob"])["syncs"]?.arrayValue?.first?["outcome"] == "completed")
            restarted.signal(SIGTERM)
            _ = await restarted.waitForExit(timeout: .seconds(3))
            await ann.stop()
            await bob.stop()
        }

        @Test("the popups: the pairing request with Confirm, a sync's summary, and a card another device changed")
        func popups() async throws {
            let port = LoopbackTurns.randomPort()
            let ann = try await Device("Ann", port: port, context: context)
            let bob = try await Device("Bob", port: port, notifier: true, context: context)
            let server = try #require(bob.session?.server)
            try await Self.hears(ann, bob)
            let started = try await ann.json(["device", "pair", "Bob"])
            let code = try #require(started["code"]?.stringValue)
            let popup = try #require(
                await Self.popup(on: server) { $0 == "Pair with Ann? Code \(code)" },
                "\(server.output.text.suffix(1_000))")
            let popupID = try #require(popup["id"]?.intValue)
            #expect(popup["urgency"] == 2, "\(popup)")
            _ = try await ann.json(["device", "confirm", "Bob", "--code", code])
            #expect(try await bob.session!.press(id: UInt32(popupID), action: "confirm") == 0)
            _ = try #require(await bob.event("device.paired") { $0["device"]?.stringValue == ann.id })

            _ = try await hearthSucceeding(
                ann.stack, ["event", "set", "aug", "--year", "2026", "--title", "Beach day"])
            _ = try await bob.json(["sync", "now", "Ann"])
            _ = try await hearthSucceeding(
                ann.stack, ["event", "set", "aug", "--year", "2026", "--title", "Beach weekend"])
            let synced = try await bob.json(["sync", "now", "Ann"])["syncs"]?.arrayValue?.first
            #expect(synced?["received"] == 1, "\(String(describing: synced))")
            let summary = try #require(await Self.popup(on: server) { $0 == "Synced with Ann — 1 received, 0 sent" })
            #expect(summary["urgency"] == 0, "quiet on success: \(summary)")
            // A sync that moves nothing raises no popup: the next one that moves something is
            // the next sync popup shown.
            let mark = server.output.lines.count
            #expect(try await bob.json(["sync", "now", "Ann"])["syncs"]?.arrayValue?.first?["received"] == 0)
            _ = try await hearthSucceeding(ann.stack, ["event", "set", "sep", "--year", "2026", "--title", "School"])
            _ = try await bob.json(["sync", "now", "Ann"])
            let next = await server.output.waitForLine(timeout: .seconds(10), from: mark) { line in
                line.contains("\"Notify\"") && line.contains("Synced with Ann")
            }
            #expect(
                next.flatMap { try? JSONValue.parse($0)["summary"]?.stringValue }
                    == "Synced with Ann — 1 received, 0 sent",
                "an idle sync popped up: \(String(describing: next))")
            let changed = try #require(
                await Self.popup(on: server) { $0 == "Ann changed August: Beach day → Beach weekend" },
                "\(server.output.lines.filter { $0.contains("Notify") }.suffix(6))")
            #expect(changed["urgency"] == 1)
            await ann.stop()
            await bob.stop()
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
