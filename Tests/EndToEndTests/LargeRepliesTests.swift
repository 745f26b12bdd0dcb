import Foundation
import HearthBus
import HearthTesting
import Testing

/// Lists longer than one message reach the command line whole: `todo list` with 5,001 todos and
/// `history` with 12,000 card edits (each reply well over the 256 KiB limit) used to be dropped
/// by the client, which then said the store was not answering.
///
/// The bound is against a hang, not a speed target (those are `hearth-bench`'s): alone, the debug
/// build takes 45 s (2026-12-07: 18 s adding the todos, 21 s importing the edits, 3 s each list);
/// in `make test`'s parallel run on a slow day of this 2-core machine, 208 s, past the 3 minutes
/// it had.
@Suite("End to end: long lists reach the command line whole", .serialized, .timeLimit(.minutes(6)))
struct LargeRepliesTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    @Test("todo list --json with 5,001 todos and history --json with 12,000 edits come whole, in parts")
    func longLists() async throws {
        let stack = try await TestStack([.bus, .store], context: context)
        _ = try await hearthSucceeding(stack, ["collection", "add", "Shopping", "--kind", "list"])
        let clients = (0..<8).map { _ in
            CommandClient(
                context: context, endpoint: stack.configuration.commandEndpoint(.store), timeout: .seconds(20))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, client) in clients.enumerated() {
                group.addTask {
                    for index in stride(from: number, to: 5_001, by: clients.count) {
                        _ = try await client.request(
                            "todo.add",
                            args: [
                                "title": .string("Item \(index) for the kitchen list, with some words"),
                                "collection": "Shopping",
                            ])
                    }
                }
            }
            try await group.waitForAll()
        }
        let list = try await stack.hearth(["todo", "list", "--json"])
        #expect(list.status == 0, "\(list.stderr.prefix(300))")
        #expect(list.stdout.utf8.count > 1_000_000)
        let todos = try JSONValue.parse(Array(list.stdout.utf8))["todos"]?.arrayValue ?? []
        #expect(todos.count == 5_001)

        // 12,000 edits of one author, imported (signed, its key trusted first).
        let author = "4150e000-0000-4000-8000-000000000001"
        try await TestHousehold.trust([author], store: clients[0])
        for batch in 0..<24 {
            let page = (1...500).map { index -> JSONValue in
                let counter = batch * 500 + index
                return TestHousehold.signed(
                    [
                        "id": .string("\(author):\(counter)"), "time": ["wall": .int(Int64(counter)), "logical": 0],
                        "entity": ["kind": "event_card", "id": .string(String(format: "2026-%02d", counter % 12 + 1))],
                        "fields": ["title": ["value": .string("Plan \(counter)"), "overwrites": []]],
                    ])
            }
            _ = try await clients[0].request("ops.import", args: ["operations": .array(page)])
        }
        let history = try await stack.hearth(["history", "--json"])
        #expect(history.status == 0, "\(history.stderr.prefix(300))")
        #expect(!history.stderr.contains("not answering"))
        let months = try JSONValue.parse(Array(history.stdout.utf8))["months"]?.arrayValue ?? []
        #expect(months.reduce(0) { $0 + ($1["changes"]?.arrayValue?.count ?? 0) } == 12_000)
        for client in clients { await client.close() }
        for (service, status) in await stack.stop() { #expect(status == 0, "\(service)") }
    }
}
