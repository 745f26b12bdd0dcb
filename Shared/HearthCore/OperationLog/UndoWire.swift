/// One undoable change made on this device: a command's operations, as `undo.list`, `undo` and
/// `redo` show it.
public struct UndoStep: Codable, Sendable, Equatable {
    /// Its number on this device, in the order the changes were made.
    public let seq: Int64
    /// The command that made it (`todo.edit`, `timetable.import`…).
    public let command: String
    /// What it changed, in a line: `todo 'Buy milk'`, `timetable_entry 'Maths' and 60 more`.
    public let summary: String
    /// Each entity it changed with the fields, at most 20: `todo 'Buy milk': title, due`.
    public let changes: [String]
    /// How many entities it changed.
    public let entities: Int
    /// When it was made (ms since 1970).
    public let at: Int64
    /// `done` (undo takes it back), `undone` (redo brings it back) or `dropped` (undone, then
    /// another change was made: it can no longer be redone).
    public let state: String
    /// When it was undone (ms since 1970), while it is.
    @OmittedWhenNil public var undoneAt: Int64?

    public init(
        seq: Int64, command: String, summary: String, changes: [String], entities: Int, at: Int64, state: String,
        undoneAt: Int64? = nil
    ) {
        (self.seq, self.command, self.summary, self.changes) = (seq, command, summary, changes)
        (self.entities, self.at, self.state, self.undoneAt) = (entities, at, state, undoneAt)
    }

    enum CodingKeys: String, CodingKey {
        case seq, command, summary, changes, entities, at, state
        case undoneAt = "undone_at"
    }

    /// How long before `now` (ms since 1970) it was made: `just now`, `5 min ago`, `3 h ago`,
    /// `2 d ago` (the CLI's list and the page's Changes view).
    public func age(now: Int64) -> String {
        let minutes = max(0, now - at) / 60_000
        if minutes < 1 { return "just now" }
        if minutes < 60 { return "\(minutes) min ago" }
        if minutes < 48 * 60 { return "\(minutes / 60) h ago" }
        return "\(minutes / 1_440) d ago"
    }
}

/// `undo.list {limit?}`: this device's latest changes, newest first.
public struct UndoList: Codable, Sendable, Equatable {
    public let steps: [UndoStep]
    /// Whether `undo` and `redo` have something to take back or bring back.
    public let canUndo: Bool
    public let canRedo: Bool

    public init(steps: [UndoStep], canUndo: Bool, canRedo: Bool) {
        (self.steps, self.canUndo, self.canRedo) = (steps, canUndo, canRedo)
    }

    enum CodingKeys: String, CodingKey {
        case steps
        case canUndo = "can_undo"
        case canRedo = "can_redo"
    }
}

/// `undo` and `redo`: the step taken back or brought back, what was restored, and what was left
/// because another device changed it since.
public struct UndoReport: Codable, Sendable, Equatable {
    /// `undo` or `redo`.
    public let action: String
    public let step: UndoStep
    /// Each entity restored with its fields (`todo 'Buy milk': title, due`), removed (`… :
    /// removed`, made by the change) or brought back (`… : back`); at most 20 lines.
    public let restored: [String]
    /// What was left as it is, and why (`todo 'Buy milk': title changed on Bob's phone since;
    /// left as it is`); at most 20 lines.
    public let left: [String]
    /// How many entities were restored and left, however many lines are shown.
    public let restoredTotal: Int
    public let leftTotal: Int
    /// How many operations the undo or redo wrote (they sync like any change).
    public let operations: Int

    public init(
        action: String, step: UndoStep, restored: [String], left: [String], restoredTotal: Int, leftTotal: Int,
        operations: Int
    ) {
        (self.action, self.step, self.restored, self.left, self.operations) = (action, step, restored, left, operations)
        (self.restoredTotal, self.leftTotal) = (restoredTotal, leftTotal)
    }

    enum CodingKeys: String, CodingKey {
        case action, step, restored, left, operations
        case restoredTotal = "restored_total"
        case leftTotal = "left_total"
    }
}
