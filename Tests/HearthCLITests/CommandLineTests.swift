import ArgumentParser
import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import Testing

@testable import HearthCLI

@Suite("hearth command line", .timeLimit(.minutes(1)))
struct CommandLineTests {
    /// Without a `commandName`, ArgumentParser names a command with `String(describing:)` of its
    /// type, and finding out whether a type describes itself searches every protocol conformance
    /// of the executable: on 2026-12-07 that was 51% of the release `hearth --version`'s CPU (45%
    /// in the debug build), paid on every command and every TAB of a completion.
    @Test("every command spells out its name: none is derived from its type's at each start")
    func namesAreSpelledOut() {
        func walk(_ command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
            [command] + command.configuration.subcommands.flatMap(walk)
        }
        let commands = walk(Hearth.self)
        #expect(commands.count > 150, "the walk reached every command")
        #expect(commands.filter { $0.configuration.commandName == nil }.map { "\($0)" } == [])
    }

    @Test("monitor takes prefixes and the shared options")
    func monitorParses() throws {
        let command = try Hearth.parseAsRoot([
            "monitor", "turn.", "store.", "--json", "--home", "/tmp/h", "--timeout", "500",
        ])
        let monitor = try #require(command as? Monitor)
        #expect(monitor.prefixes == ["turn.", "store."])
        #expect(monitor.options.json)
        #expect(monitor.options.home == "/tmp/h")
        #expect(monitor.options.timeoutDuration == .milliseconds(500))
    }

