/// Todos, habits, plans and lists on `store.cmd`: collections, todos, the day's agenda, the
/// calendar, notes. Encoded by `hearth-store` (absent fields as `null`, as replies are), decoded
/// by the command line and the page.

/// A collection as replies show one.
public struct CollectionView: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    /// `list`, `habit` or `plan`.
    public let kind: String
    public let icon: String?
    public let sortOrder: Int
    public let showInCalendar: Bool
    /// How many todos it holds, and how many of those are done.
    public let todos: Int
    public let done: Int
    public let conflicted: Bool

    public init(
        id: String, name: String, kind: String, icon: String?, sortOrder: Int, showInCalendar: Bool, todos: Int,
        done: Int, conflicted: Bool
    ) {
        (self.id, self.name, self.kind, self.icon, self.sortOrder) = (id, name, kind, icon, sortOrder)
        (self.showInCalendar, self.todos, self.done, self.conflicted) = (showInCalendar, todos, done, conflicted)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, kind, icon, todos, done, conflicted
        case sortOrder = "sort_order"
        case showInCalendar = "show_in_calendar"
    }
}

/// `collection.list`.
public struct CollectionList: Codable, Sendable, Equatable {
    public let collections: [CollectionView]

    public init(collections: [CollectionView]) { self.collections = collections }
}

/// The reply to `collection.add` and `collection.edit`.
public struct CollectionChange: Codable, Sendable, Equatable {
    public let collection: CollectionView
    @OmittedWhenNil public var op: String?
    @OmittedWhenNil public var seq: Int64?
    @OmittedWhenNil public var unchanged: Bool?
}

/// An entity removed: its id, with the operation that removed it.
public struct Removed: Codable, Sendable, Equatable {
    public let id: String
}

/// `collection.remove`: the collection removed and how many todos went with it.
public struct CollectionRemoved: Codable, Sendable, Equatable {
    public let collection: Removed
    public let op: String
    public let seq: Int64
    public let removedTodos: Int

    enum CodingKeys: String, CodingKey {
        case collection, op, seq
        case removedTodos = "removed_todos"
    }
}

/// The member a todo is for (none: the household's).
public struct AssigneeView: Codable, Sendable, Equatable {
    public let id: String
    public let name: String

    public init(id: String, name: String) { (self.id, self.name) = (id, name) }
}

/// A todo as replies show one.
public struct TodoView: Codable, Sendable, Equatable {
    public struct Subtask: Codable, Sendable, Equatable {
        public let id: String
        public let title: String
        public let completed: Bool

        public init(id: String, title: String, completed: Bool) {
            (self.id, self.title, self.completed) = (id, title, completed)
        }
    }

    public let id: String
    /// Its collection's id, name and kind (`nil` when the collection is gone).
    public let collection: String?
    public let collectionName: String?
    public let kind: String?
    public let title: String
    public let description: String?
    /// The due date (`YYYY-MM-DD`; a repeating todo's first) and time (`HH:MM`).
    public let due: String?
    public let time: String?
    /// `none`, `low`, `medium` or `high`.
    public let priority: String
    public let remind: Bool
    public let showInCalendar: Bool
    public let completed: Bool
    /// `none`, `daily`, `weekly`, `monthly` or `yearly`; until when; and what a monthly one does
    /// in a month without its day (`skip` or `clamp`).
    public let `repeat`: String
    public let until: String?
    public let monthEnd: String
    public let modifiedAt: String
    public let conflicted: Bool
    public let assignee: AssigneeView?
    public let subtasks: [Subtask]
    /// In `todo.show`: the dates a repeating todo was done.
    @OmittedWhenNil public var completions: [String]?
    /// In `todo.show`: the days of a repeating todo marked skipped (or paused).
    @OmittedWhenNil public var skips: [String]?
    /// A repeating todo's streak and strength (`todo.show`; in `todo.list`, a habit's).
    @OmittedWhenNil public var habit: HabitProgress?

    public init(
        id: String, collection: String?, collectionName: String?, kind: String?, title: String,
        description: String?, due: String?, time: String?, priority: String, remind: Bool, showInCalendar: Bool,
        completed: Bool, repeat: String, until: String?, monthEnd: String, modifiedAt: String, conflicted: Bool,
        assignee: AssigneeView?, subtasks: [Subtask]
    ) {
        (self.id, self.collection, self.collectionName, self.kind, self.title) = (
            id, collection, collectionName, kind, title
        )
        (self.description, self.due, self.time, self.priority, self.remind) = (description, due, time, priority, remind)
        (self.showInCalendar, self.completed, self.repeat, self.until, self.monthEnd) = (
            showInCalendar, completed, `repeat`, until, monthEnd
        )
        (self.modifiedAt, self.conflicted, self.assignee, self.subtasks) = (modifiedAt, conflicted, assignee, subtasks)
    }

