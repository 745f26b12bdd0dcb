import GRDB

/// The household's search index: SQLite FTS5 over what a person would look for (todos and their
/// subtasks, daily notes, the year's cards, people and what was noted after a check-in, lessons),
/// kept in step with the materialised tables by triggers, so in the transaction that changes them
/// whoever writes them (an operation applied, a sync, a rebuild).
///
/// The triggers queue what changed (`search_queue`: an entry's title and body, or its removal)
/// and `flush` writes the queue into FTS5 once, as the transaction's last step (`GroupCommit`
/// flushes every batch). Written by the triggers themselves, FTS5 was written inside each
/// command's savepoint, and FTS5 writes its pending terms out at every `SAVEPOINT` and `RELEASE`:
/// a segment per command, and a fifth of the writer's time under `hearth-bench store` (see
/// Benchmarks/README.md, "the index written once per batch"). A reader never sees the queue
/// unapplied: it is applied before the transaction commits.
///
/// `search_entry` maps each indexed row (`kind`, `ref`) to its FTS row and says where a result
/// leads (`link`: the todo of a subtask, the person of a check-in) and whose it is (`owner`: the
/// member of a lesson). The tokenizer folds diacritics (`cafe` finds `Café`) and takes symbols
/// (`So`: emoji) as words, so `🎉` is found too; prefixes of 2 and 3 characters are indexed. Its
/// `rank` is BM25 with a title match weighing four times a body's.
///
/// The materialised tables are written with `INSERT OR REPLACE`, whose delete fires no trigger:
/// each insert trigger therefore replaces the entry's FTS row itself.
enum SearchIndex {
    /// What one kind of row indexes: the table, its key, the link, the owner, the title and the
    /// body (SQL over `X.`, the row), and the kind a result of it is shown as. Each domain
    /// declares its own (`StoreDomain.searchSources`).
    struct Source: Sendable {
        /// The entry's kind in `search_entry` (unique across domains).
        let kind: String
        let table: String
        let key: String
        /// Where a result leads (the todo of a subtask).
        let link: String
        /// Whose the row is: a member's id (a lesson's), shown to a student's profile only when
        /// it is theirs; `NULL` for the household's.
        let owner: String
        let title: String
        let body: String
        /// The columns whose change re-indexes a row.
        let columns: [String]
        /// The kind its results are shown as (`todo` for a subtask too): what `search {kind}` asks
        /// for, and what the domain's `searchHit` describes.
        let shown: String
    }

    /// Every domain's sources (`StoreDomains.searchSources`).
    static var sources: [Source] { StoreDomains.searchSources }

    /// The sources the index's first two migrations installed, in their order (those migrations
    /// never change once landed). Any other source is installed by a migration of its own.
    static let landedKinds = ["todo", "subtask", "note", "card", "person", "interaction", "lesson"]

    /// The index's migrations over `sources`: the index and the landed sources, then the queue,
    /// then one migration for each source a domain added since ("search: the <kind> index").
    static func registerMigration(in migrator: inout DatabaseMigrator) {
        registerMigrations(in: &migrator, sources: sources)
    }

    /// `registerMigration` over the sources given (a test's domain that does not exist).
    static func registerMigrations(in migrator: inout DatabaseMigrator, sources: [Source]) {
        let landed = landedKinds.compactMap { kind in sources.first { $0.kind == kind } }
        registerIndexMigration(in: &migrator, sources: landed)
        registerQueueMigration(in: &migrator, sources: landed)
        for source in sources where !landedKinds.contains(source.kind) {
            migrator.registerMigration("search: the \(source.kind) index") { db in try install(source, in: db) }
        }
    }

    /// Puts `source`'s triggers in place and indexes its rows there already.
    static func install(_ source: Source, in db: Database) throws {
        try db.execute(sql: triggers(source))
        try backfill(source, into: "search_queue (entry, title, body)", in: db)
        try flush(db)
    }

