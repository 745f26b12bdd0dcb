import Foundation
import GRDB
import HearthBus
import HearthTesting
import Testing

/// The family hub on the command line against real processes: import from a file, the views,
/// and an import killed mid-transaction.
@Suite("End to end: the family hub's timetables", .serialized, .timeLimit(.minutes(2)))
struct TimetableTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// 60 lessons: both weeks, every day, periods 1–5 and both registrations (the registrations on
    /// Mondays only), as a school's export would have them.
    static func bigFile() -> String {
        var lines = ["Week,Day,Period,Subject,Teacher,Room"]
        for week in 1...2 {
            for day in ["Mon", "Tue", "Wed", "Thu", "Fri"] {
                for period in 1...5 {
                    lines.append("\(week),\(day),\(period),Subject \(week)\(day)\(period),T\(period),R\(period)")
                }
            }
            lines.append("\(week),Mon,AM Reg,Registration,MrT,R1")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private func lessonCount(_ home: TemporaryHome) async throws -> (Int, Int) {
        let database = try DatabaseQueue(path: home.file("hearth.sqlite"))
        return try await database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM timetable_entry") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM timetable_entry WHERE subject LIKE 'Old%'") ?? -1
            )
        }
    }

    @Test("kill the store mid-import: the old timetable or the whole new one, never a mix")
    func killedMidImport() async throws {
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_FAULT_IMPORT_STALL_MS": "30000"], context: context)
        let file = stack.home.file("timetable.csv")
        try Self.bigFile().write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await stack.hearth(["member", "add", "Ann", "--role", "student"]).status == 0)
        for (day, subject) in [("Mon", "Old maths"), ("Tue", "Old art"), ("Wed", "Old drama")] {
            let added = try await stack.hearth([
                "timetable", "add", "--member", "Ann", "--week", "1", "--day", day, "--period", "1", "--subject",
                subject,
                "--room", "Z1",
            ])
            #expect(added.status == 0, "\(added.stderr)")
        }
        let store = try #require(stack.processes[.store])
        let importing = try await ChildProcess(
            "hearth", ["timetable", "import", file, "--member", "Ann", "--confirm", "--timeout", "60000"],
            environment: stack.environment)
        #expect(await store.errors.waitForLine(containing: "import stalled mid-transaction") != nil)
        store.signal(SIGKILL)
        #expect(await store.waitForExit(timeout: .seconds(5)) == -SIGKILL)
        importing.signal(SIGTERM)
        #expect(try await lessonCount(stack.home) == (3, 3))

        // Restarted without the fault: the import goes through whole, and survives a kill after it.
        var environment = stack.environment
        environment["HEARTH_FAULT_IMPORT_STALL_MS"] = nil
        let second = try await TestStack.start(.store, environment: environment)
        #expect(
            await TestStack.waitUntilAnswering(
                stack.configuration.commandEndpoint(.store), context: context, timeout: .seconds(10)))
        let imported = try await stack.hearth(["timetable", "import", file, "--member", "Ann", "--confirm"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stdout.contains("imported 52 lessons for Ann (replacing 3); 0 bad rows skipped"),
            "\(imported.stdout)")
        second.signal(SIGKILL)
        #expect(await second.waitForExit(timeout: .seconds(5)) == -SIGKILL)
        #expect(try await lessonCount(stack.home) == (52, 0))
        _ = await stack.stop()
    }

    @Test("import preview and confirm, views, now and next, roles and clashes, from the command line")
    func commandLine() async throws {
        let stack = try await TestStack(
            [.bus, .store], environment: ["HEARTH_TIME_ZONE": "Europe/London"], context: context)
        func hearth(_ arguments: [String]) async throws -> (status: Int32?, stdout: String, stderr: String) {
            try await stack.hearth(arguments)
        }
        for (name, role) in [("Ann", "student"), ("Bob", "student"), ("Mum", "parent")] {
            #expect(try await hearth(["member", "add", name, "--role", role]).status == 0)
        }
        #expect(try await hearth(["timetable", "settings", "--week1-start", "2026-11-16"]).status == 0)
        let bells = try await hearth([
            "timetable", "bells", "AM Registration=08:40-09:00", "1=09:00-10:00", "2=10:00-11:00", "3=11:15-12:15",
        ])
        #expect(bells.stdout.contains("3                11:15–12:15"), "\(bells.stdout)")
        let file = stack.home.file("ann.csv")
        try
            "sep=;\r\nWeek;Day;Period;Subject;Teacher;Room\r\n2;Mon;AM Reg;Registration;MrT;R1\r\n2;Mon;1;Maths;MrS;R12\r\n2;Mon;3;English;;R4\r\n2;Sat;2;Chess;;C1\r\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let preview = try await hearth(["timetable", "import", file, "--member", "Ann"])
        #expect(preview.status == 0)
        #expect(
            preview.stdout.contains("line 6: 'day' must be a school day, Monday–Friday, got 'Sat' (a weekend day)"),
            "\(preview.stdout)")
        #expect(preview.stdout.contains("preview: 3 valid rows, 1 bad row — nothing written"))
        let json = try JSONValue.parse(
            try await hearth(["--json", "timetable", "import", file, "--member", "Ann"]).stdout)
        #expect(json["valid"] == 3)
        #expect(
            json["errors"] == [
                ["line": 6, "reason": "'day' must be a school day, Monday–Friday, got 'Sat' (a weekend day)"]
            ])
        #expect(json["clashes"] == [])
        #expect(try await hearth(["timetable", "list", "--member", "Ann"]).stdout.contains("Ann: 0 lessons"))
        #expect(try await hearth(["timetable", "import", file, "--member", "Ann", "--confirm"]).status == 0)

        // 23 November 2026 is in Week 2 (Week 1 began on the 16th).
        let day = try await hearth(["timetable", "day", "--member", "Ann", "--date", "2026-11-23"])
        #expect(day.stdout.contains("Monday 2026-11-23 · Week 2"), "\(day.stdout)")
        #expect(day.stdout.contains("1                09:00–10:00  Maths · R12 · MrS"))
        let now = try await hearth(["timetable", "now", "--member", "Ann", "--at", "2026-11-23T09:30:00Z"])
        #expect(now.stdout.contains("Now:  Maths in R12 with MrS · period 1, 09:00–10:00"), "\(now.stdout)")
        #expect(now.stdout.contains("Next: English in R4 · period 3, 11:15–12:15"), "\(now.stdout)")
        let after = try await hearth(["timetable", "now", "--member", "Ann", "--at", "2026-11-23T16:00:00Z"])
        #expect(
            after.stdout.contains("Next: Monday 2026-12-07 · Week 2: Registration in R1 with MrT"), "\(after.stdout)")
        let fortnight = try await hearth(["timetable", "fortnight", "--member", "Ann", "--date", "2026-11-23"])
        #expect(fortnight.stdout.contains("Week 2 (this week)"))
        // Rows for the periods with bells (Registration, 1–3), none for 4, 5 or PM Registration.
        let rows = fortnight.stdout.split(separator: "\n").map {
            String($0.prefix(16)).trimmingCharacters(in: .whitespaces)
        }
        #expect(rows.contains("3") && rows.contains("2"), "\(fortnight.stdout)")
        #expect(!rows.contains("4") && !rows.contains("5"), "\(fortnight.stdout)")

        // Bob's Maths with MrS at the same time, in another room: a clash, said at once.
        let clash = try await hearth([
            "timetable", "add", "--member", "Bob", "--week", "2", "--day", "monday", "--period", "Period 1",
            "--subject", "Physics", "--teacher", "MrS", "--room", "R5",
        ])
        #expect(clash.stdout.contains("clash: teacher MrS in two places, week 2 Monday"), "\(clash.stdout)")
        #expect(try await hearth(["timetable", "clashes"]).stdout.contains("teacher MrS in two places"))
        #expect(try await hearth(["timetable", "list", "--member", "Bob"]).stdout.contains("Bob: 1 lesson\n"))

        #expect(try await hearth(["member", "use", "Ann"]).status == 0)
        let refused = try await hearth(["timetable", "day", "--member", "Bob", "--date", "2026-11-23"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("this device's profile is Ann's, a student's"), "\(refused.stderr)")
        #expect(try await hearth(["timetable", "day", "--date", "2026-11-23"]).stdout.contains("Maths"))
        _ = await stack.stop()
    }

    @Test(
        "an empty file, a misnamed header or an .ics given by mistake never empties a timetable: the confirm is refused with the counts"
    )
    func wrongFileKeepsLessons() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        _ = try await hearthSucceeding(stack, ["member", "add", "Ann", "--role", "student"])
        let good = stack.home.file("ann.csv")
        // 50 lessons: both weeks, every day, periods 1–5.
        let lines = (1...2).flatMap { week in
            ["Mon", "Tue", "Wed", "Thu", "Fri"].flatMap { day in
                (1...5).map { "\(week),\(day),\($0),Subject \(week)\(day)\($0),T\($0),R\($0)" }
            }
        }
        try (["Week,Day,Period,Subject,Teacher,Room"] + lines).joined(separator: "\n").write(
            toFile: good, atomically: true, encoding: .utf8)
        _ = try await hearthSucceeding(stack, ["timetable", "import", good, "--member", "Ann", "--confirm"])
        let misnamed = (["Week,Day,Period,Subjet,Teacher,Room"] + lines).joined(separator: "\n")
        let calendar =
            (["BEGIN:VCALENDAR", "VERSION:2.0"]
            + (1...40).flatMap {
                [
                    "BEGIN:VEVENT", "UID:\($0)@school", "DTSTART:20261123T0900\($0 % 10)0Z", "SUMMARY:Maths",
                    "END:VEVENT",
                ]
            }
            + ["END:VCALENDAR"]).joined(separator: "\r\n")
        for (name, text) in [("empty.csv", ""), ("misnamed.csv", misnamed), ("school.ics", calendar)] {
            let file = stack.home.file(name)
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let preview = try await stack.hearth(["timetable", "import", file, "--member", "Ann"])
            #expect(preview.stdout.contains("a --confirm would be refused"), "\(name): \(preview.stdout)")
            let refused = try await stack.hearth(["timetable", "import", file, "--member", "Ann", "--confirm"])
            #expect(refused.status == 2, "\(name)")
            #expect(refused.stderr.contains("refused: the file has"), "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("nothing was written"), "\(name)")
            let week = try JSONValue.parse(
                try await hearthSucceeding(stack, ["timetable", "fortnight", "--member", "Ann", "--json"]))
            #expect(
                week.jsonText.components(separatedBy: "Subject ").count - 1 == 50, "\(name) left other than 50 lessons")
        }
        // The person who means it says so.
        let empty = stack.home.file("empty.csv")
        _ = try await hearthSucceeding(
            stack, ["timetable", "import", empty, "--member", "Ann", "--confirm", "--replace-anyway"])
        let after = try await hearthSucceeding(stack, ["timetable", "fortnight", "--member", "Ann", "--json"])
        #expect(!after.contains("Subject "))
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
