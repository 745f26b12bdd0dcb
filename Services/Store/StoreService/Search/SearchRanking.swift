import Foundation
import GRDB
import GRDBSQLite

/// `hearth_rank(search_index, share…)`: FTS5's BM25 (k1 1.2, b 0.75, a title match weighing four
/// times a body's, as the index's `bm25(4.0, 1.0)`), each phrase's inverse document frequency
/// taken from the share of rows it matches, given by the caller, instead of counted.
///
/// FTS5's own `bm25` counts, once per query, every row each phrase matches, to get its IDF: all
/// 40,000 matches of a two-letter prefix among 100,000 rows, though only the latest 250 are
/// ranked. The store's ranked query took 2.1 ms at the median (`hearth-bench todos`, 1,000
/// searches, timed inside the store); on a like-made index of 100,000 rows, the latest 250
/// matches took 1.5 ms scored by `bm25` and 0.3–0.5 ms unscored. The search passes an
/// estimate instead (`StoreCommands.shares`), and nothing for one word, whose IDF scales every
/// score alike and so never changes the order.
enum SearchRanking {
    /// The title's and the body's weights.
    static let weights: [Double] = [4, 1]
    static let k1 = 1.2
    static let b = 0.75

    /// Registers `hearth_rank` on `db`'s connection (each of the pool's, as it opens).
    static func register(in db: Database) throws {
        let api = UnsafeMutablePointer(mutating: FTS5.api(db))
        guard let create = api.pointee.xCreateFunction else { throw DatabaseError(message: "FTS5 has no functions") }
        let code = create(api, "hearth_rank", nil, rank, nil)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
    }

    /// The IDF FTS5's `bm25` gives a phrase found in `matches` of `rows` rows (at least 1e-6).
    static func idf(matches: Double, rows: Double) -> Double {
        max(1e-6, log((rows - matches + 0.5) / (matches + 0.5)))
    }

    /// The function itself: minus the row's score (so that `ORDER BY` ascending puts the best
    /// first, as FTS5's `rank`). A phrase without a share argument has an IDF of 1.
    private static let rank: fts5_extension_function = { api, fts, context, count, values in
        guard let api = api?.pointee, let fts else { return }
        var rows: sqlite3_int64 = 0
        var total: sqlite3_int64 = 0
        var length: Int32 = 0
        var instances: Int32 = 0
        guard api.xRowCount(fts, &rows) == SQLITE_OK, api.xColumnTotalSize(fts, -1, &total) == SQLITE_OK,
            api.xColumnSize(fts, -1, &length) == SQLITE_OK, api.xInstCount(fts, &instances) == SQLITE_OK
        else {
            sqlite3_result_error(context, "hearth_rank: the row's sizes could not be read", -1)
            return
        }
        let phrases = Int(api.xPhraseCount(fts))
        var frequency = [Double](repeating: 0, count: phrases)
        for index in 0..<instances {
            var phrase: Int32 = 0
            var column: Int32 = 0
            var offset: Int32 = 0
            guard api.xInst(fts, index, &phrase, &column, &offset) == SQLITE_OK else { continue }
            if phrase >= 0, Int(phrase) < phrases, column >= 0, Int(column) < weights.count {
                frequency[Int(phrase)] += weights[Int(column)]
            }
        }
        let average = Double(total) / Double(max(rows, 1))
        let norm = k1 * (1 - b + b * Double(length) / max(average, 1))
        var score = 0.0
        for phrase in 0..<phrases where frequency[phrase] > 0 {
            let idf =
                Int32(phrase) < count
                ? Self.idf(matches: sqlite3_value_double(values?[phrase]) * Double(rows), rows: Double(rows)) : 1
            score += idf * frequency[phrase] * (k1 + 1) / (frequency[phrase] + norm)
        }
        sqlite3_result_double(context, -score)
    }
}
