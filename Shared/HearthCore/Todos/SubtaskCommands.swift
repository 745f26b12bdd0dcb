/// A todo's subtasks, as commands to the store (`store.cmd`): each answers with the todo as it
/// now is. A subtask is named by its id or a unique id prefix; a todo by id, prefix or title.
public enum SubtaskCommands {
    /// Adds a subtask at the end of a todo's list.
    public struct Add: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "subtask.add"
        public var todo: String
        public var title: String
        public init(todo: String, title: String) { (self.todo, self.title) = (todo, title) }
    }

    /// Ticks a subtask.
    public struct Done: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "subtask.done"
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// Unticks a subtask.
    public struct Undone: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "subtask.undone"
        public var id: String
        public init(id: String) { self.id = id }
    }

    /// Moves a subtask to `position` (1 is first) among its todo's subtasks.
    public struct Move: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "subtask.move"
        public var id: String
        public var position: Int
        public init(id: String, position: Int) { (self.id, self.position) = (id, position) }
    }

    /// Removes a subtask.
    public struct Remove: HearthCommand {
        public typealias Reply = TodoChange
        public static let name = "subtask.remove"
        public var id: String
        public init(id: String) { self.id = id }
    }
}
