import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import Testing

@testable import StoreService

extension StoreTodosTests {
    /// Searches `text` at `store`: the results, or the refusal's text.
    func search(
        _ store: CommandClient, _ text: String, kind: String? = nil
    ) async throws -> SearchResults {
        var arguments: [String: JSONValue] = ["text": .string(text)]
        if let kind { arguments["kind"] = .string(kind) }
        return try await store.request("search", args: arguments).decode(SearchResults.self)
    }

    @Test(
        "search finds todos (and by their subtasks), notes, cards, people (and check-in notes), lessons; prefixes, diacritics folded, matches marked; kept in step with edits, removals and sync"
    )
    func searchAcrossTheHousehold() async throws {
        try await withTwoStores(context: context) { a, b in
            _ = try await a.request("collection.add", args: ["name": "Home", "kind": "list"])
            let fence = try await a.request(
                "todo.add",
                args: ["title": "Paint the fence", "collection": "home", "description": "Green, from the Café shop"])
            let fenceID = try #require(fence["todo"]?["id"]?.stringValue)
            let step = try await a.request("subtask.add", args: ["todo": .string(fenceID), "title": "Buy brushes"])
            let stepID = try #require(step["subtask"]?["id"]?.stringValue)
            _ = try await a.request(
                "note.set", args: ["date": "2026-11-20", "text": "Lunch at the café, then the park 🎉"])
            _ = try await a.request(
                "event.set", args: ["year": 2027, "month": 3, "title": "Ski trip", "location": "Alps"])
            _ = try await a.request(
                "people.add", args: ["name": "Zoë", "tags": "friends", "purpose": "Old school friend"])
            _ = try await a.request(
                "people.log",
                args: [
                    "person": "Zoë", "outcome": "call", "when": "2026-11-20T10:00:00Z", "note": "talked about skiing",
                ])
            _ = try await a.request("member.add", args: ["name": "Ann", "role": "student"])
            _ = try await a.request("timetable.configure", args: ["week1_start": "2026-11-02"])
            _ = try await a.request("timetable.bells", args: ["bells": ["1=09:00-10:00"]])
            _ = try await a.request(
                "timetable.add",
                args: [
                    "member": "Ann", "week": 1, "day": "Mon", "period": "1", "subject": "Chemistry", "room": "Lab 2",
                    "teacher": "MrsK",
                ])
            try await exchange(a, b)
            for store in [a, b] {
                // A prefix, diacritics folded both ways, the match marked.
                let cafe = try await search(store, "cafe")
                #expect(Set(cafe.results.map(\.kind)) == ["todo", "note"], "\(cafe.results)")
                let note = try #require(cafe.results.first { $0.kind == "note" })
                #expect(note.id == "2026-11-20" && note.snippetText() == "Lunch at the [café], then the park 🎉")
                #expect(try await search(store, "Zoe").results.map(\.title) == ["Zoë"])
                #expect(try await search(store, "brush").results.map(\.title) == ["Paint the fence"])
                #expect(try await search(store, "ski").results.map(\.kind).sorted() == ["card", "person"])
                let card = try #require(try await search(store, "alps").results.first)
                #expect(
                    card.kind == "card" && card.id == "2027-03" && card.title == "Ski trip"
                        && card.detail == "March 2027")
                let lesson = try #require(try await search(store, "chem lab").results.first)
                #expect(lesson.kind == "lesson" && lesson.detail == "Ann · week 1 · Mon · period 1")
                #expect(try await search(store, "🎉").results.map(\.kind) == ["note"])
                #expect(try await search(store, "ski", kind: "card").results.map(\.kind) == ["card"])
            }
            // A title match ranks above a body's.
            _ = try await a.request("todo.add", args: ["title": "Café visits", "collection": "home"])
            #expect(
                try await search(a, "cafe", kind: "todo").results.map(\.title) == ["Café visits", "Paint the fence"])
            // Kept in step: an edit, a subtask and a todo removed, on the other device after a sync.
            _ = try await a.request("todo.edit", args: ["id": .string(fenceID), "title": "Mend the gate"])
            _ = try await a.request("subtask.remove", args: ["id": .string(stepID)])
            try await exchange(a, b)
            for store in [a, b] {
                #expect(try await search(store, "fence").results.isEmpty)
                #expect(try await search(store, "brushes").results.isEmpty)
                #expect(try await search(store, "gate").results.map(\.id) == [fenceID])
            }
            _ = try await b.request("todo.remove", args: ["id": .string(fenceID)])
            try await exchange(a, b)
            for store in [a, b] { #expect(try await search(store, "gate").results.isEmpty) }
        }
    }

    @Test(
        "any text is a search, never a syntax error: quotes, FTS5 operators, parentheses, emoji, 1,000 characters; an empty one says so; a student's profile finds only its own lessons"
    )
    func searchAnyText() async throws {
        try await withTwoStores(context: context) { a, _ in
            _ = try await a.request("collection.add", args: ["name": "Home", "kind": "list"])
            _ = try await a.request(
                "todo.add", args: ["title": "Fix \"the\" AND gate (NEAR shed) - now*", "collection": "home"])
            for text in [
                "\"", "\"the\"", "AND", "gate AND", "NEAR(", "NEAR(fix shed)", "*", "-", "- now", "(", ")",
                "a\" OR \"b",
                "^", ":", "title:fix", "🎉", String(repeating: "fix ", count: 250), String(repeating: "é", count: 1_000),
            ] {
                do {
                    _ = try await search(a, text)
                } catch {
                    Issue.record("searching \(text.prefix(40)) failed: \(error)")
                }
            }
            // Control characters part words as spaces do (a NUL ended the query's C string: the
            // page showed "SQLite error 1: unterminated string" with the SQL).
            for text in ["fix\u{0}gate", "fix\u{1}gate", "fix\u{7F}gate", "gate\u{0}"] {
                #expect(try await search(a, text).results.count == 1, "\(text.debugDescription)")
            }
            // Words are bounded: 500 one-letter words, each a prefix query, took 0.9 s a search.
            // A word typed again counts once; past 32 different words the text is refused.
            #expect(try await search(a, String(repeating: "f g ", count: 250)).results.count == 1)
            let words = (0..<33).map { "w\($0)" }.joined(separator: " ")
            do {
                _ = try await search(a, words)
                Issue.record("33 different words were searched")
            } catch {
                #expect("\(error)".contains("'text' must have at most 32 different words, has 33"), "\(error)")
            }
            #expect(try await search(a, "(NEAR").results.count == 1)
            #expect(try await search(a, "\"the\" and").results.count == 1)
            #expect(try await search(a, "fix -").results.count == 1)
            for (text, field) in [("", "'text'"), ("   ", "'text'"), (String(repeating: "x", count: 1_001), "'text'")] {
                do {
                    _ = try await search(a, text)
                    Issue.record("an empty or long search was answered")
                } catch {
                    #expect("\(error)".contains(field), "\(error)")
                }
            }
            do {
                _ = try await search(a, "x", kind: "recipe")
                Issue.record("kind recipe was taken")
            } catch {
                #expect("\(error)".contains("'kind' must be one of card, lesson, note, person, todo"), "\(error)")
            }

            // Ann (a student) and Ben: Ann's profile finds her lessons, not Ben's.
            for name in ["Ann", "Ben"] {
                _ = try await a.request("member.add", args: ["name": .string(name), "role": "student"])
            }
            _ = try await a.request("timetable.configure", args: ["week1_start": "2026-11-02"])
            _ = try await a.request("timetable.bells", args: ["bells": ["1=09:00-10:00"]])
            for (name, subject) in [("Ann", "Biology"), ("Ben", "Biochemistry")] {
                _ = try await a.request(
                    "timetable.add",
                    args: [
                        "member": .string(name), "week": 1, "day": "Tue", "period": "1", "subject": .string(subject),
                        "room": "B1",
                    ])
            }
            #expect(try await search(a, "bio").results.count == 2)
            _ = try await a.request("member.use", args: ["member": "Ann"])
            #expect(try await search(a, "bio").results.map(\.title) == ["Biology"])
        }
    }
}

