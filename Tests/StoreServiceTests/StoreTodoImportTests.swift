import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import Synchronization
import Testing

@testable import StoreService

/// A big VTODO file against a real store: written in parts that other writes go between, one
/// step to undo, and asked again it adds nothing (issue 62 item 13).
@Suite("hearth-store: a big todo import", .serialized, .timeLimit(.minutes(3)))
struct StoreTodoImportTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// `todos` todos in the collection `Chores`, the first `subtasks` of them with a subtask each.
    private func file(in home: TemporaryHome, todos: Int, subtasks: Int) throws -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth tests//EN\r\n"
        for index in 0..<todos {
            text += "BEGIN:VTODO\r\nUID:chore-\(index)@example.org\r\nDTSTAMP:20261201T080000Z\r\n"
            text += "SUMMARY:Chore \(index)\r\nCATEGORIES:Chores\r\nEND:VTODO\r\n"
        }
        for index in 0..<subtasks {
            text += "BEGIN:VTODO\r\nUID:step-\(index)@example.org\r\nDTSTAMP:20261201T080000Z\r\n"
            text += "SUMMARY:Step \(index)\r\nRELATED-TO:chore-\(index)@example.org\r\nEND:VTODO\r\n"
        }
        text += "END:VCALENDAR\r\n"
        let path = home.file("chores.ics")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func count(_ running: RunningStore, _ table: String) async throws -> Int {
        try await running.store.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
        }
    }

    @Test("2,000 todos and 400 subtasks: a note written mid-import is answered before the import ends")
    func otherWritesGoBetween() async throws {
        try await withStore(context: context) { running in
            let (todos, subtasks) = (2_000, 400)
            let path = try file(in: running.home, todos: todos, subtasks: subtasks)
            let importer = CommandClient(
                context: context, endpoint: running.configuration.commandEndpoint(.store), timeout: .seconds(120),
                attempts: 1)
            let answered = Mutex(false)
            let importing = Task {
                defer { answered.withLock { $0 = true } }
                return try await importer.request("todo.import", args: ["path": .string(path), "confirm": true])
                    .decode(TodoImportReport.self)
            }
            // The first part is written while the rest are still to come.
            #expect(try await Polling.eventually(timeout: .seconds(60)) { try await count(running, "todo") > 0 })
            // Waited for patiently: what is asserted is that it is answered before the import, not how fast.
            let writer = CommandClient(
                context: context, endpoint: running.configuration.commandEndpoint(.store), timeout: .seconds(60),
                attempts: 1)
            _ = try await writer.request("note.set", args: ["date": "2026-12-06", "text": "Quiet day"])
            await writer.close()
            // (A part may be written with the note, in one transaction: the import's end is what counts.)
            #expect(!answered.withLock { $0 }, "the note waited for the whole import")

            let report = try await importing.value
            #expect(report.added == todos && report.subtasks == subtasks && report.collections == ["Chores"])
            #expect(report.problems.isEmpty, "\(report.problems)")
            #expect(try await count(running, "todo") == todos)
            #expect(try await count(running, "todo_subtask") == subtasks)

            // Asked again (a retry, or a run after one that failed part-way): nothing is added twice.
            let again = try await importer.request("todo.import", args: ["path": .string(path), "confirm": true])
                .decode(TodoImportReport.self)
            #expect(again.added == 0 && again.updated == 0 && again.subtasks == 0, "\(again)")
            #expect(try await count(running, "todo") == todos)

            // One step to undo: every todo, subtask and the collection go; the note written between stays.
            let list = try await running.commands.request("undo.list", args: ["limit": 3]).decode(UndoList.self)
            #expect(list.steps.map(\.command) == ["todo.import", "note.set"], "\(list.steps)")
            #expect(list.steps.first?.entities == todos + subtasks + 1, "\(list.steps)")
            #expect(list.steps.first?.summary.hasSuffix(" and \(todos + subtasks) more") == true, "\(list.steps)")
            // (Undoing 2,401 entities is one transaction, seconds long on a loaded debug build: the
            // importer's patient client asks.)
            let undone = try await importer.request("undo").decode(UndoReport.self)
            #expect(undone.leftTotal == 0 && undone.restoredTotal == todos + subtasks + 1, "\(undone.left)")
            #expect(try await count(running, "todo") == 0)
            #expect(try await count(running, "todo_subtask") == 0)
            #expect(try await count(running, "todo_collection") == 0)
            #expect(try await count(running, "daily_note") == 1)
            // Then the note, named by its day whole (it read `note 2026-12-`).
            let note = try await running.commands.request("undo").decode(UndoReport.self)
            #expect(note.restored == ["note 2026-12-06: text"], "\(note)")
            await importer.close()
        }
    }
}
