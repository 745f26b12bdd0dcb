import Foundation
import HearthBus
import HearthTesting
import Testing

@testable import WebService

/// Undo on the page: after an action the view shows "Changed: … Undo" for a few seconds; its
/// button takes the change back through the store's `undo` (then offers Redo), and the Changes
/// view lists this device's changes with the one button that applies.
@Suite("Household page: Undo after an action, and the list of changes", .serialized, .timeLimit(.minutes(1)))
struct UndoViewTests {
    @Test("an item added to a list: the bar offers Undo, Undo removes it and offers Redo, Redo brings it back")
    func undoBar() async throws {
        let fixture = try await WebFixture()
        let shopping = try await fixture.store.request("collection.add", args: ["name": "Shopping", "kind": "list"])
        let list = try #require(shopping["collection"]?["id"]?.stringValue)
        try await fixture.withClient { client in
            let added = try await client.post(
                "/today/lists/\(list)/add", [("back", "/today"), ("title", "Bread")], fragment: true)
            #expect(added.text.contains(">Bread</label>"))
            #expect(
                added.text.contains("Changed: todo &#39;Bread&#39;") || added.text.contains("Changed: todo 'Bread'"),
                "\(added.text)")
            #expect(added.text.contains("action=\"/undo/today\""), "\(added.text)")
            #expect(added.text.contains("data-expires-ms="))

            let undone = try await client.post("/undo/today", [("back", "/today")], fragment: true)
            #expect(undone.status == .ok)
            #expect(!undone.text.contains(">Bread</label>"), "\(undone.text)")
            #expect(
                undone.text.contains("Undone: ") && undone.text.contains("action=\"/redo/today\""), "\(undone.text)")

            let redone = try await client.post("/redo/today", [("back", "/today")], fragment: true)
            #expect(redone.text.contains(">Bread</label>"))

            let changes = try await client.get("/changes")
            #expect(changes.status == .ok)
            #expect(changes.text.contains("<h1>Changes made on this device</h1>"))
            #expect(changes.text.contains("todo.add") && changes.text.contains("collection.add"), "\(changes.text)")
            // One Undo, on the newest change; nothing to redo.
            #expect(changes.text.components(separatedBy: "action=\"/undo/changes\"").count == 2, "\(changes.text)")
            #expect(!changes.text.contains("action=\"/redo/changes\""))

            let nowhere = try await client.post("/undo/nowhere", [("back", "/today")], fragment: true)
            #expect(nowhere.status == .notFound)
        }
        // Everything done and undone: nothing left, said at the top of the Changes view.
        _ = try await fixture.store.request("undo")
        _ = try await fixture.store.request("undo")
        try await fixture.withClient { client in
            let refused = try await client.post("/undo/changes", [("back", "/changes")], fragment: true)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("nothing to undo on this device"), "\(refused.text)")
        }
        await fixture.close()
    }
}