    @Test("search takes words that begin with - as text, and its own options as options (issue 63)")
    func searchDashWords() throws {
        let search = try #require(
            try Hearth.parseAsRoot(["search", "-mas", "x-ray", "--kind", "todo", "--json"]) as? Search)
        #expect(search.words == ["-mas", "x-ray"])
        #expect(search.kind == "todo" && search.options.json)
        let dashes = try #require(try Hearth.parseAsRoot(["search", "--", "-mas"]) as? Search)
        #expect(dashes.words == ["-mas"])
    }

    @Test("publish needs a topic and JSON; type is optional")
    func publishParses() throws {
        let command = try #require(
            try Hearth.parseAsRoot(["publish", "turn.x", "{}", "--type", "turn.changed"]) as? Publish)
        #expect(command.topic == "turn.x")
        #expect(command.data == "{}")
        #expect(command.type == "turn.changed")
        #expect(throws: (any Error).self) { try Hearth.parseAsRoot(["publish", "turn.x"]) }
    }

    @Test("status and config take --json and --home")
    func statusParses() throws {
        #expect(try (Hearth.parseAsRoot(["status", "--json"]) as? Status)?.options.json == true)
        #expect(try (Hearth.parseAsRoot(["config", "--home", "/x"]) as? ConfigShow)?.options.home == "/x")
        // Global options before the command, as `hearth --json status` is typed.
        func parse(_ arguments: [String]) throws -> any ParsableCommand {
            try Hearth.parseAsRoot(GlobalOptions.movingLeadingOptions(arguments))
        }
        #expect(try (parse(["--json", "status"]) as? Status)?.options.json == true)
        let status = try #require(try parse(["--home", "/x", "--json", "turn", "status", "J7X-3"]) as? Turn.Status)
        #expect(status.options.home == "/x" && status.options.json && status.code == "J7X-3")
        #expect(try (parse(["--timeout=50", "config"]) as? ConfigShow)?.options.timeout == 50)
        #expect(throws: (any Error).self) { try parse(["--json"]) }
        #expect(try (parse(["--json", "config", "keys"]) as? ConfigKeys)?.options.json == true)
    }

    @Test("an unknown subcommand is an error")
    func unknown() {
        #expect(throws: (any Error).self) { try Hearth.parseAsRoot(["fly"]) }
    }

    @Test("the cli source numbers events 1, 2, 3 across separate runs")
    func cliSequence() throws {
        let home = try TemporaryHome()
        let configuration = try home.configuration()
        #expect(try CLISequence.next(runDirectory: configuration.runDirectory) == 1)
        #expect(try CLISequence.next(runDirectory: configuration.runDirectory) == 2)
        #expect(try CLISequence.next(runDirectory: configuration.runDirectory) == 3)
    }

    @Test("a progress line: done / total with thousands grouped, the rate, and the time left")
    func progressText() {
        #expect(
            ProgressLine.text(done: 12_345, total: 60_000, unit: "operations", elapsed: .seconds(3))
                == "12,345 / 60,000 operations · 4,115/s · 12 s left")
        #expect(
            ProgressLine.text(done: 1_000, total: 100_000, unit: "events", elapsed: .seconds(10))
                == "1,000 / 100,000 events · 100/s · 16 min 30 s left")
        #expect(ProgressLine.text(done: 0, total: 0, unit: "operations", elapsed: .zero) == "0 operations")
        #expect(ProgressLine.grouped(999) == "999" && ProgressLine.grouped(1_000_000) == "1,000,000")
    }

    @Test("a sync log line is on the household's wall clock")
    func syncLogWallClock() throws {
        let entry = SyncEntryView(
            at: "2026-11-27T14:31:05.000Z", peer: PeerRef(device: "d", name: "Mum"), outcome: "failed", received: 0,
            sent: 0, conflicts: 0, resolution: "", bytes: 0, durationMs: 0, detail: "Mum did not answer")
        let line = Sync.Log.text(entry, TimeZone(identifier: "America/New_York")!)
        #expect(line == "2026-11-27 09:31:05  Mum  failed  Mum did not answer", "\(line)")
    }

    @Test("a monitor line shows time, topic, source#seq and the data, shortened")
    func monitorText() throws {
        let envelope = Envelope(
            source: "turn", device: "d", seq: 42, timestamp: Date(timeIntervalSince1970: 1_763_750_000.125),
            type: "turn.changed", data: ["player": .string(String(repeating: "A", count: 200))])
        let line = Monitor.text(topic: "turn.J7X-3.changed", envelope, zone: TimeZone(identifier: "UTC")!)
        #expect(line.hasPrefix("18:33:20.125  turn.J7X-3.changed  turn#42  {\"player\":\"AAA"))
        // On the household's wall clock: 18:33 UTC is 19:33 in Paris in November.
        let paris = Monitor.text(topic: "turn.J7X-3.changed", envelope, zone: TimeZone(identifier: "Europe/Paris")!)
        #expect(paris.hasPrefix("19:33:20.125  turn."))
        #expect(line.hasSuffix("…"))
        let json = try JSONValue.parse(Monitor.json(topic: "turn.J7X-3.changed", envelope))
        #expect(json["topic"] == "turn.J7X-3.changed")
        #expect(json["event"]?["seq"] == 42)
    }
}