    /// Indexes the rows `source`'s table holds already: an entry each, with its title and body
    /// written to `target` (FTS5 itself in the index's first migration, which had no queue; the
    /// queue, flushed after, since).
    private static func backfill(_ source: Source, into target: String, in db: Database) throws {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT \(on("X", source.key)) AS ref, \(on("X", source.link)) AS link,
                       \(on("X", source.owner)) AS owner, \(on("X", source.title)) AS title,
                       \(on("X", source.body)) AS body
                FROM \(source.table) AS X
                """)
        for row in rows {
            try db.execute(
                sql: "INSERT INTO search_entry (kind, ref, link, owner) VALUES (?, ?, ?, ?)",
                arguments: [source.kind, row["ref"], row["link"], row["owner"]])
            try db.execute(
                sql: "INSERT INTO \(target) VALUES (?, ?, ?)",
                arguments: [db.lastInsertedRowID, row["title"], row["body"]])
        }
    }

    /// The index and the sources it first had. (The triggers it made then wrote FTS5 directly;
    /// the next migration replaced them.)
    private static func registerIndexMigration(in migrator: inout DatabaseMigrator, sources: [Source]) {
        migrator.registerMigration("search: the household index") { db in
            try db.execute(
                sql: """
                    CREATE TABLE search_entry (
                        id INTEGER PRIMARY KEY, kind TEXT NOT NULL, ref TEXT NOT NULL, link TEXT NOT NULL, owner TEXT,
                        UNIQUE (kind, ref));
                    CREATE VIRTUAL TABLE search_index USING fts5(
                        title, body, tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co So'",
                        prefix = '2 3');
                    INSERT INTO search_index (search_index, rank) VALUES ('rank', 'bm25(4.0, 1.0)');
                    """)
            for source in sources {
                try db.execute(sql: triggers(source))
                try backfill(source, into: "search_index (rowid, title, body)", in: db)
            }
        }
    }

    /// Until this migration the triggers wrote FTS5 directly; from it they queue, and `flush`
    /// applies the queue. Registered straight after the index's own, so no write ever meets
    /// triggers whose queue does not exist yet.
    static let queueMigration = "search: the index written once per transaction"

    private static func registerQueueMigration(in migrator: inout DatabaseMigrator, sources: [Source]) {
        migrator.registerMigration(queueMigration) { db in
            try db.execute(
                sql: """
                    CREATE TABLE search_queue (
                        entry INTEGER PRIMARY KEY, title TEXT, body TEXT, removed BOOLEAN NOT NULL DEFAULT 0)
                    """)
            for source in sources {
                for event in ["insert", "update", "delete"] {
                    try db.execute(sql: "DROP TRIGGER IF EXISTS search_\(source.table)_\(event)")
                }
                try db.execute(sql: triggers(source))
            }
        }
    }

    /// Writes what the triggers queued into FTS5 and empties the queue: each queued entry's FTS
    /// row replaced (or removed), in three statements for the whole transaction. Call it as a
    /// transaction's last write (after its savepoints); a transaction that changed no indexed
    /// row costs one lookup.
    static func flush(_ db: Database) throws {
        guard try Bool.fetchOne(try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM search_queue)")) == true
        else { return }
        try db.cachedStatement(sql: "DELETE FROM search_index WHERE rowid IN (SELECT entry FROM search_queue)")
            .execute()
        try db.cachedStatement(
            sql:
                "INSERT INTO search_index (rowid, title, body) SELECT entry, title, body FROM search_queue WHERE NOT removed"
        ).execute()
        try db.cachedStatement(sql: "DELETE FROM search_queue").execute()
    }

    /// `expression` with its row named `row` (`X.title` → `new.title`).
    static func on(_ row: String, _ expression: String) -> String {
        expression.replacingOccurrences(of: "X.", with: "\(row).")
    }

    /// The triggers keeping `source`'s rows in the index: an insert (or a replace) and an update
    /// of an indexed column queue the row's title and body under its entry; a delete queues the
    /// entry's removal. The entry (`search_entry`) is written at once; FTS5 at `flush`.
    static func triggers(_ source: Source) -> String {
        let entry = "(SELECT id FROM search_entry WHERE kind = '\(source.kind)' AND ref = \(on("new", source.key)))"
        let index = """
            INSERT INTO search_entry (kind, ref, link, owner)
                VALUES ('\(source.kind)', \(on("new", source.key)), \(on("new", source.link)), \(on("new", source.owner)))
                ON CONFLICT (kind, ref) DO UPDATE SET link = excluded.link, owner = excluded.owner;
            INSERT OR REPLACE INTO search_queue (entry, title, body, removed)
                VALUES (\(entry), \(on("new", source.title)), \(on("new", source.body)), 0);
            """
        let remove = """
            INSERT OR REPLACE INTO search_queue (entry, title, body, removed)
                SELECT id, NULL, NULL, 1 FROM search_entry WHERE kind = '\(source.kind)' AND ref = \(on("old", source.key));
            DELETE FROM search_entry WHERE kind = '\(source.kind)' AND ref = \(on("old", source.key));
            """
        let name = "search_\(source.table)"
        return """
            CREATE TRIGGER \(name)_insert AFTER INSERT ON \(source.table) BEGIN
            \(index)
            END;
            CREATE TRIGGER \(name)_update AFTER UPDATE OF \(source.columns.joined(separator: ", ")) ON \(source.table) BEGIN
            \(remove)
            \(index)
            END;
            CREATE TRIGGER \(name)_delete AFTER DELETE ON \(source.table) BEGIN
            \(remove)
            END;
            """
    }
}

/// What a search result shows: the id to open, its title, where it is, and its day if it has one.
struct SearchHit: Sendable, Equatable {
    let id: String
    let title: String
    let detail: String
    let date: String?
}
