/// `search {text, kind?, limit?}` on `store.cmd`: the household's things that match, best first.
/// Encoded by `hearth-store`, decoded by `hearth search` and the page.
public struct SearchResults: Codable, Sendable, Equatable {
    /// The text searched for, as given.
    public let text: String
    public let results: [SearchResult]

    public init(text: String, results: [SearchResult]) { (self.text, self.results) = (text, results) }
}

/// One thing found.
public struct SearchResult: Codable, Sendable, Equatable {
    /// What it is: `todo`, `note`, `card`, `person` or `lesson`.
    public let kind: String
    /// What to open: the todo's or person's id, the note's date, the card's `YYYY-MM`, the lesson's id.
    public let id: String
    /// Its name: the todo's title (also for a subtask found), the person's, the card's…
    public let title: String
    /// Where it is: the collection, the month, the member and slot of a lesson, the note's day.
    public let detail: String
    /// Around the match, the matching words marked.
    public let snippet: [SnippetPart]
    /// The day it belongs to: a todo's due date, a note's day.
    public var date: String?

    public init(kind: String, id: String, title: String, detail: String, snippet: [SnippetPart], date: String? = nil) {
        (self.kind, self.id, self.title, self.detail, self.snippet, self.date) = (
            kind, id, title, detail, snippet, date
        )
    }

    /// The snippet as plain text with the matches in `open` and `close` ("[Café] au lait").
    public func snippetText(open: String = "[", close: String = "]") -> String {
        snippet.map { $0.match ? open + $0.text + close : $0.text }.joined()
    }
}

/// A stretch of a snippet: a match or the text around one.
public struct SnippetPart: Codable, Sendable, Equatable {
    public let text: String
    public let match: Bool

    public init(text: String, match: Bool) { (self.text, self.match) = (text, match) }
}