@Suite("Command line: turns and notification settings", .timeLimit(.minutes(1)))
struct TurnCommandLineTests {
    @Test("notify settings refuses turning one category both on and off")
    func contradictorySettings() {
        #expect(throws: (any Error).self) {
            try Hearth.parseAsRoot(["notify", "settings", "--on", "sync", "--off", "sync"])
        }
        #expect((try? Hearth.parseAsRoot(["notify", "settings", "--on", "sync", "--off", "turns"])) != nil)
    }

    @Test("every turn subcommand parses with --json; names and codes are required where they must be")
    func turnParses() throws {
        #expect(try (Hearth.parseAsRoot(["turn", "create", "--name", "Ann", "--json"]) as? Turn.Create)?.name == "Ann")
        #expect(try (Hearth.parseAsRoot(["turn", "sessions", "--json"]) as? Turn.Sessions)?.options.json == true)
        let join = try #require(try Hearth.parseAsRoot(["turn", "join", "J7X-3", "--name", "Bob"]) as? Turn.Join)
        #expect(join.code == "J7X-3")
        #expect(join.name == "Bob")
        #expect(try (Hearth.parseAsRoot(["turn", "done", "J7X-3", "--player", "Cy"]) as? Turn.Done)?.player == "Cy")
        #expect(
            try (Hearth.parseAsRoot(["turn", "order", "J7X-3", "Bob", "Ann"]) as? Turn.Order)?.players == [
                "Bob", "Ann",
            ])
        for command in ["start", "status", "end", "watch", "leave"] {
            #expect(try Hearth.parseAsRoot(["turn", command, "J7X-3", "--json"]) is any AsyncParsableCommand)
            #expect(throws: (any Error).self, "\(command) without a code") {
                try Hearth.parseAsRoot(["turn", command])
            }
        }
        #expect(throws: (any Error).self) { try Hearth.parseAsRoot(["turn", "create"]) }
        #expect(throws: (any Error).self) { try Hearth.parseAsRoot(["turn", "join", "J7X-3"]) }
    }

    @Test("a session prints its code, state, seq and turn, then the players in order with the marks")
    func describeSession() {
        let session = TurnSession(
            id: "s", code: "J7X-3", seq: 7, state: .playing,
            players: [
                .init(id: "a", name: "Ann", device: "d1"), .init(id: "b", name: "Bob", device: "d2", present: false),
            ],
            current: "b", leader: "a", turn: 3, turnStartSeq: 7)
        #expect(
            Turn.describe(session) == "J7X-3  playing  seq 7  turn 3\n    Ann  (leader)\n  ▶ Bob  (away)")
    }

    @Test("notify settings takes repeated --on/--off, quiet hours and the break-through switch")
    func notifySettingsParses() throws {
        let settings = try #require(
            try Hearth.parseAsRoot([
                "notify", "settings", "--off", "sync", "--off", "snoozes", "--on", "turns", "--quiet-hours",
                "22:00-07:00",
                "--critical-breaks-quiet-hours", "true",
            ]) as? Notify.Settings)
        #expect(settings.off == ["sync", "snoozes"])
        #expect(settings.on == ["turns"])
        #expect(settings.quietHours == "22:00-07:00")
        #expect(settings.criticalBreaksQuietHours == true)
    }

    @Test("--quiet-hours \"\" turns quiet hours off, as hearth.toml writes none (it was refused: issue 63)")
    func quietHoursEmpty() async throws {
        let home = try TemporaryHome()
        let environment = ["HEARTH_HOME": home.path]
        let set = try await ChildProcess.run(
            "hearth", ["notify", "settings", "--quiet-hours", "22:00-07:00", "--json"], environment: environment)
        #expect(set.status == 0 && set.stdout.contains("22:00-07:00"), "\(set)")
        let cleared = try await ChildProcess.run(
            "hearth", ["notify", "settings", "--quiet-hours", "", "--json"], environment: environment)
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(try HearthConfiguration.load(home: home.path).notify.quietHours == nil)
    }
}

@Suite("Command line: output is never raw control characters", .timeLimit(.minutes(1)))
struct OutputTests {
    @Test("control characters and direction overrides in data are shown visibly, not sent to the terminal")
    func visible() {
        #expect(Output.visible("bell\u{07}\u{1B}[31mred") == "bell^G^[[31mred")
        #expect(Output.visible("two\nlines\u{7F}") == "two^Jlines^?")
        #expect(Output.visible("evil\u{202E}txt\u{85}") == "evil<U+202E>txt<U+0085>")
        #expect(Output.visible("Tab\tand 👨‍👩‍👧‍👦 stay") == "Tab\tand 👨‍👩‍👧‍👦 stay")
    }
}

@Suite("Block letters", .timeLimit(.minutes(1)))
struct BlockLettersTests {
    @Test("text becomes five rows of block capitals; too wide or unknown characters fall back")
    func render() throws {
        let rows = try #require(BlockLetters.render("Zoë", width: 80))
        #expect(rows.count == 5)
        #expect(rows.allSatisfy { $0.count == 18 })  // three glyphs of five cells and a space each
        #expect(rows[0].hasPrefix("█████"))
        #expect(BlockLetters.render("Your turn", width: 40) == nil)
        #expect(BlockLetters.render("😀", width: 80) == nil)
    }
}