    enum CodingKeys: String, CodingKey {
        case id, collection, kind, title, description, due, time, priority, remind, completed, until, conflicted
        case assignee, subtasks, completions, habit, skips
        case `repeat`
        case collectionName = "collection_name"
        case showInCalendar = "show_in_calendar"
        case monthEnd = "month_end"
        case modifiedAt = "modified_at"
    }
}

/// The reply to a change of a todo (add, edit, done, undone) or of its subtasks: the todo as it
/// now is, the operation written, and what it touched (a repeating todo's day, a subtask).
public struct TodoChange: Codable, Sendable, Equatable {
    /// One day of a repeating todo, done or not.
    public struct Completion: Codable, Sendable, Equatable {
        public let template: String
        public let date: String
        public let done: Bool
        /// Whether the day is skipped (`todo.skip`); absent from a build before skips.
        @OmittedWhenNil public var skipped: Bool?
    }

    public let todo: TodoView?
    @OmittedWhenNil public var op: String?
    @OmittedWhenNil public var seq: Int64?
    @OmittedWhenNil public var unchanged: Bool?
    @OmittedWhenNil public var completion: Completion?
    @OmittedWhenNil public var subtask: Removed?
}

/// `todo.pause`: the todo, and the days it falls on in the range, now skipped (or, with
/// `resumed`, no longer).
public struct TodoPaused: Codable, Sendable, Equatable {
    public let todo: TodoView?
    public let days: [String]
    public let resumed: Bool

    public init(todo: TodoView?, days: [String], resumed: Bool) {
        (self.todo, self.days, self.resumed) = (todo, days, resumed)
    }
}

/// `todo.remove`.
public struct TodoRemoved: Codable, Sendable, Equatable {
    public let todo: Removed
    public let op: String
    public let seq: Int64
}

/// `todo.list` without a date: todos by collection order, then due date.
public struct TodoList: Codable, Sendable, Equatable {
    public let todos: [TodoView]

    public init(todos: [TodoView]) { self.todos = todos }
}

/// One todo on one day: a one-off on its due date, a repeating one on each day it falls on.
public struct AgendaItem: Codable, Sendable, Equatable {
    public let id: String
    public let date: String
    public let title: String
    /// `HH:MM`.
    public let time: String?
    public let priority: String
    /// Its collection's id and kind.
    public let collection: String
    public let kind: String?
    public let recurring: Bool
    /// Done on that day.
    public let done: Bool
    public let assignee: AssigneeView?
    /// A habit's streak and strength as of that day, in a one-day calendar (the today view's list).
    public var habit: HabitProgress?

    public init(
        id: String, date: String, title: String, time: String?, priority: String, collection: String, kind: String?,
        recurring: Bool, done: Bool, assignee: AssigneeView?
    ) {
        (self.id, self.date, self.title, self.time, self.priority) = (id, date, title, time, priority)
        (self.collection, self.kind, self.recurring, self.done, self.assignee) = (
            collection, kind, recurring, done, assignee
        )
    }
}

/// `todo.list {date}`: that day's todos.
public struct TodoDay: Codable, Sendable, Equatable {
    public let date: String
    public let todos: [AgendaItem]

    public init(date: String, todos: [AgendaItem]) { (self.date, self.todos) = (date, todos) }
}

/// `todo.calendar`: each day from `from` to `to` with its todos and how many are open and done.
public struct TodoCalendar: Codable, Sendable, Equatable {
    public struct Day: Codable, Sendable, Equatable {
        public struct Counts: Codable, Sendable, Equatable {
            public let open: Int
            public let done: Int

            public init(open: Int, done: Int) { (self.open, self.done) = (open, done) }
        }

        public let date: String
        /// ISO weekday, 1 Monday … 7 Sunday.
        public let weekday: Int
        public let counts: Counts
        public let todos: [AgendaItem]

        public init(date: String, weekday: Int, counts: Counts, todos: [AgendaItem]) {
            (self.date, self.weekday, self.counts, self.todos) = (date, weekday, counts, todos)
        }
    }

