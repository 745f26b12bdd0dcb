import Foundation
import HearthBus
import HearthCore
import HearthHost
import HearthTesting
import Testing

/// The README's own examples, as a new family types them: every date option takes today,
/// tomorrow and yesterday, every time option takes a day where a day is meant, and a month is
/// `YYYY-MM`, drawn as a month grid on a terminal.
@Suite("End to end: the README's examples work as written", .serialized, .timeLimit(.minutes(2)))
struct ReadmeExamplesTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("--due today, --until tomorrow, people log --when a day, sync log --since a day, history --since yesterday")
    func dateWords() async throws {
        let stack = try await TestStack(
            [.bus, .store, .sync], environment: ["HEARTH_TIME_ZONE": "Europe/London"], context: context)
        let today = LocalDate(Date(), in: TimeZone(identifier: "Europe/London")!)
        _ = try await hearthSucceeding(stack, ["collection", "add", "Work", "--kind", "plan"])
        let added = try await hearthSucceeding(
            stack, ["todo", "add", "Write report", "--collection", "Work", "--due", "today"])
        #expect(added.contains(today.description), "\(added)")
        let habit = try await hearthSucceeding(
            stack,
            [
                "todo", "add", "Stretch", "--collection", "Work", "--due", "yesterday", "--repeat", "daily", "--until",
                "tomorrow",
            ])
        #expect(habit.contains("until \(today.adding(days: 1).description)"), "\(habit)")
        _ = try await hearthSucceeding(stack, ["people", "add", "Sam"])
        _ = try await hearthSucceeding(stack, ["people", "log", "Sam", "--outcome", "call", "--when", "2026-11-07"])
        let sam = try JSONValue.parse(try await hearthSucceeding(stack, ["people", "show", "Sam", "--json"]))
        #expect(sam.jsonText.contains("2026-11-07"), "\(sam.jsonText.prefix(400))")
        _ = try await hearthSucceeding(stack, ["sync", "log", "--since", "2026-11-27"])
        _ = try await hearthSucceeding(stack, ["history", "--since", "yesterday", "--until", "today"])
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test("a device is named by its current name, and times are on the household's wall clock (JSON keeps ISO 8601)")
    func namesAndWallClock() async throws {
        // Tokyo is nine hours from UTC all year: a UTC time shown as it is would read nine hours out.
        let zone = TimeZone(identifier: "Asia/Tokyo")!
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_TIME_ZONE": "Asia/Tokyo"], context: context)
        let set = try JSONValue.parse(
            try await hearthSucceeding(
                stack, ["event", "set", "aug", "--year", "2026", "--title", "Beach day", "--json"]))
        let id = try DeviceIdentity.load(home: stack.home.path)
        _ = try await hearthSucceeding(stack, ["device", "rename", id, "Mum"])
        let shown = try await hearthSucceeding(stack, ["event", "show", "aug", "--year", "2026"])
        let json = try JSONValue.parse(
            try await hearthSucceeding(stack, ["event", "show", "aug", "--year", "2026", "--json"]))
        let modified = try #require(json["modified_at"]?.stringValue)
        #expect(modified.hasSuffix("Z"), "JSON keeps ISO 8601: \(modified)")
        let instant = try #require(Timestamp.parse(modified))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        #expect(shown.contains("last changed \(formatter.string(from: instant)) by Mum"), "\(shown)")
        #expect(!shown.contains(String(id.prefix(8))), "\(shown)")
        #expect(set["card"]?["title"] == "Beach day")
        // History too: the change's time on Tokyo's clock, by the name the device has now.
        let history = try await hearthSucceeding(stack, ["history", "--year", "2026"])
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        #expect(history.contains("  \(formatter.string(from: instant))  Mum  "), "\(history)")
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test("calendar month 2026-12 is a month grid: seven columns from the week's start, counts per day")
    func monthGrid() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        _ = try await hearthSucceeding(stack, ["collection", "add", "Work", "--kind", "plan"])
        for title in ["Cards", "Tree"] {
            _ = try await hearthSucceeding(
                stack, ["todo", "add", title, "--collection", "Work", "--due", "2026-12-03"])
        }
        // The grid marks today: the day taken as today is given, so the test holds on every date
        // (it failed on 1-6 December 2026, when the real today was in its first row).
        let grid = try await hearthSucceeding(stack, ["calendar", "month", "2026-12", "--today", "2026-11-30"])
        let lines = grid.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "December 2026", "\(grid)")
        #expect(lines[1].hasPrefix(" Mon") && lines[1].contains("Sun"), "\(grid)")
        // 1 December 2026 is a Tuesday: the first row starts in the second column; the 3rd holds 2.
        #expect(lines[2] == "          1       2       3 2     4       5       6", "\(grid)")
        #expect(grid.contains("2 open, 0 done this month"))
        #expect(try await stack.hearth(["calendar", "month", "2026-13"]).status == 2)
        #expect(try await stack.hearth(["calendar", "month", "2026-12", "--today", "Sunday"]).status == 2)
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }

    @Test("the month grid marks today in brackets, and 'today' is counted from --today")
    func monthGridToday() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        _ = try await hearthSucceeding(stack, ["collection", "add", "Work", "--kind", "plan"])
        _ = try await hearthSucceeding(stack, ["todo", "add", "Cards", "--collection", "Work", "--due", "2026-12-03"])
        let marked = try await hearthSucceeding(stack, ["calendar", "month", "today", "--today", "2026-12-06"])
        let lines = marked.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "December 2026", "\(marked)")
        #expect(lines[2] == "          1       2       3 1     4       5      [6]", "\(marked)")
        #expect(lines.filter { $0.contains("[") }.count == 2, "one day marked, and the legend: \(marked)")
        let tuesday = try await hearthSucceeding(stack, ["calendar", "month", "2026-12", "--today", "2026-12-01"])
        #expect(
            tuesday.split(separator: "\n")[2] == "         [1]      2       3 1     4       5       6", "\(tuesday)")
        // Without --today, the household's own today is the one marked.
        let zone = try HearthConfiguration.load(home: stack.home.path).household.timeZone
        let before = LocalDate(Date(), in: zone)
        let real = try await hearthSucceeding(stack, ["calendar", "month"])
        let after = LocalDate(Date(), in: zone)
        #expect(real.contains("[\(before.day)]") || real.contains("[\(after.day)]"), "\(real)")
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
