import Foundation
import GRDB
import HearthTesting
import Testing

@testable import StoreService

@Suite("Search ranking: FTS5's BM25 with the IDF given, not counted")
struct SearchRankingTests {
    /// An index as the store's (its tokenizer, its prefixes, an entry per row, `hearth_rank`
    /// registered) with `count` rows made of a small vocabulary, so that words repeat within rows
    /// and across them.
    func index(rows count: Int) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try SearchRanking.register(in: db) }
        let queue = try DatabaseQueue(configuration: configuration)
        var random = SplitMix(seed: 49)
        let words = [
            "café", "cake", "candle", "car", "dentist", "dinner", "door", "school", "shoes", "swim", "bread", "milk",
            "piano", "garden", "paint", "train", "bike", "lamp", "sock", "kettle", "window", "roof", "plant", "boots",
        ]
        func text(_ length: Int) -> String {
            (0..<length).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
        }
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE search_index USING fts5(
                        title, body, tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co So'",
                        prefix = '2 3');
                    CREATE TABLE search_entry (id INTEGER PRIMARY KEY);
                    """)
            for _ in 0..<count {
                try db.execute(sql: "INSERT INTO search_entry DEFAULT VALUES")
                try db.execute(
                    sql: "INSERT INTO search_index (rowid, title, body) VALUES (?, ?, ?)",
                    arguments: [db.lastInsertedRowID, text(1 + Int(random.next() % 4)), text(Int(random.next() % 9))])
            }
        }
        return queue
    }

    /// All the rows `phrase` matches, counted.
    func count(_ phrase: String, in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM search_index WHERE search_index MATCH ?", arguments: [phrase])!
    }

    @Test(
        "with each word's exact share of the rows (as counted under 250 matches), every row's score is FTS5's bm25(4.0, 1.0)"
    )
    func sameAsBM25() throws {
        let queue = try index(rows: 400)
        try queue.read { db in
            for text in ["can", "dentist", "can sch", "din pi", "cafe shoes"] {
                let phrases = StoreCommands.matchPhrases(text)
                let shares = try phrases.map { phrase in
                    Double(try count(phrase, in: db)) / 400
                }
                #expect(try StoreCommands.shares(of: phrases, in: db) == shares, "'\(text)': counted, not estimated")
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT bm25(search_index, 4.0, 1.0) AS bm25,
                               hearth_rank(search_index\(String(repeating: ", ?", count: shares.count))) AS ours
                        FROM search_index WHERE search_index MATCH ?
                        """, arguments: StatementArguments(shares) + [phrases.joined(separator: " ")])
                #expect(rows.count > 3, "'\(text)' matches a few rows")
                for row in rows {
                    let (bm25, ours): (Double, Double) = (row["bm25"], row["ours"])
                    #expect(abs(bm25 - ours) <= 1e-9 * abs(bm25), "'\(text)': \(bm25) vs \(ours)")
                    #expect(bm25 < -1e-3, "'\(text)': a score IDF's floor (1e-6) does not flatten")
                }
            }
        }
    }

    @Test("one word without its share ranks the rows in bm25's order")
    func oneWordOrder() throws {
        let queue = try index(rows: 400)
        try queue.read { db in
            for phrase in ["\"ca\"*", "\"din\"*", "\"school\"*"] {
                let theirs = try Int64.fetchAll(
                    db,
                    sql:
                        "SELECT rowid FROM search_index WHERE search_index MATCH ? ORDER BY bm25(search_index, 4.0, 1.0), rowid",
                    arguments: [phrase])
                let ours = try Int64.fetchAll(
                    db,
                    sql:
                        "SELECT rowid FROM search_index WHERE search_index MATCH ? ORDER BY hearth_rank(search_index), rowid",
                    arguments: [phrase])
                #expect(theirs.count > 10)
                #expect(ours == theirs, "\(phrase)")
            }
        }
    }

    @Test("a phrase's share, estimated from its latest matches when it has many, is near its true share")
    func estimatedShares() throws {
        let queue = try index(rows: 2_000)
        try queue.read { db in
            let phrases = ["\"ca\"*", "\"dentist\"*", "\"nowhere\"*"]
            let shares = try StoreCommands.shares(of: phrases, in: db)
            let exact = try phrases.map { Double(try count($0, in: db)) / 2_000 }
            #expect(exact[0] > 0.3 && exact[1] > 0.1, "both match more than 250 rows: \(exact)")
            for (estimate, truth) in zip(shares, exact) {
                #expect(abs(estimate - truth) <= 0.15 * truth, "\(estimate) vs \(truth)")
            }
            #expect(shares[2] == 0)
        }
    }
}
