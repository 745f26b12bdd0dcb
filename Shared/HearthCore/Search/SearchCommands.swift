/// The store's search (`store.cmd`): what the CLI and the page send.
public enum SearchCommands {
    /// Everything whose words match `text` (any text: quotes and operators are words), of one
    /// `kind` if given, `limit` (1–100, default 20) hits at most, best first.
    public struct Search: HearthCommand {
        public typealias Reply = SearchResults
        public static let name = "search"
        public var text: String
        public var kind: String?
        public var limit: Int?
        public init(text: String, kind: String? = nil, limit: Int? = nil) {
            (self.text, self.kind, self.limit) = (text, kind, limit)
        }
    }
}