extension StoreTodosTests {
    @Test(
        "an edit re-indexes its row in place: the index entry keeps its id, one index row per entry, the old words gone"
    )
    func searchReindexInPlace() async throws {
        let home = try TemporaryHome()
        try await withStore(context: context, home: home) { store in
            for (month, title) in [(3, "Ski trip"), (4, "Easter at Gran's")] {
                _ = try await store.commands.request(
                    "event.set", args: ["year": 2027, "month": .int(Int64(month)), "title": .string(title)])
            }
            let entry = "SELECT id FROM search_entry WHERE kind = 'card' AND ref = '2027-3'"
            func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
                var configuration = Configuration()
                configuration.readonly = true
                let queue = try DatabaseQueue(path: home.file("hearth.sqlite"), configuration: configuration)
                defer { try? queue.close() }
                return try await queue.read(body)
            }
            let before = try #require(try await read { try Int64.fetchOne($0, sql: entry) })
            // The card is written again with `INSERT OR REPLACE`, whose delete fires no trigger:
            // the insert trigger queues it under the entry it has, and the batch's flush replaces
            // its one FTS row.
            _ = try await store.commands.request(
                "event.set", args: ["year": 2027, "month": 3, "title": "Ski week", "location": "Alps"])
            let (after, entries, indexed) = try await read { db in
                (
                    try Int64.fetchOne(db, sql: entry),
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM search_entry") ?? -1,
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM search_index") ?? -1
                )
            }
            #expect(after == before)
            #expect(entries == 2 && indexed == entries, "\(entries) entries, \(indexed) rows indexed")
            #expect(try await search(store.commands, "trip").results.isEmpty)
            #expect(try await search(store.commands, "ski alps").results.map(\.title) == ["Ski week"])
        }
    }

    @Test("a household from before the index: its migration indexes what is already there")
    func searchIndexBackfill() async throws {
        let home = try TemporaryHome()
        try await withStore(context: context, home: home) { store in
            _ = try await store.commands.request("collection.add", args: ["name": "Home", "kind": "list"])
            _ = try await store.commands.request(
                "todo.add", args: ["title": "Clean the gutters", "collection": "home"])
            _ = try await store.commands.request("people.add", args: ["name": "Gran"])
        }
        // As it was before the migration: no index, no triggers, the migration not run.
        let queue = try DatabaseQueue(path: home.file("hearth.sqlite"))
        try await queue.write { db in
            for source in [
                "todo", "todo_subtask", "daily_note", "event_card", "person", "interaction", "timetable_entry",
            ] {
                for event in ["insert", "update", "delete"] {
                    try db.execute(sql: "DROP TRIGGER search_\(source)_\(event)")
                }
            }
            try db.execute(sql: "DROP TABLE search_index; DROP TABLE search_entry; DROP TABLE search_queue")
            try db.execute(
                sql: "DELETE FROM grdb_migrations WHERE identifier IN ('search: the household index', ?)",
                arguments: [SearchIndex.queueMigration])
        }
        try queue.close()
        try await withStore(context: context, home: home) { store in
            let found = try await search(store.commands, "gutter")
            #expect(found.results.map(\.title) == ["Clean the gutters"])
            #expect(try await search(store.commands, "gran").results.map(\.kind) == ["person"])
        }
    }

    @Test(
        "an index from before the queue: kept as it was, and edits, removals and new rows after the upgrade reach it"
    )
    func searchQueueUpgrade() async throws {
        let home = try TemporaryHome()
        try await withStore(context: context, home: home) { store in
            _ = try await store.commands.request("collection.add", args: ["name": "Home", "kind": "list"])
            for title in ["Clean the gutters", "Sweep the chimney"] {
                _ = try await store.commands.request("todo.add", args: ["title": .string(title), "collection": "home"])
            }
        }
        // As the index was before the queue: its triggers in place under their names (a migration
        // that created them without replacing them would fail on "already exists"), no queue, the
        // migration not run.
        let queue = try DatabaseQueue(path: home.file("hearth.sqlite"))
        try await queue.write { db in
            try db.execute(sql: "DROP TABLE search_queue")
            try db.execute(
                sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [SearchIndex.queueMigration])
        }
        try queue.close()
        try await withStore(context: context, home: home) { store in
            let todos = try await store.commands.request("todo.list")
            let ids = Dictionary(
                uniqueKeysWithValues: (todos["todos"]?.arrayValue ?? []).compactMap { todo in
                    todo["title"]?.stringValue.flatMap { title in todo["id"]?.stringValue.map { (title, $0) } }
                })
            #expect(try await search(store.commands, "gutter").results.map(\.title) == ["Clean the gutters"])
            let chimney = try #require(ids["Sweep the chimney"])
            let gutters = try #require(ids["Clean the gutters"])
            _ = try await store.commands.request(
                "todo.edit", args: ["id": .string(chimney), "title": "Sweep the hearth"])
            _ = try await store.commands.request("todo.remove", args: ["id": .string(gutters)])
            _ = try await store.commands.request("todo.add", args: ["title": "Oil the gate", "collection": "home"])
            #expect(try await search(store.commands, "chimney").results.isEmpty)
            #expect(try await search(store.commands, "gutter").results.isEmpty)
            #expect(try await search(store.commands, "hearth").results.map(\.id) == [chimney])
            #expect(try await search(store.commands, "gate").results.map(\.title) == ["Oil the gate"])
        }
        // Nothing is left queued once a transaction has committed.
        let after = try DatabaseQueue(path: home.file("hearth.sqlite"))
        #expect(try await after.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM search_queue") } == 0)
        try after.close()
    }
}

