import Foundation
import GRDB
import HearthBus
import HearthCore
import HearthTesting
import HearthTrust
import Testing

@testable import StoreService

/// The one list of household domains (`HouseholdDomains`) and the store's tables of them
/// (`StoreDomains`) name the same domains in the same order, with the same entity kinds; each
/// domain names its own kinds for undo, and declares what of it search indexes (no list of
/// kinds elsewhere).
@Suite("The household's domains: one list, and the store keeps each")
struct DomainRegistryTests {
    @Test("the store keeps every domain of the list, in its order, with its kinds")
    func storeMatchesList() {
        let storeKinds: [Set<String>] = StoreDomains.all.map { domain in domain.entityKinds }
        let listKinds: [Set<String>] = HouseholdDomains.all.map { domain in domain.entityKinds }
        #expect(storeKinds == listKinds)
        for domain in HouseholdDomains.all {
            for kind in domain.entityKinds {
                #expect(HouseholdDomains.domain(of: kind)?.name == domain.name)
                let kept: Set<String>? = (try? StoreDomains.domain(of: kind)).map { store in store.entityKinds }
                #expect(kept == domain.entityKinds)
            }
        }
    }

    @Test("an operation on a kind no domain keeps is refused by the list, naming the kinds it knows")
    func unknownKind() throws {
        let unknown = try Operation(
            json: [
                "id": "0f0f0000-0000-4000-8000-000000000001:1", "time": ["wall": 1, "logical": 0],
                "entity": ["kind": "bank_account", "id": "x"], "fields": ["balance": ["value": 1, "overwrites": []]],
            ], at: "operation")
        let error = #expect(throws: RuleError.self) { try HouseholdDomains.validate(unknown) }
        #expect(error?.field == "entity.kind" && error?.rule.contains("event_card") == true)
    }

    @Test("each domain names every kind it keeps, and only those: undo steps read the names from the domains")
    func kindNames() throws {
        for domain in StoreDomains.all {
            #expect(Set(domain.kindNames.keys) == domain.entityKinds, "\(domain)")
        }
        #expect(UndoLog.kindNames[Todos.todoKind] == "todo" && UndoLog.kindNames[Social.itemKind] == "check-in")
        #expect(Set(UndoLog.kindNames.keys) == Set(StoreDomains.all.flatMap { domain in domain.entityKinds }))
    }

    @Test(
        "search reads its sources from the domains: each kind once, each table and column in a migrated store, each shown kind answered by its own domain"
    )
    func searchSources() async throws {
        let sources = SearchIndex.sources
        #expect(Set(sources.map(\.kind)).count == sources.count)
        // Every source the landed migrations installed is still declared (a domain may add more:
        // each gets a migration of its own).
        #expect(Set(SearchIndex.landedKinds).isSubset(of: Set(sources.map(\.kind))))
        #expect(StoreCommands.searchKinds["todo"] == ["todo", "subtask"])
        let home = try TemporaryHome()
        let path = home.file("hearth.sqlite")
        // Read on a thread of its own; the expectations are made here, in the test's task.
        let (columns, hits, unknown) = try await offPool {
            () throws -> ([String: Set<String>], [String: SearchHit?], SearchHit?) in
            let database = try StoreDatabase(path: path, localDevice: "dev-local", signer: .generate())
            defer { try? database.pool.close() }
            return try database.pool.read { db in
                var columns: [String: Set<String>] = [:]
                var hits: [String: SearchHit?] = [:]
                for source in sources {
                    columns[source.kind] = Set(try db.columns(in: source.table).map(\.name))
                    hits[source.shown] = try StoreDomains.searchHit(source.shown, link: "gone", in: db)
                }
                return (columns, hits, try StoreDomains.searchHit("bank_account", link: "x", in: db))
            }
        }
        for source in sources {
            #expect(Set(source.columns).isSubset(of: columns[source.kind] ?? []), "\(source.kind)")
            // No domain but the source's own answers for what it shows.
            let answering = StoreDomains.all.filter { domain in
                domain.searchSources.contains { $0.shown == source.shown }
            }
            #expect(answering.count == 1, "\(source.shown)")
        }
        // A row that has gone is no result (a note is its day, whose note may be empty).
        #expect(hits.filter { $0.value != nil }.map(\.key) == ["note"], "\(hits)")
        #expect(unknown == nil)
    }

    @Test("a domain's new search source is installed by a migration of its own: its rows before and after are found")
    func newSearchSource() throws {
        let queue = try DatabaseQueue()
        let gadget = SearchIndex.Source(
            kind: "gadget", table: "gadget", key: "X.id", link: "X.id", owner: "NULL", title: "X.name",
            body: "''", columns: ["name"], shown: "gadget")
        var migrator = DatabaseMigrator()
        migrator.registerMigration("gadgets") { db in
            try db.execute(sql: "CREATE TABLE gadget (id TEXT PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO gadget VALUES ('g1', 'Kettle')")
        }
        SearchIndex.registerMigrations(in: &migrator, sources: [gadget])
        #expect(migrator.migrations.last == "search: the gadget index")
        try migrator.migrate(queue)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO gadget VALUES ('g2', 'Kettlebell')")
            try SearchIndex.flush(db)
        }
        let found = try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT e.ref FROM search_index JOIN search_entry AS e ON e.id = search_index.rowid
                    WHERE search_index MATCH '"kettle"*' ORDER BY e.ref
                    """)
        }
        #expect(found == ["g1", "g2"])
    }
}