    public let from: String
    public let to: String
    public let days: [Day]

    public init(from: String, to: String, days: [Day]) { (self.from, self.to, self.days) = (from, to, days) }
}

/// `todo.occurrences`: the days a todo falls on in a range, each with whether it was done.
public struct TodoOccurrences: Codable, Sendable, Equatable {
    public struct Occurrence: Codable, Sendable, Equatable {
        public let date: String
        public let done: Bool
        /// Skipped (or in a pause): neither done nor missed. Absent when not.
        @OmittedWhenNil public var skipped: Bool?

        public init(date: String, done: Bool, skipped: Bool? = nil) {
            (self.date, self.done, self.skipped) = (date, done, skipped)
        }
    }

    public let occurrences: [Occurrence]

    public init(occurrences: [Occurrence]) { self.occurrences = occurrences }
}

/// `todo.history`: every change to a todo, its subtasks and its days, oldest first.
public struct TodoHistory: Codable, Sendable, Equatable {
    public let id: String
    public let changes: [HistoryEntry]

    public init(id: String, changes: [HistoryEntry]) { (self.id, self.changes) = (id, changes) }
}

/// A day's note: its mood and text, who last wrote it; in `note.show`, the competing values of
/// any field in conflict, or `empty` for a day with no note.
public struct NoteView: Codable, Sendable, Equatable {
    public let date: String
    public let mood: String?
    public let text: String?
    @OmittedWhenNil public var modifiedAt: String?
    /// The device that last wrote it, and its name.
    @OmittedWhenNil public var modifiedBy: String?
    @OmittedWhenNil public var modifiedByName: String?
    @OmittedWhenNil public var conflicted: Bool?
    @OmittedWhenNil public var conflicts: [String: [FieldJSON]]?
    @OmittedWhenNil public var empty: Bool?

    public init(date: String, mood: String?, text: String?) { (self.date, self.mood, self.text) = (date, mood, text) }

    enum CodingKeys: String, CodingKey {
        case date, mood, text, conflicted, conflicts, empty
        case modifiedAt = "modified_at"
        case modifiedBy = "modified_by"
        case modifiedByName = "modified_by_name"
    }
}

/// `note.set`.
public struct NoteChange: Codable, Sendable, Equatable {
    public let note: NoteView
    @OmittedWhenNil public var op: String?
    @OmittedWhenNil public var seq: Int64?
    @OmittedWhenNil public var unchanged: Bool?
}

/// `note.list`: notes newest first, with how many of each mood.
public struct NoteList: Codable, Sendable, Equatable {
    public let notes: [NoteView]
    public let moods: [String: Int]

    public init(notes: [NoteView], moods: [String: Int]) { (self.notes, self.moods) = (notes, moods) }
}

/// `template.apply`: the collection made and how many todos it holds.
public struct TemplateApplied: Codable, Sendable, Equatable {
    public let collection: CollectionView?
    public let todos: Int
    public let template: String

    public init(collection: CollectionView?, todos: Int, template: String) {
        (self.collection, self.todos, self.template) = (collection, todos, template)
    }
}

/// `todo.import`: what an iCalendar file of todos gives (a preview) or gave (`confirmed`).
public struct TodoImportReport: Codable, Sendable, Equatable {
    /// A todo refused, and why.
    public struct Problem: Codable, Sendable, Equatable {
        public let todo: String
        public let reason: String

        public init(todo: String, reason: String) { (self.todo, self.reason) = (todo, reason) }
    }

    public let file: String
    /// Todos new here, and those already here (by UID) that it updates.
    public let added: Int
    public let updated: Int
    public let subtasks: Int
    /// Days of repeating todos marked done.
    public let completions: Int
    /// Days of repeating todos marked skipped (EXDATE); absent when none.
    @OmittedWhenNil public var skips: Int?
    /// Collections it makes (named by the todos' CATEGORIES).
    public let collections: [String]
    public let problems: [Problem]
    public let confirmed: Bool

    public init(
        file: String, added: Int, updated: Int, subtasks: Int, completions: Int, collections: [String],
        problems: [Problem], confirmed: Bool
    ) {
        (self.file, self.added, self.updated, self.subtasks, self.completions) = (
            file, added, updated, subtasks, completions
        )
        (self.collections, self.problems, self.confirmed) = (collections, problems, confirmed)
    }
}
