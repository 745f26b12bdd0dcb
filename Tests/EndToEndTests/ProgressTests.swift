import Foundation
import HearthBus
import HearthTesting
import Testing

/// Long work shows a progress line on a terminal (done / total, rate, time left) and nothing
/// when its output is not a terminal or with --json. The terminal is a real pty: `script`
/// (util-linux) runs the command on one and records every byte written to it, so a line drawn
/// and then cleared is still seen.
@Suite("End to end: progress lines for long work", .serialized, .timeLimit(.minutes(3)))
struct ProgressTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// `hearth ARGUMENTS` run on a pseudo-terminal: everything it wrote to it, and its status.
    private func onTerminal(_ stack: TestStack, _ arguments: [String]) async throws -> (status: Int32?, text: String) {
        let log = stack.home.file("terminal-\(UUID().uuidString).log")
        let hearth = ChildProcess.binaryDirectory + "/hearth"
        let command = ([hearth] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let run = try await ChildProcess.run(
            "/usr/bin/script", ["-q", "-e", "-c", command, log], environment: stack.environment,
            timeout: .seconds(60))
        return (run.status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    @Test("a whole fortnight's timetable import shows done / total lessons on a terminal; nothing piped or with --json")
    func timetableImport() async throws {
        // The store holds the import halfway for a second and a half: long enough to be seen.
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_TIME_ZONE": "UTC", "HEARTH_FAULT_IMPORT_STALL_MS": "1500"],
            context: context)
        _ = try await hearthSucceeding(stack, ["member", "add", "Ann", "--role", "student"])
        let file = stack.home.file("big.csv")
        // Every slot of the fortnight: two weeks, five days, seven periods.
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri"]
        let periods = ["AM Reg", "1", "2", "3", "4", "5", "PM Reg"]
        var csv = "Week,Day,Period,Subject,Teacher,Room\r\n"
        for week in 1...2 {
            for day in days {
                for period in periods {
                    csv += "\(week),\(day),\(period),Subject \(day)\(period),T\(week)\(day)\(period),R1\r\n"
                }
            }
        }
        try csv.write(toFile: file, atomically: true, encoding: .utf8)

        let shown = try await onTerminal(stack, ["timetable", "import", file, "--member", "Ann", "--confirm"])
        #expect(shown.status == 0, "\(shown.text.suffix(500))")
        #expect(shown.text.contains("imported 70 lessons"), "\(shown.text.suffix(500))")
        let line = try #require(
            shown.text.range(of: #"[1-9]\d* / 70 lessons · [\d,]+/s · \d+ s left"#, options: .regularExpression),
            "no progress line: \(shown.text.suffix(800))")
        #expect(!shown.text[line].isEmpty)
        #expect(shown.text.contains("\r\u{1B}[K"), "the line is redrawn in place and cleared")

        // Piped: the same import (again, replacing) writes no line anywhere.
        let piped = try await stack.hearth(["timetable", "import", file, "--member", "Ann", "--confirm"])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("lessons ·") && !piped.stdout.contains("lessons ·"), "\(piped.stderr)")
        #expect(!piped.stderr.contains("\u{1B}[K"))

        // --json on a terminal: the JSON alone.
        let json = try await onTerminal(stack, ["timetable", "import", file, "--member", "Ann", "--confirm", "--json"])
        #expect(json.status == 0)
        #expect(json.text.contains("\"confirmed\":true"), "\(json.text.suffix(300))")
        #expect(!json.text.contains("lessons ·"), "\(json.text.suffix(500))")
        _ = await stack.stop()
    }

    @Test("ops import of a file in many pages shows done / total operations on a terminal; nothing piped")
    func opsImport() async throws {
        // Small messages: 6,000 operations go in many pages, each one transaction.
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_MAX_MESSAGE_BYTES": "131072"], context: context)
        let file = stack.home.file("big.json")
        let export = SeveralDevices.SyncTests.bigExport(count: 6_000)
        try export.jsonText.write(toFile: file, atomically: true, encoding: .utf8)
        let author = TestHousehold.key("0f0f0000-0000-4000-8000-000000000001").publicKey
        let shown = try await onTerminal(stack, ["ops", "import", file, "--trust", author.fingerprint])
        #expect(shown.status == 0, "\(shown.text.suffix(500))")
        #expect(shown.text.contains("received 6000"), "\(shown.text.suffix(500))")
        #expect(
            shown.text.range(of: #"[\d,]+ / 6,000 operations · [\d,]+/s"#, options: .regularExpression) != nil,
            "no progress line: \(shown.text.suffix(800))")
        let piped = try await stack.hearth(["ops", "import", file])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(!piped.stderr.contains("operations ·"), "\(piped.stderr)")
        _ = await stack.stop()
    }
}
