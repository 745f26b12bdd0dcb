import GRDB
import HearthBus
import HearthCore

/// `search`: the household's things that match a text, from the search index (`SearchIndex`).
extension StoreCommands {
    /// The kinds a search may be narrowed to, and the index's kinds each covers.
    static let searchKinds: [String: [String]] =
        Dictionary(grouping: SearchIndex.sources, by: \.shown).mapValues { $0.map(\.kind) }

    /// The kind each of the index's kinds is shown as (a subtask as its todo).
    private static let shownAs: [String: String] = Dictionary(
        SearchIndex.sources.map { ($0.kind, $0.shown) }
    ) { first, _ in first }
    /// The most matches a search ranks (`search`): the latest.
    static let rankedAtMost = 250
    /// The most words whose IDF weighs them (below SQLite's 127 arguments to a function).
    static let weighedAtMost = 64
    /// The longest text searched for, in characters.
    static let maximumSearchLength = 1_000
    /// The most different words one search looks for: each is a prefix query of its own, and
    /// 500 one-letter words took 0.9 s a search (issue 62). A word typed twice counts once.
    static let maximumSearchWords = 32

    /// `search {text, kind?, limit? (20, at most 100)}`: ranked (BM25, a title match above a
    /// body's), each thing once, with a snippet. Any text is searched as text: every word of it
    /// (quotes, `AND`, `NEAR`, `*`, `-`, parentheses, emoji alike) must match the start of a word,
    /// diacritics ignored. A student's profile finds only its own lessons (the hub's rule: a
    /// student sees their own timetable only).
    func search(_ command: SearchCommands.Search) async throws -> JSONValue {
        let text = command.text
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw CommandError.invalidArgument("text", "is empty: type what to search for")
        }
        guard trimmed.count <= Self.maximumSearchLength else {
            throw CommandError.invalidArgument("text", "must be at most \(Self.maximumSearchLength) characters")
        }
        let kind = command.kind
        if let kind, Self.searchKinds[kind] == nil {
            throw CommandError.invalidArgument(
                "kind", "must be one of \(Self.searchKinds.keys.sorted().joined(separator: ", ")), got '\(kind)'")
        }
        let limit = command.limit ?? 20
        guard (1...100).contains(limit) else { throw CommandError.invalidArgument("limit", "must be 1–100") }
        let phrases = Self.matchPhrases(trimmed)
        guard phrases.count <= Self.maximumSearchWords else {
            throw CommandError.invalidArgument(
                "text", "must have at most \(Self.maximumSearchWords) different words, has \(phrases.count)")
        }
        let query = phrases.joined(separator: " ")
        let kinds = kind.flatMap { Self.searchKinds[$0] } ?? Self.searchKinds.values.flatMap { $0 }
        // A few searches at once, so a burst of them leaves the pool's other readers to the
        // store's other commands (16 at once made an event.list wait 29.6 s: issue 62).
        return try await searches.run { try await searchRead(query, phrases, trimmed, text, kinds, limit) }
    }

    /// The search's reads, in one read transaction.
    private func searchRead(
        _ query: String, _ phrases: [String], _ trimmed: String, _ text: String, _ kinds: [String], _ limit: Int
    ) async throws -> JSONValue {
        try await database.pool.read { db in
            let profile = try HubCommands.profile(in: db)
            let own = profile?.role == .student ? profile?.id : nil
            // Ranked first, cheaply (row ids and their rank, no snippet); each kept in order until
            // the limit, its entry read by id and filtered here (the kind asked for, a student's
            // own lessons, each thing once); then only the kept ones get their snippet.
            // A text that matches more than `rankedAtMost` things (a prefix of two letters in a big
            // household) ranks the latest of them (the index's newest rows): BM25 over a prefix's
            // matches costs 15–30 µs each (all of 40,000 matches of a two-letter prefix among
            // 100,000 rows took 175 ms at p99; the latest 300, 8 ms; the store's whole search, ranking the
            // latest 400, 26 ms, so 250), and a longer text narrows it.
            let floor = try Self.latestMatches(query, in: db).oldest
            // Ranked by BM25 with each word's IDF from its share of the rows (`SearchRanking`);
            // past `weighedAtMost` words (a pasted paragraph), all of them weigh alike.
            let shares = (2...Self.weighedAtMost).contains(phrases.count) ? try Self.shares(of: phrases, in: db) : []
            let ranked = try Row.fetchCursor(
                try db.cachedStatement(
                    sql: """
                        SELECT rowid FROM search_index WHERE search_index MATCH ? AND rowid >= ?
                        ORDER BY hearth_rank(search_index\(String(repeating: ", ?", count: shares.count)))
                        """), arguments: [query, floor] + StatementArguments(shares))
            let entry = try db.cachedStatement(sql: "SELECT kind, link, owner FROM search_entry WHERE id = ?")
            let content = try db.cachedStatement(sql: "SELECT title, body FROM search_index WHERE rowid = ?")
            let wanted = Set(kinds)
            var results: [SearchResult] = []
            var seen = Set<String>()
            while results.count < limit, let row = try ranked.next() {
                let rowid: Int64 = row[0]
                guard let found = try Row.fetchOne(entry, arguments: [rowid]) else { continue }
                let kind: String = found["kind"]
                let link: String = found["link"]
                // A member's own row (a lesson) is shown to a student's profile only when it is theirs.
                let owner: String? = found["owner"]
                guard wanted.contains(kind), owner == nil || own == nil || owner == own else { continue }
                let shown = Self.shownAs[kind] ?? kind
                guard seen.insert("\(shown)\u{0}\(link)").inserted,
                    let hit = try StoreDomains.searchHit(shown, link: link, in: db)
                else { continue }
                let texts =
                    try Row.fetchOne(content, arguments: [rowid]).map { row -> [String] in
                        [row[0] ?? "", row[1] ?? ""]
                    } ?? []
                results.append(
                    SearchResult(
                        kind: shown, id: hit.id, title: hit.title, detail: hit.detail,
                        snippet: SearchSnippet.parts(texts, words: trimmed), date: hit.date))
            }
            return try JSONValue(reply: SearchResults(text: text, results: results))
        }
    }

    /// The FTS5 query for `text`, a phrase for each different word, all of them required: each
    /// word quoted (a quote in it doubled), so that no character is syntax, and a prefix (`*`).
    /// Control characters separate words as spaces do: a NUL would end the query's C string
    /// inside a quote ("unterminated string").
    static func matchPhrases(_ text: String) -> [String] {
        var seen = Set<String>()
        return text.split {
            $0.isWhitespace || $0.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        .filter { seen.insert($0.lowercased()).inserted }
        .map { word in "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
    }

    /// How many rows `match` matches, counting at most the latest `rankedAtMost`, and the
    /// oldest rowid among those (0 when none): only they are read, from the newest back.
    static func latestMatches(_ match: String, in db: Database) throws -> (count: Int, oldest: Int64) {
        let row = try Row.fetchOne(
            try db.cachedStatement(
                sql: """
                    SELECT count(*), coalesce(min(rowid), 0) FROM
                        (SELECT rowid FROM search_index WHERE search_index MATCH ? ORDER BY rowid DESC LIMIT ?)
                    """), arguments: [match, rankedAtMost])
        return (row?[0] ?? 0, row?[1] ?? 0)
    }

    /// The share of the index's rows each phrase matches, for its IDF: counted when it matches
    /// fewer than `rankedAtMost` rows, else estimated from how far back its latest `rankedAtMost`
    /// matches reach (rows keep their rowid when re-indexed, so rowids are about as dense as
    /// rows). A few hundred matches read a phrase, where FTS5's `bm25` read all of them.
    static func shares(of phrases: [String], in db: Database) throws -> [Double] {
        let newest = Double(try Int64.fetchOne(try db.cachedStatement(sql: "SELECT max(id) FROM search_entry")) ?? 0)
        return try phrases.map { phrase in
            let (count, oldest) = try latestMatches(phrase, in: db)
            let share =
                count < rankedAtMost
                ? Double(count) / max(newest, 1) : Double(rankedAtMost) / (newest - Double(oldest) + 1)
            return min(1, share)
        }
    }
}
