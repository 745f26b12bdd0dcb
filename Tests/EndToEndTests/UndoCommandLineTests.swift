import Foundation
import HearthBus
import HearthTesting
import Testing

/// `hearth undo`, `hearth redo` and `hearth undo --list` against real processes.
@Suite("End to end: undo and redo from the command line", .serialized, .timeLimit(.minutes(2)))
struct UndoCommandLineTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("an edit, a card and an import undone and redone; the list says what each changed")
    func commandLine() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        #expect(try await stack.hearth(["collection", "add", "Home", "--kind", "list"]).status == 0)
        let added = try await stack.hearth(["--json", "todo", "add", "Buy milk", "--collection", "Home"])
        let id = try #require(try JSONValue.parse(added.stdout)["todo"]?["id"]?.stringValue)
        #expect(try await stack.hearth(["todo", "edit", id, "--title", "Buy oat milk"]).status == 0)

        let undone = try await stack.hearth(["undo"])
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(undone.stdout.contains("undid: todo.edit · todo 'Buy oat milk'"), "\(undone.stdout)")
        // What was restored, named by what it is now (issue 63: not by the title taken back).
        #expect(undone.stdout.contains("restored todo 'Buy milk': title"), "\(undone.stdout)")
        #expect(try await stack.hearth(["todo", "list"]).stdout.contains("Buy milk"))
        let redone = try await stack.hearth(["redo"])
        #expect(redone.stdout.contains("redid: todo.edit"), "\(redone.stdout)")
        #expect(try await stack.hearth(["todo", "list"]).stdout.contains("Buy oat milk"))

        #expect(try await stack.hearth(["event", "set", "august", "--title", "Beach day"]).status == 0)
        #expect(try await stack.hearth(["member", "add", "Ann", "--role", "student"]).status == 0)
        let file = stack.home.file("ann.csv")
        try "1,Mon,1,Maths,MrS,R12\n1,Tue,2,Art,,A1\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await stack.hearth(["timetable", "import", file, "--member", "Ann", "--confirm"]).status == 0)

        let list = try await stack.hearth(["undo", "--list"])
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("timetable.import  lesson 'Maths' and 1 more") == true, "\(list.stdout)")
        #expect(list.stdout.contains("event.set  card 'Beach day'"), "\(list.stdout)")
        #expect(list.stdout.contains("todo.edit  todo 'Buy oat milk'"), "\(list.stdout)")

        let lessons = try await stack.hearth(["undo"])
        #expect(lessons.stdout.contains("restored lesson 'Maths': removed"), "\(lessons.stdout)")
        #expect(try await stack.hearth(["timetable", "list", "--member", "Ann"]).stdout.contains("Ann: 0 lessons"))
        _ = try await stack.hearth(["undo"])  // member.add
        let card = try await stack.hearth(["undo"])
        #expect(card.stdout.contains("undid: event.set · card 'Beach day'"), "\(card.stdout)")
        #expect(!(try await stack.hearth(["event", "show", "august"]).stdout.contains("Beach day")))

        let json = try JSONValue.parse(try await stack.hearth(["--json", "undo", "--list", "--limit", "2"]).stdout)
        #expect(json["steps"]?.arrayValue?.map { $0["state"] } == ["undone", "undone"])
        #expect(json["can_redo"] == true)
        while try await stack.hearth(["undo"]).status == 0 {}
        let nothing = try await stack.hearth(["undo"])
        #expect(nothing.status != 0 && nothing.stderr.contains("nothing to undo on this device"), "\(nothing.stderr)")
        _ = await stack.stop()
    }
}
