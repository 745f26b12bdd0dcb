/// The todos' own commands to the store (`store.cmd`), one type each: what the CLI, the page,
/// hearth-scheduler and the tests send, and what the store decodes. A todo is named by its id or
/// a unique id prefix, a collection by name (any case), id or id prefix, a member (`for`) by name
/// or id. Days are `YYYY-MM-DD`, times `HH:MM`; an empty text clears an optional field.
public enum TodoCommands {
    /// Adds a todo to a collection. Unset fields take their defaults: no priority, no repeat, a
    /// month end skipped, no reminder, shown on the calendar.
    public struct Add: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "todo.add"
        public var title: String
        public var collection: String
        public var description: String?
        /// The due day (the first, for a repeating todo).
        public var due: String?
        public var time: String?
        public var priority: String?
        /// `none`, `daily`, `weekly`, `monthly` or `yearly`.
        public var repeating: String?
        public var until: String?
        /// A monthly or yearly todo on a date its month lacks: `skip` (the default) or `clamp` (the
        /// month's last day).
        public var monthEnd: String?
        public var remind: Bool?
        public var showInCalendar: Bool?
        /// The member it is for (its reminder pops only on their devices).
        public var assignee: String?

        public init(
            title: String, collection: String, description: String? = nil, due: String? = nil, time: String? = nil,
            priority: String? = nil, repeating: String? = nil, until: String? = nil, monthEnd: String? = nil,
            remind: Bool? = nil, showInCalendar: Bool? = nil, assignee: String? = nil
        ) {
            (self.title, self.collection, self.description) = (title, collection, description)
            (self.due, self.time, self.priority, self.repeating) = (due, time, priority, repeating)
            (self.until, self.monthEnd, self.remind) = (until, monthEnd, remind)
            (self.showInCalendar, self.assignee) = (showInCalendar, assignee)
        }

