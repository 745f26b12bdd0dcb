import ArgumentParser
import Foundation
import HearthBus
import HearthCalendar
import HearthCore
import HearthTesting

/// `hearth-bench social`: the social planner's placement and its iCalendar import, in process
/// and through a real hearth-store process, beside raw SQLite writing as many rows in the run.
struct SocialBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "social",
        abstract: "Placement of 1,000 people over 14 days with 200 busy events, and a 5,000-event .ics import.",
        discussion: """
            (a) `SocialPlanner.plan` for 1,000 people with goals (windows from a pool of six, \
            cadences 3–60 days, importance 1–5, 30 or 60 minutes, seeded) over a 14-day horizon \
            with 200 busy events and a weekly capacity of 200, in process: `place_1000x14_ms`, the \
            median of the rounds (target < 50 ms). (b) the same household's `plan.week` through \
            hearth-store (reading the goals, placing, and writing every check-in as an operation): \
            `plan_week_store_ms`, beside raw SQLite inserting as many rows in one transaction. (c) a \
            5,000-event calendar file (4,000 single events, 1,000 weekly with an EXDATE, in three \
            time zones) read by `CalendarFile` in process (`ics_read_ms`) and imported by \
            `plan.busy.import` (`ics_import_ms`).
            """
    )

    @Option(help: "People with goals.") var people = 1_000
    @Option(help: "Busy events in the horizon.") var busy = 200
    @Option(help: "Events in the calendar file.") var events = 5_000
    @Option(help: "Rounds of each in-process measurement (the median is reported).") var rounds = 5
    @Flag(help: "Print only the JSON report.") var json = false

    static let windows = [
        "Mon-Fri 18:00-21:00", "Sat-Sun 10:00-16:00", "Mon,Wed 07:30-09:00", "daily 12:00-14:00",
        "Tue,Thu 19:00-22:00", "Fri 17:00-23:00",
    ]

    /// Monday 23 November 2026, 08:00 (London and UTC agree in winter).
    static let now = Timestamp.parse("2026-11-23T08:00:00Z")!

    func run() async throws {
        var random = SplitMix(seed: 20_261_123)
        let today = LocalDate(year: 2026, month: 11, day: 23)!
        let household = (0..<people).map { index in
            (
                name: "Person \(index)", cadence: Int.random(in: 3...60, using: &random),
                importance: Int.random(in: 1...5, using: &random), duration: [30, 60][index % 2],
                window: Self.windows[Int.random(in: 0..<Self.windows.count, using: &random)],
                last: today.adding(days: -Int.random(in: 0...90, using: &random))
            )
        }
        let busyTimes = (0..<busy).map { _ in
            let start =
                SocialPlanner.minute(today, LocalTime(hour: 0, minute: 0)!)
                + Int.random(in: 0...(14 * 1440), using: &random) / 15 * 15
            return SocialPlanner.Booking(
                start: start, end: start + [30, 60, 120][Int.random(in: 0...2, using: &random)])
        }
        var preferences = Social.Preferences()
        preferences.capacity = 200
        preferences.horizon = 14
        let persons = try household.enumerated().map { index, person in
            SocialPlanner.Person(
                id: String(format: "%08d-0000-4000-8000-000000000000", index), name: person.name,
                cadence: person.cadence, importance: person.importance, duration: person.duration,
                windows: [try AvailabilityWindow(parsing: person.window)], lastCompleted: person.last)
        }

        log("(a) placing \(people) people over 14 days in process…")
        let clock = ContinuousClock()
        var placed = 0
        var times: [Double] = []
        for _ in 0..<rounds {
            var planner = SocialPlanner(preferences: preferences, busy: busyTimes)
            let start = clock.now
            let plan = planner.plan(
                people: persons, planned: [], today: today,
                now: SocialPlanner.minute(today, LocalTime(hour: 8, minute: 0)!))
            times.append((clock.now - start).seconds * 1000)
            placed = plan.placed.count
        }
        let placeMs = times.sorted()[times.count / 2]
        log("    \(placed) placed in \(String(format: "%.1f", placeMs)) ms")

        let context = try ZMQContext()
        let stack = try await TestStack(
            [.bus, .store], environment: ServiceProcesses.quiet.merging(["HEARTH_TIME_ZONE": "Europe/London"]) { $1 },
            context: context)
        let commands = CommandClient(
            context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(120))
        log("(b) \(people) people through hearth-store, then plan.week…")
        _ = try await commands.request("plan.prefs.set", args: ["capacity": 200, "horizon": 14])
        for person in household {
            _ = try await commands.request("people.add", args: ["name": .string(person.name)])
            _ = try await commands.request(
                "people.goal",
                args: [
                    "person": .string(person.name), "every": .int(Int64(person.cadence)),
                    "importance": .int(Int64(person.importance)), "duration": .string("\(person.duration)m"),
                    "windows": [.string(person.window)], "last": .string(person.last.description),
                ])
        }
        let nowMs = JSONValue.int(Int64(Self.now.timeIntervalSince1970 * 1000))
        let weekStart = clock.now
        let week = try await commands.request("plan.week", args: ["now": nowMs])
        let weekMs = (clock.now - weekStart).seconds * 1000
        let storePlaced = week["placed"]?.arrayValue?.count ?? 0
        let rawMs = try await RawSQLite.oneTransaction(storePlaced, path: stack.home.path + "/raw.sqlite")
        log("    \(storePlaced) placed in \(String(format: "%.1f", weekMs)) ms")

        log("(c) a \(events)-event calendar file…")
        let file = stack.home.file("big.ics")
        try Data(Self.calendar(events: events).utf8).write(to: URL(fileURLWithPath: file))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var readTimes: [Double] = []
        var busyRead = 0
        for _ in 0..<rounds {
            let start = clock.now
            let reading = try CalendarFile.read(
                text, from: today.adding(days: -7), through: today.adding(days: 90),
                zone: TimeZone(identifier: "Europe/London")!)
            readTimes.append((clock.now - start).seconds * 1000)
            busyRead = reading.busy.count
        }
        let readMs = readTimes.sorted()[readTimes.count / 2]
        var importTimes: [Double] = []
        var imported: JSONValue = .null
        let store = stack.processes[.store]
        let rssBefore = store?.memory("VmRSS") ?? 0
        for _ in 0..<rounds {
            let start = clock.now
            imported = try await commands.request("plan.busy.import", args: ["path": .string(file), "now": nowMs])
            importTimes.append((clock.now - start).seconds * 1000)
        }
        let importMs = importTimes.sorted()[importTimes.count / 2]
        // What one import holds: the store's peak resident memory over the imports, against
        // what it held before them.
        let peak = store?.memory("VmHWM") ?? 0
        log("    read \(String(format: "%.1f", readMs)) ms, imported \(String(format: "%.1f", importMs)) ms")
        await commands.close()
        _ = await stack.stop()
        await context.terminate()

        let report: JSONValue = [
            "people": .int(Int64(people)), "busy_events": .int(Int64(busy)), "horizon_days": 14,
            "placed": .int(Int64(placed)),
            "place_1000x14_ms": .double(round3(placeMs)),
            "plan_week_store_ms": .double(round3(weekMs)),
            "plan_week_store_placed": .int(Int64(storePlaced)),
            "raw_sqlite_same_rows_ms": .double(round3(rawMs)),
            "ics_events": .int(Int64(events)),
            "ics_busy_occurrences": .int(Int64(busyRead)),
            "ics_read_ms": .double(round3(readMs)),
            "ics_import_ms": .double(round3(importMs)),
            "ics_import_errors": .int(Int64(imported["errors"]?.arrayValue?.count ?? -1)),
            "ics_file_mib": .double(round3(Double(text.utf8.count) / 1_048_576)),
            "store_rss_before_mib": .double(round3(Double(rssBefore) / 1_048_576)),
            "store_peak_rss_mib": .double(round3(Double(peak) / 1_048_576)),
            "rounds": .int(Int64(rounds)),
            "targets": ["place_1000x14_ms": 50],
        ]
        print(report.jsonText)
    }

    /// `count` events: four in five single hour-long events over three months, one in five
    /// weekly for a year with one date excluded, in London, New York or floating time.
    static func calendar(events count: Int) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//hearth-bench//EN"]
        let zones = [";TZID=Europe/London", ";TZID=America/New_York", ""]
        for index in 0..<count {
            let day = 1 + index % 28
            let month = 11 + (index / 28) % 3
            let (year, shown) = month > 12 ? (2027, month - 12) : (2026, month)
            let stamp = String(format: "%04d%02d%02dT%02d0000", year, shown, day, 8 + index % 12)
            lines += [
                "BEGIN:VEVENT", "UID:bench-\(index)", "SUMMARY:Event \(index)", "DTSTART\(zones[index % 3]):\(stamp)",
                "DURATION:PT1H",
            ]
            if index % 5 == 0 {
                lines.append("RRULE:FREQ=WEEKLY;COUNT=52")
                let excluded = String(format: "%04d%02d%02dT%02d0000", year, shown, day, 8 + index % 12)
                lines.append("EXDATE\(zones[index % 3]):\(excluded)")
            }
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private func log(_ text: String) {
        if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    }
}
