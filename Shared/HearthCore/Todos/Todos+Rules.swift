/// The todos domain's rules for every operation on its kinds, local or from another device.
extension Todos: DomainRules {
    public static let entityKinds: Set<String> = [collectionKind, todoKind, subtaskKind, completionKind, noteKind]

    private static let collectionFields: [String: FieldRule] = [
        "name": .text(maximumLength: maximumNameLength, nullable: false, blank: false),
        "kind": .oneOf(Kind.allCases.map(\.rawValue)),
        "icon": .text(maximumLength: maximumIconLength),
        "sort_order": .integer(0...1_000_000, nullable: false),
        "show_in_calendar": .boolean,
        "deleted": .boolean,
    ]

    private static let todoFields: [String: FieldRule] = [
        "collection": .entityID,
        "title": .text(maximumLength: maximumTitleLength, nullable: false, blank: false),
        "description": .text(maximumLength: maximumDescriptionLength, multiline: true),
        "due_date": .date,
        "due_time": .time,
        "priority": .oneOf(Priority.allCases.map(\.rawValue)),
        "remind": .boolean,
        "show_in_calendar": .boolean,
        "completed": .boolean,
        "repeat": .oneOf(Repeat.allCases.map(\.rawValue)),
        "until": .date,
        "month_end": .oneOf(MonthEnd.allCases.map(\.rawValue)),
        "assignee": .entityID(nullable: true),
        "deleted": .boolean,
    ]

    private static let subtaskFields: [String: FieldRule] = [
        "todo": .entityID,
        "title": .text(maximumLength: maximumTitleLength, nullable: false, blank: false),
        "completed": .boolean,
        "position": .integer(0...1_000_000, nullable: false),
        "deleted": .boolean,
    ]

    /// A day of a repeating todo: done, or skipped (not applicable that day: the pool was
    /// closed; a pause is a run of skipped days). Done wins over skipped.
    private static let completionFields: [String: FieldRule] = ["done": .boolean, "skipped": .boolean]

    private static let noteFields: [String: FieldRule] = [
        "mood": .oneOf(Mood.allCases.map(\.rawValue)),
        "text": .text(maximumLength: maximumDescriptionLength, multiline: true),
    ]

    public static func validate(_ operation: Operation) throws(RuleError) {
        let id = operation.entity.id
        switch operation.entity.kind {
        case collectionKind:
            try requireEntityID(id)
            try operation.check(fields: collectionFields)
        case todoKind:
            try requireEntityID(id)
            try operation.check(fields: todoFields)
            try checkTodo(operation.fields.mapValues(\.value), whole: false)
        case subtaskKind:
            try requireEntityID(id)
            try operation.check(fields: subtaskFields)
        case completionKind:
            guard completionParts(id) != nil else {
                throw RuleError(
                    field: "entity.id", rule: "must be '<todo id>@YYYY-MM-DD' for a completion, got '\(id)'")
            }
            try operation.check(fields: completionFields)
        case noteKind:
            _ = try LocalDate(parsing: id, field: "entity.id")
            try operation.check(fields: noteFields)
        default:
            throw RuleError(field: "entity.kind", rule: "'\(operation.entity.kind)' is not a todos kind")
        }
    }

    private static func requireEntityID(_ id: String) throws(RuleError) {
        guard isEntityID(id) else {
            throw RuleError(field: "entity.id", rule: "must be a lower-case UUID, got '\(id)'")
        }
    }
}

extension FieldRule {
    /// Another entity's id (a lower-case UUID).
    static let entityID = entityID(nullable: false)

    /// Another entity's id (a lower-case UUID), or null where `nullable` (a todo's assignee).
    static func entityID(nullable: Bool) -> FieldRule {
        FieldRule { (name, value) throws(RuleError) in
            if nullable, value == .null { return }
            guard case .text(let id) = value, Todos.isEntityID(id) else {
                throw RuleError(
                    field: name, rule: "must be a lower-case UUID\(nullable ? " or null" : ""), got \(value)")
            }
        }
    }

    /// A date `YYYY-MM-DD` that exists, or null.
    static let date = FieldRule { (name, value) throws(RuleError) in
        switch value {
        case .null: return
        case .text(let text): _ = try LocalDate(parsing: text, field: name)
        default: throw RuleError(field: name, rule: "must be a date YYYY-MM-DD or null, got \(value.kind)")
        }
    }

    /// A time `HH:MM:SS`, or null.
    static let time = FieldRule { (name, value) throws(RuleError) in
        switch value {
        case .null: return
        case .text(let text):
            let time = try LocalTime(parsing: text, field: name)
            guard time.description == text else {
                throw RuleError(field: name, rule: "must be stored as HH:MM:SS, got '\(text)'")
            }
        default: throw RuleError(field: name, rule: "must be a time HH:MM:SS or null, got \(value.kind)")
        }
    }
}

extension Todos {
    /// The rules between a todo's fields, in one place for a command's todo and an operation from
    /// another device alike: a time needs a due date, a repeat needs one (its first occurrence),
    /// an end date needs a repeat and must not be before the due date, a reminder needs a date and
    /// a time.
    /// - Parameters:
    ///   - fields: the todo's fields (`due_date`, `due_time`, `repeat`, `until`, `remind`).
    ///   - whole: `true` for a todo's whole state (an absent field is unset); `false` for one
    ///     operation's fields, where an absent field is whatever the todo already holds, so a
    ///     rule is checked only when the operation carries every field it reads.
    public static func checkTodo(_ fields: [String: FieldValue], whole: Bool) throws(RuleError) {
        /// `.some(text or nil)` when known, `nil` when the operation does not say.
        func known(_ name: String) -> String?? {
            switch fields[name] {
            case .text(let value)?: return .some(value)
            case nil: return whole ? .some(nil) : nil
            default: return .some(nil)
            }
        }
        let (due, time, repeating, until) = (known("due_date"), known("due_time"), known("repeat"), known("until"))
        let repeats = repeating.map { ($0 ?? Repeat.none.rawValue) != Repeat.none.rawValue }
        if case .some(.some) = time, case .some(nil) = due {
            throw RuleError(field: "time", rule: "needs a due date ('due')")
        }
        if repeats == true, case .some(nil) = due {
            throw RuleError(field: "repeat", rule: "needs a due date ('due'): it is the first occurrence")
        }
        if case .some(.some(let end)) = until {
            if repeats == false {
                throw RuleError(field: "until", rule: "is the end of a repeating todo: give 'repeat' too")
            }
            if case .some(.some(let start)) = due, end < start {
                throw RuleError(field: "until", rule: "must not be before the due date \(start), got \(end)")
            }
        }
        let reminds = fields["remind"].map { $0 == .bool(true) } ?? (whole ? false : nil)
        if reminds == true {
            if case .some(nil) = due {
                throw RuleError(field: "remind", rule: "needs a due date and time ('due' and 'time')")
            }
            if case .some(nil) = time {
                throw RuleError(field: "remind", rule: "needs a due date and time ('due' and 'time')")
            }
        }
    }
}