        enum CodingKeys: String, CodingKey {
            case title, collection, description, due, time, priority, until, monthEnd, remind, showInCalendar
            case repeating = "repeat"
            case assignee = "for"
        }
    }

    /// Changes a todo's fields (at least one), moves it to another collection or assigns it (an
    /// empty `for` makes it the household's again).
    public struct Edit: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "todo.edit"
        public var id: String
        public var title: String?
        public var collection: String?
        public var description: String?
        public var due: String?
        public var time: String?
        public var priority: String?
        public var repeating: String?
        public var until: String?
        public var monthEnd: String?
        public var remind: Bool?
        public var showInCalendar: Bool?
        public var completed: Bool?
        public var assignee: String?

        public init(
            id: String, title: String? = nil, collection: String? = nil, description: String? = nil,
            due: String? = nil, time: String? = nil, priority: String? = nil, repeating: String? = nil,
            until: String? = nil, monthEnd: String? = nil, remind: Bool? = nil, showInCalendar: Bool? = nil,
            completed: Bool? = nil, assignee: String? = nil
        ) {
            (self.id, self.title, self.collection, self.description) = (id, title, collection, description)
            (self.due, self.time, self.priority, self.repeating) = (due, time, priority, repeating)
            (self.until, self.monthEnd, self.remind, self.showInCalendar) = (until, monthEnd, remind, showInCalendar)
            (self.completed, self.assignee) = (completed, assignee)
        }

        enum CodingKeys: String, CodingKey {
            case id, title, collection, description, due, time, priority, until, monthEnd, remind, showInCalendar
            case completed
            case repeating = "repeat"
            case assignee = "for"
        }
    }

    /// Removes a todo (its history stays).
    public struct Remove: HearthCommand {
        public typealias Reply = TodoRemoved
        public static let name = "todo.remove"
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// Completes a one-off todo, or one day's occurrence of a repeating one (`date` required).
    public struct Done: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "todo.done"
        public var id: String
        public var date: String?
        public init(id: String, date: String? = nil) { (self.id, self.date) = (id, date) }
    }

    /// Reopens a todo, or one day's occurrence.
    public struct Undone: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "todo.undone"
        public var id: String
        public var date: String?
        public init(id: String, date: String? = nil) { (self.id, self.date) = (id, date) }
    }

    /// Marks one day of a repeating todo skipped (or, with `skipped: false`, no longer).
    public struct Skip: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "todo.skip"
        public var id: String
        public var date: String
        public var skipped: Bool?
        public init(id: String, date: String, skipped: Bool? = nil) {
            (self.id, self.date, self.skipped) = (id, date, skipped)
        }
    }

    /// Skips every day a repeating todo falls on from `from` through `to` (366 days at most);
    /// with `resume`, those days (without `from` and `to`: every one from today on) no longer.
    public struct Pause: HearthCommand {
        public typealias Reply = TodoPaused
        public static let name = "todo.pause"
        public var id: String
        public var from: String?
        public var to: String?
        public var resume: Bool?
        public init(id: String, from: String? = nil, to: String? = nil, resume: Bool? = nil) {
            (self.id, self.from, self.to, self.resume) = (id, from, to, resume)
        }
    }

    /// One todo with its subtasks, the days done and skipped, and a habit's streak as of `today`
    /// (the household's day unless given).
    public struct Show: HearthCommand {
        public typealias Reply = TodoView
        public static let name = "todo.show"
        public var id: String
        public var today: String?
        public init(id: String, today: String? = nil) { (self.id, self.today) = (id, today) }
    }

    /// Todos by collection order, then due date; with `today`, repeating todos that ended before
    /// it are left out.
    public struct List: HearthCommand {
        public typealias Reply = TodoList
        public static let name = "todo.list"
        public var collection: String?
        public var today: String?
        public var assignee: String?
        public init(collection: String? = nil, today: String? = nil, assignee: String? = nil) {
            (self.collection, self.today, self.assignee) = (collection, today, assignee)
        }

        enum CodingKeys: String, CodingKey {
            case collection, today
            case assignee = "for"
        }
    }

    /// The todos of one day: repeating ones on the days they fall on, each marked done or not.
    public struct Day: HearthCommand {
        public typealias Reply = TodoDay
        public static let name = "todo.day"
        public var date: String
        public var collection: String?
        public var assignee: String?
        public init(date: String, collection: String? = nil, assignee: String? = nil) {
            (self.date, self.collection, self.assignee) = (date, collection, assignee)
        }

        enum CodingKeys: String, CodingKey {
            case date, collection
            case assignee = "for"
        }
    }

    /// The days a todo falls on from `from` through `to` (ten years at most), each done or not.
    public struct Occurrences: HearthCommand {
        public typealias Reply = TodoOccurrences
        public static let name = "todo.occurrences"
        public var id: String
        public var from: String
        public var to: String
        public init(id: String, from: String, to: String) { (self.id, self.from, self.to) = (id, from, to) }
    }

    /// Every change to a todo, its subtasks and its completions, oldest first (a removed todo's
    /// too, by its full id).
    public struct History: HearthCommand {
        public typealias Reply = TodoHistory
        public static let name = "todo.history"
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// Each day's todos from `from` through `to` (62 days at most), from the collections shown
    /// on the calendar, filtered, with counts per day.
    public struct Calendar: HearthCommand {
        public typealias Reply = TodoCalendar
        public static let name = "todo.calendar"
        public var from: String
        public var to: String
        public var priority: String?
        /// `open` or `done`.
        public var status: String?
        /// `habit`, `plan` or `list`.
        public var kind: String?
        public var collection: String?
        public var assignee: String?
        public init(
            from: String, to: String, priority: String? = nil, status: String? = nil, kind: String? = nil,
            collection: String? = nil, assignee: String? = nil
        ) {
            (self.from, self.to, self.priority, self.status) = (from, to, priority, status)
            (self.kind, self.collection, self.assignee) = (kind, collection, assignee)
        }

        enum CodingKeys: String, CodingKey {
            case from, to, priority, status, kind, collection
            case assignee = "for"
        }
    }

    /// Every todo of a collection (or of all) with its subtasks and the days a repeating one was
    /// done and skipped: what `todo export` writes as iCalendar, CSV or JSON.
    public struct Export: HearthCommand {
        public typealias Reply = TodoList
        public static let name = "todo.export"
        public var collection: String?
        public init(collection: String? = nil) { self.collection = collection }
    }

    /// Reads an iCalendar file of todos (`path`, absolute, on the store's machine): what it would
    /// add and update, or with `confirm` does so. `collection` takes the todos whose file names
    /// none.
    public struct Import: HearthCommand {
        public typealias Reply = TodoImportReport
        public static let name = "todo.import"
        public var path: String
        public var collection: String?
        public var confirm: Bool?
        public init(path: String, collection: String? = nil, confirm: Bool? = nil) {
            (self.path, self.collection, self.confirm) = (path, collection, confirm)
        }
    }

    /// Completion statistics over `weeks` weeks (1–53, default 12) up to `today` (the
    /// household's day unless given), of one collection or all.
    public struct Stats: HearthCommand {
        public typealias Reply = TodoStatistics
        public static let name = "todo.stats"
        public var collection: String?
        public var weeks: Int?
        public var today: String?
        public init(collection: String? = nil, weeks: Int? = nil, today: String? = nil) {
            (self.collection, self.weeks, self.today) = (collection, weeks, today)
        }
    }

    /// Makes a collection from a template (`hearth templates`) starting on `start`, named
    /// `collectionName` or the template's (made distinct when taken).
    public struct ApplyTemplate: HearthCommand {
        public typealias Reply = TemplateApplied
        public static let name = "template.apply"
        public var name: String
        public var start: String
        public var collectionName: String?
        public init(name: String, start: String, collectionName: String? = nil) {
            (self.name, self.start, self.collectionName) = (name, start, collectionName)
        }
    }
}
