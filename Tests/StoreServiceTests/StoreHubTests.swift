import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import Logging
import Testing

@testable import StoreService

@Suite("hearth-store: the family hub — members, roles, timetable import, clashes", .serialized, .timeLimit(.minutes(2)))
struct StoreHubTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// A file with every messy trait of real exports: a byte-order mark, Excel's `sep=;` line,
    /// CRLF, a header in odd case, quoted fields holding the delimiter, quotes and a line break,
    /// blank lines and an all-empty row, spaces around fields, and the common spellings — with one
    /// bad row of each kind. Its lines are numbered in the comments.
    static let messy =
        "\u{FEFF}sep=;\r\n"  // 1
        + "WEEK; day ;Period;Subject;Teacher Code;Room\r\n"  // 2
        + "Week 1;Mon;AM Reg;Registration;MrT;R1\r\n"  // 3
        + "1; monday ;Period 1;\"Maths; set 1\";MrS;R12\r\n"  // 4
        + "\r\n"  // 5
        + ";;;;;\r\n"  // 6
        + "1;Funday;2;English;MsE;R4\r\n"  // 7: unknown day
        + "1;Tue;6;Art;;A1\r\n"  // 8: period out of range
        + "3;Tue;1;Art;;A1\r\n"  // 9: week not 1 or 2
        + "1;Tue;2;;MrX;\r\n"  // 10: missing subject and room
        // 11–12: a line break in a quoted field
        + "\"1\";\"Wed\";\"P2\";\"Science\r\nlab\";\"Mr \"\"X\"\"\";\" L3 \"\r\n"
        + "wk1;MON;1;Double;X;Y\r\n"  // 13: a second row for line 4's slot
        + "  2 ; fri ; pm registration ; Reg ;  ; R1 \r\n"  // 14
        + "\r\n"  // 15

    private func add(_ running: RunningStore, _ name: String, _ role: String) async throws -> String {
        let reply = try await running.commands.request(
            "member.add", args: ["name": .string(name), "role": .string(role)])
        return try #require(reply["member"]?["id"]?.stringValue)
    }

    private func lessons(_ running: RunningStore, _ member: String) async throws -> [String] {
        let reply = try await running.commands.request("timetable.entries", args: ["member": .string(member)])
        return (reply["entries"]?.arrayValue ?? []).map {
            "\($0["week"]?.intValue ?? 0) \($0["day"]?.stringValue ?? "") \($0["period"]?.stringValue ?? "") \($0["subject"]?.stringValue ?? "") \($0["teacher"]?.stringValue ?? "-") \($0["room"]?.stringValue ?? "")"
        }
    }

    @Test("a messy file imports its valid rows and reports each bad row with its line; the preview writes nothing")
    func messyImport() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            let before = try await operationCount(running)
            let preview = try await running.commands.request(
                "timetable.import", args: ["member": "Ann", "csv": .string(Self.messy)])
            #expect(preview["confirmed"] == false)
            #expect(preview["valid"] == 4)
            #expect(preview["delimiter"] == ";")
            let errors = (preview["errors"]?.arrayValue ?? []).map {
                "\($0["line"]?.intValue ?? 0): \($0["reason"]?.stringValue ?? "")"
            }
            #expect(errors.count == 5)
            #expect(errors[0].hasPrefix("7: 'day' is an unknown day"))
            #expect(errors[1].hasPrefix("8: 'period' is out of range"))
            #expect(errors[2].hasPrefix("9: 'week' must be week 1 or 2"))
            #expect(
                errors[3] == "10: 'subject' is required and must not be blank; 'room' is required and must not be blank"
            )
            #expect(errors[4] == "13: two rows for one slot: week 1 Monday period 1 is already on line 4")
            #expect((preview["rows"]?.arrayValue ?? []).map { $0["line"]?.intValue ?? 0 } == [3, 4, 11, 14])
            #expect(try await operationCount(running) == before)
            #expect(try await lessons(running, "Ann") == [])

            // More bad rows than good: the preview says a confirm would be refused, and it is,
            // unless replace_anyway says the valid rows are wanted.
            #expect(preview["refusal"]?.stringValue?.contains("4 valid lessons and 5 bad rows") == true)
            await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "timetable.import", args: ["member": "Ann", "csv": .string(Self.messy), "confirm": true])
            }
            #expect(try await operationCount(running) == before)
            let confirmed = try await running.commands.request(
                "timetable.import",
                args: ["member": "Ann", "csv": .string(Self.messy), "confirm": true, "replace_anyway": true])
            #expect(confirmed["confirmed"] == true)
            #expect(confirmed["valid"] == 4)
            #expect(
                try await lessons(running, "Ann") == [
                    "1 Monday AM Registration Registration MrT R1", "1 Monday 1 Maths; set 1 MrS R12",
                    "1 Wednesday 2 Science lab Mr \"X\" L3", "2 Friday PM Registration Reg - R1",
                ])
        }
    }

    @Test("a comma file with no header and a semicolon file with no sep line are read by their delimiter")
    func delimiters() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            let comma = "1,Mon,1,\"Maths, set 1\",MrS,R12\n2,Tue,2,English,,R4\n"
            let reply = try await running.commands.request(
                "timetable.import", args: ["member": "Ann", "csv": .string(comma)])
            #expect(reply["valid"] == 2)
            #expect(reply["errors"] == [])
            let semicolon = "Week;Day;Period;Subject;Teacher;Room\n1;Mon;1;Maths, set 1;MrS;R12\n"
            let other = try await running.commands.request(
                "timetable.import", args: ["member": "Ann", "csv": .string(semicolon)])
            #expect(other["valid"] == 1)
            #expect(other["delimiter"] == ";")
            let headless = try await running.commands.request(
                "timetable.import", args: ["member": "Ann", "csv": "Day,Period,Subject\nMon,1,Maths\n"])
            #expect(headless["valid"] == 0)
            #expect(headless["errors"]?.arrayValue?.first?["reason"]?.stringValue?.contains("lacks week, room") == true)
        }
    }

    @Test("a PDF's words with no text, with a CSV too, or with neither, are refused naming the argument")
    func pdfLayoutRefusals() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            let blank: JSONValue = ["pages": [["width": 595, "height": 842, "words": []]]]
            let word: JSONValue = ["pages": [["width": 595, "height": 842, "words": [[1, 2, 30, 12, "Mon"]]]]]
            let cases: [([String: JSONValue], String, String)] = [
                (["layout": blank, "confirm": true], "layout", "this PDF has no text; a scanned timetable needs OCR"),
                (["layout": word, "csv": "1,Mon,1,Maths,,R1\n"], "layout", "must not be given with csv"),
                ([:], "csv", "is required (or layout"),
                (
                    ["layout": ["pages": [["width": 1, "height": 1, "words": [[5, 2, 1, 12, "x"]]]]]], "layout",
                    "x0 ≤ x1"
                ),
            ]
            for (arguments, field, rule) in cases {
                let error = await #expect(throws: CommandClientError.self) {
                    try await running.commands.request(
                        "timetable.import", args: arguments.merging(["member": "Ann"]) { a, _ in a })
                }
                guard case .refused(let refusal)? = error else {
                    Issue.record("\(arguments): \(String(describing: error))")
                    continue
                }
                #expect(refusal.code == "invalid_argument", "\(refusal)")
                #expect(refusal.message.contains(field) && refusal.message.contains(rule), "\(refusal.message)")
            }
            #expect(try await lessons(running, "Ann").isEmpty)
        }
    }

    @Test(
        "a confirmed import replaces the member's timetable in one transaction; the replaced lessons keep their history"
    )
    func replaces() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            let old = try await running.commands.request(
                "timetable.add",
                args: ["member": "Ann", "week": 1, "day": "Thu", "period": "5", "subject": "Old", "room": "Z9"])
            let oldID = try #require(old["entries"]?.arrayValue?.first?["id"]?.stringValue)
            let changesBefore =
                try await running.commands.request("changes", args: ["since": 0])["last_seq"]?.intValue ?? 0
            _ = try await running.commands.request(
                "timetable.import", args: ["member": "Ann", "csv": "1,Mon,1,Maths,MrS,R12\n", "confirm": true])
            #expect(try await lessons(running, "Ann") == ["1 Monday 1 Maths MrS R12"])
            let history = try await running.store.database.pool.read { db in
                try String.fetchAll(
                    db, sql: "SELECT fields FROM operation WHERE entity_id = ? ORDER BY wall, logical",
                    arguments: [oldID])
            }
            #expect(history.count == 2)
            #expect(history.first?.contains("Old") == true)
            #expect(history.last?.contains("\"deleted\"") == true)
            // One transaction: the removal and the new lesson are consecutive changes.
            let changes = try await running.commands.request("changes", args: ["since": .int(changesBefore)])
            #expect(changes["changes"]?.arrayValue?.count == 2)
        }
    }

    @Test(
        "a student's profile cannot undo or redo, nor see in the undo list, a change to another member's lessons; its own it can"
    )
    func studentUndo() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            _ = try await add(running, "Bob", "student")
            // Made on this device with no profile chosen (a parent at the kitchen screen).
            _ = try await running.commands.request(
                "timetable.add",
                args: ["member": "Bob", "week": 1, "day": "Mon", "period": 1, "subject": "Maths", "room": "R1"])
            _ = try await running.commands.request("member.use", args: ["member": "ann"])
            let list = try await running.commands.request("undo.list").decode(UndoList.self)
            #expect(!list.steps.contains { $0.command == "timetable.add" }, "\(list.steps.map(\.summary))")
            let before = try await operationCount(running)
            let error = await #expect(throws: CommandClientError.self) {
                try await running.commands.request("undo")
            }
            guard case .refused(let refusal)? = error else {
                Issue.record("undo: \(String(describing: error))")
                return
            }
            #expect(refusal.code == "not_allowed", "\(refusal)")
            #expect(refusal.message.contains("Bob's timetable"), "\(refusal)")
            #expect(try await operationCount(running) == before)
            let lessons = try await DatabaseQueue(path: running.home.file("hearth.sqlite")).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM timetable_entry WHERE subject = 'Maths'")
            }
            #expect(lessons == 1, "Bob's lesson is still there")
            // Her own lesson she can take back.
            _ = try await running.commands.request("member.use", args: ["member": "ann"])
            _ = try await running.commands.request(
                "timetable.add", args: ["week": 1, "day": "Tue", "period": 2, "subject": "Art", "room": "A1"])
            let undone = try await running.commands.request("undo").decode(UndoReport.self)
            #expect(undone.step.command == "timetable.add" && undone.restoredTotal == 1, "\(undone)")
        }
    }

    @Test("a student's profile reading or editing another member's timetable is refused; a parent's may")
    func roles() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            _ = try await add(running, "Bob", "student")
            _ = try await add(running, "Mum", "parent")
            _ = try await running.commands.request(
                "timetable.add",
                args: ["member": "Bob", "week": 1, "day": "Mon", "period": 1, "subject": "Maths", "room": "R1"])
            _ = try await running.commands.request("member.use", args: ["member": "ann"])
            let before = try await operationCount(running)
            let refusals: [(String, [String: JSONValue])] = [
                ("timetable.entries", ["member": "Bob"]),
                ("timetable.days", ["member": "Bob", "from": "2026-11-23", "to": "2026-11-23"]),
                (
                    "timetable.add",
                    ["member": "Bob", "week": 1, "day": "Tue", "period": 1, "subject": "Art", "room": "A"]
                ),
                ("timetable.edit", ["member": "Bob", "entry": "1 Mon 1", "room": "R2"]),
                ("timetable.remove", ["member": "Bob", "entry": "1 Mon 1"]),
                ("timetable.import", ["member": "Bob", "csv": "1,Mon,1,Maths,,R1\n"]),
                ("timetable.copy_week", ["member": "Bob", "from": 1, "to": 2]),
                ("member.add", ["name": "Cy", "role": "student"]),
                ("timetable.configure", ["week1_start": "2026-09-07"]),
            ]
            for (command, arguments) in refusals {
                let error = await #expect(throws: CommandClientError.self, "\(command)") {
                    try await running.commands.request(command, args: arguments)
                }
                guard case .refused(let refusal)? = error else {
                    Issue.record("\(command): \(String(describing: error))")
                    continue
                }
                #expect(refusal.code == "not_allowed", "\(command): \(refusal)")
                #expect(refusal.message.contains("Ann's, a student's"), "\(command): \(refusal)")
            }
            #expect(try await operationCount(running) == before)
            // Her own: fine, with no --member needed.
            let own = try await running.commands.request(
                "timetable.add", args: ["week": 1, "day": "Mon", "period": 1, "subject": "Art", "room": "A1"])
            #expect(own["entries"]?.arrayValue?.first?["member"] == "Ann")
            _ = try await running.commands.request("member.use", args: ["member": "Mum"])
            #expect(try await lessons(running, "Bob") == ["1 Monday 1 Maths - R1"])
            let edited = try await running.commands.request(
                "timetable.edit", args: ["member": "Bob", "entry": "1 Mon 1", "room": "R2"])
            #expect(edited["entries"]?.arrayValue?.first?["room"] == "R2")
        }
    }

    @Test("an add that makes a clash says so; clashes lists teacher and room clashes across members")
    func clashes() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            _ = try await add(running, "Bob", "student")
            let first = try await running.commands.request(
                "timetable.add",
                args: [
                    "member": "Ann", "week": 1, "day": "Mon", "period": 1, "subject": "Maths", "teacher": "MrS",
                    "room": "R12",
                ])
            #expect(first["clashes"] == [])
            let second = try await running.commands.request(
                "timetable.add",
                args: [
                    "member": "Bob", "week": 1, "day": "Mon", "period": 1, "subject": "Physics", "teacher": "MrS",
                    "room": "R5",
                ])
            #expect(second["clashes"]?.arrayValue?.first?["kind"] == "teacher")
            _ = try await running.commands.request(
                "timetable.add",
                args: ["member": "Bob", "week": 2, "day": "Fri", "period": 3, "subject": "Art", "room": "A1"])
            _ = try await running.commands.request(
                "timetable.add",
                args: ["member": "Ann", "week": 2, "day": "Fri", "period": 3, "subject": "Drama", "room": "a1"])
            let all = try await running.commands.request("timetable.clashes")["clashes"]?.arrayValue ?? []
            #expect(all.map { $0["kind"]?.stringValue ?? "" } == ["teacher", "room"])
            let slotTaken = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "timetable.add",
                    args: [
                        "member": "Ann", "week": "Week 1", "day": "monday", "period": "Period 1", "subject": "X",
                        "room": "Y",
                    ])
            }
            #expect(slotTaken?.description.contains("already has Maths") == true)
        }
    }

    @Test(
        "an edit giving a lesson only an end before its start is refused on the lesson it would be; nothing is written")
    func lessonTimesOnTheWholeLesson() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            _ = try await running.commands.request(
                "timetable.add",
                args: [
                    "member": "Ann", "week": 1, "day": "Mon", "period": 1, "subject": "Maths", "room": "R12",
                    "start": "09:10", "end": "10:00",
                ])
            let before = try await operationCount(running)
            let refused = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "timetable.edit", args: ["member": "Ann", "entry": "1 Mon 1", "end": "09:00"])
            }
            #expect(refused?.description.contains("'end' must be after start 09:10:00, got 09:00:00") == true)
            #expect(try await operationCount(running) == before)
            let copy = await #expect(throws: CommandClientError.self) {
                try await running.commands.request(
                    "timetable.duplicate",
                    args: ["member": "Ann", "entry": "1 Mon 1", "week": 1, "day": "Tue", "period": 1, "end": "09:05"])
            }
            #expect(copy?.description.contains("'end' must be after start") == true)
            #expect(try await operationCount(running) == before)
        }
    }

    @Test(
        "class sources hold school days of the right week only: no weekend, no holiday, the override honoured; only the profile's member's on a device with one"
    )
    func classSources() async throws {
        try await withStore(context: context) { (running: RunningStore) async throws in
            _ = try await add(running, "Ann", "student")
            _ = try await running.commands.request("timetable.configure", args: ["week1_start": "2026-11-09"])
            _ = try await running.commands.request(
                "timetable.bells", args: ["bells": ["1=09:00-10:00", "2=10:00-11:00"]])
            _ = try await running.commands.request(
                "timetable.import",
                args: [
                    "member": "Ann", "csv": "1,Mon,1,Maths,MrS,R12\n2,Mon,2,Art,,A1\n1,Tue,1,French,,L2\n",
                    "confirm": true,
                ])
            _ = try await running.commands.request(
                "timetable.holiday.add", args: ["from": "2026-11-24", "to": "2026-11-24", "name": "Inset"])
            // Week of the 16th is Week 2 by the count; of the 23rd Week 1.
            func classes(_ from: String, _ to: String) async throws -> [String] {
                let reply = try await running.commands.request(
                    "class.sources", args: ["from": .string(from), "to": .string(to)])
                let ann = reply["members"]?.arrayValue?.first { $0["name"] == "Ann" }
                return (ann?["classes"]?.arrayValue ?? []).map {
                    "\($0["date"]?.stringValue ?? "") \($0["subject"]?.stringValue ?? "") \($0["start"]?.stringValue ?? "")"
                }
            }
            #expect(try await classes("2026-11-16", "2026-11-17") == ["2026-11-16 Art 10:00"])
            // The weekend, then the Inset day.
            #expect(try await classes("2026-11-21", "2026-11-24") == ["2026-11-23 Maths 09:00"])
            // The Inset day removed by its name (any case): its day has its lesson again.
            let removed = try await running.commands.send(SchoolCommands.RemoveHoliday(holiday: "inset"))
            #expect(!removed.holiday.id.isEmpty && removed.seq > 0, "\(removed)")
            #expect(try await classes("2026-11-24", "2026-11-24") == ["2026-11-24 French 09:00"])
            _ = try await running.commands.request(
                "timetable.override", args: ["week": 1, "from": "2026-11-16", "to": "2026-11-20"])
            #expect(
                try await classes("2026-11-16", "2026-11-17") == ["2026-11-16 Maths 09:00", "2026-11-17 French 09:00"])
            // Whose popups this device raises: its profile's member's; a parent's laptop none of Ann's.
            _ = try await add(running, "Mum", "parent")
            _ = try await running.commands.request("member.use", args: ["member": "Mum"])
            #expect(try await classes("2026-11-16", "2026-11-17") == [])
            _ = try await running.commands.request("member.use", args: ["member": "Ann"])
            #expect(try await classes("2026-11-16", "2026-11-17").count == 2)
            _ = try await running.commands.request("member.use", args: ["member": .null])
            #expect(try await classes("2026-11-16", "2026-11-17").count == 2)
            _ = try await running.commands.request("member.notify", args: ["member": "Ann", "off": true])
            _ = try await running.commands.request("member.notify", args: ["member": "Mum", "off": true])
            #expect(
                try await running.commands.request("class.sources", args: ["from": "2026-11-16", "to": "2026-11-17"])[
                    "members"] == [])
        }
    }
}
