/// The todos domain's collection and daily-note commands to the store (`store.cmd`), one type
/// each: what the CLI and the page send, and what the store decodes. A collection is named by name
/// (any case), id or unique id prefix.
public enum CollectionCommands {
    /// Adds a collection: a `habit`, `plan` or `list` collection.
    public struct Add: HearthCommand {
        public typealias Reply = CollectionChange
        public static let name = "collection.add"
        public var name: String
        public var kind: String
        public var icon: String?
        /// Whether its todos show on the calendar (default yes).
        public var showInCalendar: Bool?
        public init(name: String, kind: String, icon: String? = nil, showInCalendar: Bool? = nil) {
            (self.name, self.kind, self.icon, self.showInCalendar) = (name, kind, icon, showInCalendar)
        }
    }

    /// Renames a collection or changes its icon (empty clears it), calendar showing or place.
    public struct Edit: HearthCommand {
        public typealias Reply = CollectionChange
        public static let name = "collection.edit"
        public var collection: String
        public var name: String?
        public var icon: String?
        public var showInCalendar: Bool?
        public var sortOrder: Int?
        public init(
            collection: String, name: String? = nil, icon: String? = nil, showInCalendar: Bool? = nil,
            sortOrder: Int? = nil
        ) {
            (self.collection, self.name, self.icon) = (collection, name, icon)
            (self.showInCalendar, self.sortOrder) = (showInCalendar, sortOrder)
        }
    }

    /// Removes a collection and every todo in it (history keeps them).
    public struct Remove: HearthCommand {
        public typealias Reply = CollectionRemoved
        public static let name = "collection.remove"
        public var collection: String
        public init(collection: String) { self.collection = collection }
    }

    /// The collections in their order.
    public struct List: HearthCommand {
        public typealias Reply = CollectionList
        public static let name = "collection.list"
        public init() {}
    }
}

/// The daily notes' commands to the store: one note per date, a mood and free text.
public enum NoteCommands {
    /// Writes a day's note: its mood, its text (empty clears it), or both.
    public struct Set: HearthCommand {
        public typealias Reply = NoteChange
        public static let name = "note.set"
        /// `YYYY-MM-DD`.
        public var date: String
        public var mood: String?
        public var text: String?
        public init(date: String, mood: String? = nil, text: String? = nil) {
            (self.date, self.mood, self.text) = (date, mood, text)
        }
    }

    /// A day's note, with every competing value of a field in conflict.
    public struct Show: HearthCommand {
        public typealias Reply = NoteView
        public static let name = "note.show"
        public var date: String
        public init(date: String) { self.date = date }
    }

    /// Notes newest first, from `since` on and of one `mood` if given.
    public struct List: HearthCommand {
        public typealias Reply = NoteList
        public static let name = "note.list"
        public var since: String?
        public var mood: String?
        public init(since: String? = nil, mood: String? = nil) { (self.since, self.mood) = (since, mood) }
    }
}