@Suite("Search snippets: words marked as the index tells them apart")
struct SearchSnippetTests {
    @Test(
        "the words a searched word begins are marked, accents and case ignored, emoji too; a long text cut around the first match"
    )
    func marks() {
        func text(_ parts: [SnippetPart]) -> String { parts.map { $0.match ? "[\($0.text)]" : $0.text }.joined() }
        #expect(text(SearchSnippet.parts(["Café au lait", ""], words: "CAFE")) == "[Café] au lait")
        #expect(
            text(SearchSnippet.parts(["Title", "Party 🎉 tonight, re-café!"], words: "🎉 caf"))
                == "Party [🎉] tonight, re-[café]!")
        let long = (1...40).map { "w\($0)" }.joined(separator: " ")
        #expect(
            text(SearchSnippet.parts([long], words: "w20")) == "…w17 w18 w19 [w20] w21 w22 w23 w24 w25 w26 w27 w28…")
        #expect(text(SearchSnippet.parts([long], words: "w1")).hasPrefix("[w1] w2 w3"))
        #expect(SearchSnippet.parts(["nothing here"], words: "zz").isEmpty)
        #expect(text(SearchSnippet.parts(["no", "in the body"], words: "bod")) == "in the [body]")
    }

    @Test("ASCII's shortcut tells words apart and folds them as the Unicode rules and Foundation do")
    func asciiShortcut() {
        let words: Set<Unicode.GeneralCategory> = [
            .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber, .privateUse, .otherSymbol, .nonspacingMark,
        ]
        let ascii = (0..<128).compactMap(Unicode.Scalar.init)
        for scalar in ascii {
            #expect(
                SearchSnippet.isWordScalar(scalar) == words.contains(scalar.properties.generalCategory),
                "U+\(String(scalar.value, radix: 16))")
        }
        let all = String(String.UnicodeScalarView(ascii))
        #expect(
            SearchSnippet.fold(all) == all.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
        #expect(SearchSnippet.fold("CAFÉ Ünd") == "cafe und")
    }
}
